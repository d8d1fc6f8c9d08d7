import type { SessionState } from '../sessions/repository.ts';
import type { AssistantPrincipal } from './delegated-tokens.ts';

/**
 * Who is calling a client API operation. Set on the request by the client-api's `authenticate` hook
 * (src/client-api/auth/guards.ts): a device session's access token (Bearer JWT), an operator's
 * back-office API key (X-API-Key), or the assistant's delegated token for its linked user's account.
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
      /**
       * Present only on an operation that folds the session check into its own statement (PostgreSQL):
       * the token's signature and expiry are verified, its session's state is not yet. See SessionCheck.
       */
      sessionCheck?: SessionCheck;
    }
  | { kind: 'operator'; keyId: string }
  | AssistantPrincipal;

/** A device session's token as a principal. */
export type DevicePrincipal = Extract<Principal, { kind: 'device' }>;

/**
 * A device token's session check left to the operation's own statement, so that an authenticated
 * request costs PostgreSQL one round trip: the statement reads the session's state beside its data (and
 * a write writes only while the session is open and not idle), the service settles the check with that
 * state before it answers. An answer sent while the check is still pending gets the ordinary check first.
 */
export interface SessionCheck {
  readonly sessionId: string;
  /** The request's clock (epoch ms): a session last used before `now - idle timeout` is idle. */
  readonly now: number;
  /** Sessions last used before this (epoch ms) are idle: the bound a folded write puts in its statement. */
  readonly idleBefore: number;
  readonly settled: boolean;
  /**
   * Settles the check with the state the statement read (undefined: no such session). Throws 401
   * TOKEN_INVALID unless the session is open and not idle; records its use when due.
   */
  settle(state: SessionState | undefined): Promise<void>;
  /** Settles the check with a read of its own: for a path that has no folded statement. */
  verify(): Promise<void>;
}

/** The check a device principal leaves pending, if any. */
export function pendingSessionCheck(principal: Principal | undefined): SessionCheck | undefined {
  if (principal?.kind !== 'device') return undefined;
  const check = principal.sessionCheck;
  return check !== undefined && !check.settled ? check : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
