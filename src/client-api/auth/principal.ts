import type { AssistantPrincipal } from './delegated-tokens.ts';

/**
 * Who is calling a client API operation. Set on the request by the client-api's guards (guards.ts): a
 * device session's access token (Bearer JWT), an operator's back-office API key (X-API-Key), or the
 * assistant's delegated token for its linked user's account.
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
  | { kind: 'operator'; keyId: string }
  | AssistantPrincipal;

/** A device session's token as a principal. */
export type DevicePrincipal = Extract<Principal, { kind: 'device' }>;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
