import type { AssistantPrincipal } from './delegated-tokens.ts';
import type { SessionRef } from './session-gate.ts';

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

/** The device session a principal acts in, for a repository to check with its statement; none for others. */
export function sessionOf(principal: Principal | undefined): SessionRef | undefined {
  return principal?.kind === 'device' ? principal : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
