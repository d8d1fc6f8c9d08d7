import { authErrors } from '../../core/errors.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { AccountRepository } from '../accounts/repository.ts';
import type { Principal } from '../auth/principal.ts';
import type { SessionRepository } from '../sessions/repository.ts';
import type { UserRepository } from '../users/repository.ts';

/** Who approves or denies a TV sign-in: a user of an account, and where (page, device, assistant). */
export interface Approver {
  accountNumber: string;
  platformUserId: string;
  /** The name wrong codes are counted under (a user, an assistant user). */
  person: string;
  /** The address wrong codes are counted under. */
  address: string;
  via: 'page' | 'device' | 'assistant';
}

export interface ApproverDeps {
  sessions: Pick<SessionRepository, 'find'>;
  accounts: Pick<AccountRepository, 'find'>;
  users: Pick<UserRepository, 'findByUserHash'>;
}

/**
 * Who decides a TV sign-in from the client API: the device's user, or the person the assistant's link
 * rests on. Operators may not (their keys are refused before: the operations take a person's token).
 */
export function createApproverOf({ sessions, accounts, users }: ApproverDeps) {
  /** The user the assistant acts for: its chat page sign-in's, else the account's first user. */
  async function personOf(accountNumber: string, sessionId: string | undefined): Promise<string> {
    const session = sessionId === undefined ? undefined : await sessions.find(sessionId);
    if (session) return session.platform_user_id;
    const account = await accounts.find(accountNumber);
    const [first] = account ? await users.findByUserHash(account.userHash) : [];
    if (!first) throw accountErrors.ACCOUNT_NOT_FOUND();
    return first.platformUserId;
  }

  /** `address`: the device's client address, which its wrong codes are counted under. */
  return async function approverOf(principal: Principal | undefined, address: string): Promise<Approver> {
    if (principal?.kind === 'device') {
      const { accountNumber, platformUserId } = principal;
      return { accountNumber, platformUserId, person: `user:${platformUserId}`, address, via: 'device' };
    }
    if (principal?.kind === 'assistant') {
      return {
        accountNumber: principal.accountNumber,
        platformUserId: await personOf(principal.accountNumber, principal.sessionId),
        person: `assistant:${principal.assistantId}`,
        // The assistant's calls all come from its runtime: its guesses count per account, not per address.
        address: `account:${principal.accountNumber}`,
        via: 'assistant',
      };
    }
    throw authErrors.ACCESS_DENIED('Only a person signed in to the account may decide a TV sign-in.');
  };
}
