import type { FastifyRequest } from 'fastify';

/** One security scheme of a service's document, as what a request presents and the challenge naming it. */
interface SchemeChallenge {
  presented(request: FastifyRequest): boolean;
  challenge(presented: boolean): string;
}

/** The protection space the family's challenges name (`realm="…"`) unless a service's document says another. */
export const FAMILY_REALM = 'sintonia';

/** The `WWW-Authenticate` value for a 401 of this request; undefined when its operation declares no scheme. */
export type Challenger = (request: FastifyRequest) => string | undefined;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const authorizationIs = (scheme: string) => (request: FastifyRequest) =>
  new RegExp(`^${scheme}\\s`, 'i').test(request.headers.authorization ?? '');

/**
 * A scheme as a challenge: a bearer token per RFC 6750 (`error="invalid_token"` when one was sent), HTTP
 * Basic, or an API key under the scheme's own name in the document (`ApiKey realm="…"`).
 */
function schemeChallenge(name: string, scheme: Json, realm: string): SchemeChallenge | undefined {
  const { type, in: location } = scheme;
  const httpScheme = typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : undefined;
  const keyName = typeof scheme.name === 'string' ? scheme.name : '';
  // Swagger 2 has no bearer type: a bearer token there is an API key in the Authorization header.
  const bearer =
    (type === 'http' && httpScheme === 'bearer') ||
    (type === 'apiKey' && location === 'header' && keyName.toLowerCase() === 'authorization');
  if (bearer) {
    return {
      presented: authorizationIs('Bearer'),
      challenge: (sent) => `Bearer realm="${realm}"${sent ? ', error="invalid_token"' : ''}`,
    };
  }
  if (type === 'basic' || (type === 'http' && httpScheme === 'basic')) {
    return {
      presented: authorizationIs('Basic'),
      challenge: () => `Basic realm="${realm}", charset="UTF-8"`,
    };
  }
  if (type === 'apiKey' && (location === 'header' || location === 'query')) {
    const presented =
      location === 'header'
        ? (request: FastifyRequest) => request.headers[keyName.toLowerCase()] !== undefined
        : (request: FastifyRequest) => isObject(request.query) && request.query[keyName] !== undefined;
    return { presented, challenge: () => `${name} realm="${realm}"` };
  }
  return undefined;
}

/** The security schemes a document declares: Swagger 2's `securityDefinitions`, OpenAPI 3's components. */
function declaredSchemes(document: Json): Json {
  if (isObject(document.securityDefinitions)) return document.securityDefinitions;
  const components = isObject(document.components) ? document.components : {};
  return isObject(components.securitySchemes) ? components.securitySchemes : {};
}

/**
 * The challenge every 401 carries (RFC 9110 §11.6.1), derived from what the operation declares: the
 * schemes of its `security` whose credential the request presented, or, when it presented none of them,
 * every scheme it takes.
 */
export function challengerFor(document: Json, realm = FAMILY_REALM): Challenger {
  const schemes = new Map<string, SchemeChallenge>();
  for (const [name, scheme] of Object.entries(declaredSchemes(document))) {
    const challenge = isObject(scheme) ? schemeChallenge(name, scheme, realm) : undefined;
    if (challenge) schemes.set(name, challenge);
  }
  return (request) => {
    const security = (request.routeOptions.schema as { security?: unknown } | undefined)?.security;
    const names = new Set(Array.isArray(security) ? security.filter(isObject).flatMap(Object.keys) : []);
    const taken = [...names].flatMap((name) => schemes.get(name) ?? []);
    const presented = taken.filter((scheme) => scheme.presented(request));
    const challenges = (presented.length > 0 ? presented : taken).map((scheme) =>
      scheme.challenge(presented.length > 0),
    );
    return challenges.length > 0 ? [...new Set(challenges)].join(', ') : undefined;
  };
}

/**
 * The challenge of a 401 for a user name and password sent in a sign-in form's body, which no security
 * scheme of a document can describe: an auth-scheme of its own, `Form`, so that a browser posting the form
 * shows no Basic dialog of its own over the page, and the 401 still names how to authenticate.
 */
export function formChallenge(realm = FAMILY_REALM): string {
  return `Form realm="${realm}"`;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The challenge of a 401 answered on this service (set by buildServiceApp from its document). */
    authChallenge?: Challenger;
  }
}
