import { randomBytes } from 'node:crypto';
import type { AccountRepository } from '../accounts/repository.ts';
import { OperatorInputError } from '../accounts/service.ts';
import { userErrors } from './errors.ts';
import { hashPassword } from './passwords.ts';
import { publicUser, type UserRecord, type UserRepository, type UserWithPassword } from './repository.ts';
import type { UserValue } from './schemas.ts';

/** A loose e-mail check: one @, something on both sides, no spaces; at most 254 characters. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;
/** Profile names: short words (they travel in tokens). */
const PROFILE = /^[A-Za-z0-9._-]{1,24}$/;

/** What the API shows of a user: its public record without the creation time. */
export function toUserValue(user: UserWithPassword | UserRecord): UserValue {
  const { createdAt: _createdAt, ...value } = publicUser(user);
  return value;
}

export function createUserService(accounts: AccountRepository, users: UserRepository) {
  return {
    /** Operators create users (CLI, demo data); the password is stored only as a scrypt hash. */
    async create(
      input: { accountNumber: string; email: string; password: string; profiles: string[] },
      now = Date.now(),
    ) {
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email)) throw new OperatorInputError('--email must be an e-mail address');
      if (input.password.length < 8 || input.password.length > 1024) {
        throw new OperatorInputError('--password must be 8 to 1024 characters');
      }
      const bad = input.profiles.find((profile) => !PROFILE.test(profile));
      if (bad !== undefined)
        throw new OperatorInputError(`profile "${bad}" must be 1-24 letters, digits, ".", "_" or "-"`);
      const account = await accounts.find(input.accountNumber);
      if (!account) throw new OperatorInputError(`no account ${input.accountNumber}`);
      const platformUserId = `u-${randomBytes(12).toString('base64url')}`;
      const inserted = await users.insert({
        platform_user_id: platformUserId,
        account_number: account.accountNumber,
        email,
        password_hash: await hashPassword(input.password),
        profiles: JSON.stringify(input.profiles),
        subscriptions: '[]',
        created_at: now,
      });
      if (!inserted)
        throw new OperatorInputError(`account ${input.accountNumber} already has a user ${email}`);
      const user: UserRecord = {
        platformUserId,
        accountNumber: account.accountNumber,
        email,
        userHash: account.userHash,
        profiles: input.profiles,
        subscriptions: [],
        createdAt: now,
      };
      return toUserValue(user);
    },

    /** The oldest user with this e-mail; 404 USER_NOT_FOUND. */
    async byEmail(email: string): Promise<UserValue> {
      const [first] = await users.findByEmail(email);
      if (!first) throw userErrors.USER_NOT_FOUND('No user has this e-mail address.');
      return toUserValue(first);
    },

    /** Every user with this e-mail (an e-mail is unique within one account only); maybe none. */
    async allByEmail(email: string): Promise<UserValue[]> {
      return (await users.findByEmail(email)).map(toUserValue);
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
