/**
 * Who is calling a client API operation. Set on the request by the client-api's `authenticate` hook
 * (src/client-api/auth/guards.ts): a device session's access token (Bearer JWT) or an operator's
 * back-office API key (X-API-Key).
 */
export type Principal =
  | {
      kind: 'device';
      accountNumber: string;
      platformUserId: string;
      userHash: string;
      deviceId: string;
      deviceClass: string;
      sessionId: string;
      qspVersion: string;
    }
  | { kind: 'operator'; keyId: string };

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
