import { ACCOUNT_NUMBER_PATTERN } from '../../core/delegation.ts';
import { accountErrors } from './errors.ts';
import type { AccountRecord, AccountRepository } from './repository.ts';
import { newUserCode, userHashOf } from './user-hash.ts';

// Account numbers: 1–48 characters of letters, digits, `-`, `_` and `.` (they appear in paths).
const accountNumberPattern = new RegExp(ACCOUNT_NUMBER_PATTERN);

/** Input an operator gave that the accounts or users refuse; the admin commands print it as is. */
export class OperatorInputError extends Error {}

/** `userHashKey`: the key the userHash of a new account is made with (USER_HASH_KEY_PURPOSE). */
export function createAccountService(userHashKey: Buffer, accounts: AccountRepository) {
  return {
    /** Operators create accounts (CLI, demo data). */
    async create(accountNumber: string, now = Date.now()): Promise<AccountRecord> {
      if (!accountNumberPattern.test(accountNumber)) {
        throw new OperatorInputError(
          'an account number is 1-48 characters of letters, digits, ".", "_" and "-"',
        );
      }
      const userCode = newUserCode();
      const row = {
        account_number: accountNumber,
        user_code: userCode,
        user_hash: userHashOf(userHashKey, userCode),
        created_at: now,
      };
      if (!(await accounts.insert(row)))
        throw new OperatorInputError(`account ${accountNumber} exists already`);
      return { accountNumber, userHash: row.user_hash, createdAt: now };
    },

    /** The account, or 404 ACCOUNT_NOT_FOUND. */
    async require(accountNumber: string): Promise<AccountRecord> {
      const account = await accounts.find(accountNumber);
      if (!account) throw accountErrors.ACCOUNT_NOT_FOUND();
      return account;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
