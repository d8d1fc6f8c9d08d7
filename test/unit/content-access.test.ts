import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccountRecord } from '../../src/client-api/accounts/repository.ts';
import type { Principal } from '../../src/client-api/auth/principal.ts';
import type { BookmarkRepository, BookmarkRow } from '../../src/client-api/bookmarks/repository.ts';
import { type BookmarkSave, createBookmarkService } from '../../src/client-api/bookmarks/service.ts';
import type { ContactRepository, ContactRow } from '../../src/client-api/campaigns/repository.ts';
import { createCampaignService } from '../../src/client-api/campaigns/service.ts';
import type { RatingRepository, RatingRow } from '../../src/client-api/ratings/repository.ts';
import { createRatingService, type RatingInput } from '../../src/client-api/ratings/service.ts';
import type { SubscriptionRepository } from '../../src/client-api/subscriptions/repository.ts';
import { createSubscriptionService } from '../../src/client-api/subscriptions/service.ts';
import type { UserWithPassword } from '../../src/client-api/users/repository.ts';

const device: Principal = {
  kind: 'device',
  accountNumber: 'acc-1',
  platformUserId: 'user-1',
  userHash: 'hash-1',
  deviceId: 'tv-1',
  deviceClass: 'smarttv',
  sessionId: 'session-1',
  qspVersion: '1',
};
const operator: Principal = { kind: 'operator', keyId: 'key-1' };

const account: AccountRecord = { accountNumber: 'acc-2', userHash: 'hash-2', createdAt: 0 };
const user: UserWithPassword = {
  platformUserId: 'user-2',
  accountNumber: 'acc-2',
  email: 'two@example.test',
  userHash: 'hash-2',
  profiles: [],
  subscriptions: [],
  createdAt: 0,
  passwordHash: 'x',
};

/** The error a service refused with, as the client sees it. */
const refusal = (status: number, type: string, message?: string) => ({
  status,
  type,
  ...(message === undefined ? {} : { message }),
});

describe('bookmark saves: whose account', () => {
  const written: BookmarkRow[] = [];
  const repository: BookmarkRepository = {
    find: async () => undefined,
    saveUnlessStale: async (row) => {
      written.push(row);
      return row;
    },
    recent: async () => [],
  };
  const accounts = {
    findByUserHash: async (hash: string) => (hash === 'hash-2' ? account : undefined),
    find: async () => undefined,
  };
  const service = createBookmarkService(repository, accounts, async () => {});
  const save = (deviceId: string, userHash: string): BookmarkSave => ({
    userHash,
    contentId: 7,
    offset: 30,
    deviceId,
    deviceClass: 'smarttv',
    version: null,
    at: undefined,
  });

  it('a device saves under its own deviceId, in its own account', async () => {
    await service.save(device, save('tv-1', 'hash-1'));
    assert.equal(written.at(-1)?.account_number, 'acc-1');
    await assert.rejects(
      service.save(device, save('tv-2', 'hash-1')),
      refusal(403, 'DEVICE_MISMATCH', 'A device saves bookmarks under its own deviceId only.'),
    );
  });

  it('an operator saves in the account that holds the userHash; 404 when none does', async () => {
    await service.save(operator, save('any-device', 'hash-2'));
    assert.equal(written.at(-1)?.account_number, 'acc-2');
    await assert.rejects(
      service.save(operator, save('any-device', 'hash-9')),
      refusal(404, 'USER_NOT_FOUND', 'No account has this userHash.'),
    );
  });

  it('refuses the caller before the clock: a mismatched device with a future time is 403', async () => {
    await assert.rejects(
      service.save(device, { ...save('tv-2', 'hash-1'), at: Date.now() + 3_600_000 }),
      refusal(403, 'DEVICE_MISMATCH'),
    );
  });
});

