import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

type Alg = 'ES256' | 'RS256';

/** A JWKS on loopback with one ES256 and one RS256 key, and a signer of tokens with those keys. */
export interface JwksServer {
  /** The issuer base the agents server is configured with (PUBLIC_BASE_URL). */
  baseUrl: string;
  jwksUrl: string;
  issuer: string;
  sign(
    claims: JWTPayload,
    options?: { alg?: Alg; audience?: string; issuer?: string; ttl?: number | null },
  ): Promise<string>;
  /** Signs with a key the JWKS does not publish. */
  signWithStranger(claims: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

export async function startJwksServer(): Promise<JwksServer> {
  const pairs = {
    ES256: await generateKeyPair('ES256'),
    RS256: await generateKeyPair('RS256'),
  };
  const stranger = await generateKeyPair('ES256');
  const keys = await Promise.all(
    (Object.keys(pairs) as Alg[]).map(async (alg) => ({
      ...(await exportJWK(pairs[alg].publicKey)),
      kid: `kid-${alg}`,
      alg,
      use: 'sig',
    })),
  );
  const server = createServer((req, res) => {
    if (req.url === '/openid/jwk') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const issuer = `${baseUrl}/openid/issuer`;

  function build(
    claims: JWTPayload,
    alg: Alg,
    kid: string,
    audience: string,
    iss: string,
    ttl: number | null,
  ) {
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .setIssuer(iss)
      .setAudience(audience)
      .setIssuedAt();
    return ttl === null ? jwt : jwt.setExpirationTime(Math.floor(Date.now() / 1000) + ttl);
  }

  return {
    baseUrl,
    jwksUrl: `${baseUrl}/openid/jwk`,
    issuer,
    async sign(claims, options = {}) {
      const alg = options.alg ?? 'ES256';
      const ttl = options.ttl === undefined ? 300 : options.ttl;
      return build(
        claims,
        alg,
        `kid-${alg}`,
        options.audience ?? 'sintonia-agents',
        options.issuer ?? issuer,
        ttl,
      ).sign(pairs[alg].privateKey);
    },
    async signWithStranger(claims) {
      return build(claims, 'ES256', 'kid-ES256', 'sintonia-agents', issuer, 300).sign(stranger.privateKey);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
