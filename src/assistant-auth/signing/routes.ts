import Type from 'typebox';
import type { App } from '../../core/http/service-app.ts';
import type { AssistantAuth } from '../composition.ts';
import { signingAlgorithms } from './signing-key-repository.ts';

/** Verifiers may cache the key set this long; a rotation publishes new keys for longer than that first. */
const JWKS_MAX_AGE_SECONDS = 300;

const discoverySchema = Type.Object(
  {
    issuer: Type.String(),
    jwks_uri: Type.String(),
    id_token_signing_alg_values_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    subject_types_supported: Type.Array(Type.String()),
  },
  { $id: 'OpenIdConfiguration' },
);

const jwkSchema = Type.Object(
  {
    kty: Type.String(),
    kid: Type.String(),
    alg: Type.String(),
    use: Type.String(),
    crv: Type.Optional(Type.String()),
    x: Type.Optional(Type.String()),
    y: Type.Optional(Type.String()),
    n: Type.Optional(Type.String()),
    e: Type.Optional(Type.String()),
  },
  { $id: 'Jwk' },
);

const jwksSchema = Type.Object({ keys: Type.Array(jwkSchema) }, { $id: 'Jwks' });

const tag = 'openid';

/** The discovery document and the key set: no key needed, cacheable. */
export function signingRoutes(app: App, { access, address, signer }: AssistantAuth): void {
  app.get(
    '/openid/issuer/.well-known/openid-configuration',
    access.route(
      {
        id: 'getOpenIdConfiguration',
        summary: 'Where the assistant’s public keys are.',
        description: 'OpenID discovery document of the assistant issuer.',
        tag,
        access: 'open',
      },
      { response: { 200: discoverySchema } },
    ),
    async (_request, reply) => {
      const base = address();
      reply.header('cache-control', 'public, max-age=3600');
      return {
        issuer: signer.issuer(),
        jwks_uri: `${base}/openid/jwk`,
        id_token_signing_alg_values_supported: [...signingAlgorithms],
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
      };
    },
  );
  app.get(
    '/openid/jwk',
    access.route(
      {
        id: 'getJsonWebKeySet',
        summary: 'The public keys that verify what the assistant signs.',
        description:
          'JSON Web Key Set: current keys, keys announced by a rotation and superseded keys whose tokens may still be valid.',
        tag,
        access: 'open',
      },
      { response: { 200: jwksSchema } },
    ),
    async (_request, reply) => {
      reply.header('cache-control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
      return signer.jwks();
    },
  );
}