describe('ratings: whose rating', () => {
  const rows: RatingRow[] = [];
  const repository: RatingRepository = {
    upsertAndSummarise: async (row) => {
      rows.push(row);
      return { average: row.rating, count: 1 };
    },
  };
  const users = { findByPlatformUserId: async (id: string) => (id === 'user-2' ? user : undefined) };
  const service = createRatingService(repository, users);
  const input = (userId?: string, accountNumber?: string): RatingInput => ({
    module: 'vod',
    contentId: 1,
    rating: 4,
    userId,
    accountNumber,
  });

  it('a device rates as its own user, naming it or not', async () => {
    assert.equal((await service.rate(device, input())).userId, 'user-1');
    assert.equal((await service.rate(device, input('user-1', 'acc-1'))).userId, 'user-1');
    assert.equal(rows.at(-1)?.account_number, 'acc-1');
    await assert.rejects(service.rate(device, input('user-2')), refusal(403, 'USER_MISMATCH'));
    await assert.rejects(service.rate(device, input(undefined, 'acc-2')), refusal(403, 'ACCOUNT_MISMATCH'));
  });

  it('an operator names an existing user (in the account named)', async () => {
    assert.equal((await service.rate(operator, input('user-2'))).userId, 'user-2');
    assert.equal(rows.at(-1)?.account_number, 'acc-2');
    await assert.rejects(service.rate(operator, input()), refusal(400, 'RATING_USER_REQUIRED'));
    await assert.rejects(service.rate(operator, input('user-9')), refusal(404, 'USER_NOT_FOUND'));
    await assert.rejects(service.rate(operator, input('user-2', 'acc-1')), refusal(404, 'USER_NOT_FOUND'));
  });
});

describe('subscriptions: who may upgrade', () => {
  const repository = {
    enable: async (row) => row,
    accountHoldsOffer: async () => false,
  } satisfies SubscriptionRepository;
  const users = {
    findByPlatformUserId: async (id: string) =>
      id === 'user-1' ? { ...user, platformUserId: id } : undefined,
    setSubscriptions: async () => {},
  };
  const service = createSubscriptionService(repository, users, {
    SUBSCRIPTIONS_URL: undefined,
    SUBSYSTEM_TIMEOUT_MS: 1000,
    HOMEZONE_OFFERS: 'hz',
  });
  const offer = { codPersona: 'p', codOferta: 'o' };

  it('a device upgrades its own user only; an operator any existing user', async () => {
    assert.equal((await service.enableDth(device, { platformUserId: 'user-1', ...offer })).enabled, true);
    await assert.rejects(
      service.enableDth(device, { platformUserId: 'user-2', ...offer }),
      refusal(403, 'USER_MISMATCH', 'A device may upgrade its own user only.'),
    );
    await assert.rejects(
      service.enableDth(operator, { platformUserId: 'user-9', ...offer }),
      refusal(404, 'USER_NOT_FOUND'),
    );
  });

  it('an account without a home-zone offer is HOMEZONE_NOT_SUBSCRIBED', async () => {
    await assert.rejects(service.requireHomeZone('acc-1'), refusal(404, 'HOMEZONE_NOT_SUBSCRIBED'));
  });
});

describe('campaign contacts: of an existing account and device', () => {
  const stored: ContactRow[] = [];
  const repository = {
    insert: async (row: ContactRow) => {
      stored.push(row);
    },
    find: async () => undefined,
  } satisfies ContactRepository;
  const known = {
    accounts: { find: async (number: string) => (number === 'acc-2' ? account : undefined) },
    devices: { find: async () => undefined },
  };
  const service = createCampaignService(repository, known, {
    CAMPAIGNS_URL: undefined,
    SUBSYSTEM_TIMEOUT_MS: 1000,
  });
  const contact = { deviceClass: 'smarttv', campaign: 'spring' };

  it('stores a contact of an existing account; 404 for an unknown account or device', async () => {
    const id = await service.addContact({ ...contact, accountNumber: 'acc-2', mediaPlayerId: null });
    assert.equal(stored.at(-1)?.id, id);
    await assert.rejects(
      service.addContact({ ...contact, accountNumber: 'acc-9', mediaPlayerId: null }),
      refusal(404, 'ACCOUNT_NOT_FOUND'),
    );
    await assert.rejects(
      service.addContact({ ...contact, accountNumber: 'acc-2', mediaPlayerId: 'tv-9' }),
      refusal(404, 'DEVICE_NOT_FOUND'),
    );
    assert.equal(stored.length, 1);
  });
});
