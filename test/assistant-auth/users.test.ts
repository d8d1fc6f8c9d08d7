import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { composeAssistantAuth } from '../../src/assistant-auth/composition.ts';
import { assistantAuthService } from '../../src/assistant-auth/service.ts';
import { assertFields } from '../helpers/fields.ts';
import { suiteApp } from '../helpers/harness.ts';
import { expireUser } from './helpers/expire-user.ts';

interface UserBody {
  assistantId: string;
  assistantIdGlobal: string;
  channel: string;
  source: string;
  hasPhoneNumber: boolean;
  createdAt: string;
  expiresAt: string;
}

describe('assistant users', () => {
  const suite = suiteApp('assistant-auth', ['gateway', 'runtime'], {
    ASSISTANT_ID_TTL: '7200',
    ASSISTANT_ID_TTL_BY_CHANNEL: 'kiosk=60,web=3600',
    CLOUD_STORAGE_SUBDOMAIN: 'assets-test',
  });

  const login = (channel: string, identity: string, extra: Record<string, string> = {}) =>
    suite.app.inject({
      url: '/users/assistant-id',
      headers: {
        'x-api-key': suite.key('gateway'),
        'x-channel': channel,
        'x-channel-user-id': identity,
        ...extra,
      },
    });
  const lifetime = (user: UserBody) => Date.parse(user.expiresAt) - Date.parse(user.createdAt);

  describe('sign-in by channel identity (GET /users/assistant-id)', () => {
    describe('happy', () => {
      it('creates a user for a new channel identity (201) and returns the same one after (200)', async () => {
        const identity = randomUUID();
        const created = await login('web', identity, { 'x-phone-number': '+34611222333' });
        assert.equal(created.statusCode, 201);
        const user = created.json() as UserBody;
        assertFields(user, [
          'assistantId',
          'assistantIdGlobal',
          'channel',
          'createdAt',
          'expiresAt',
          'hasPhoneNumber',
          'source',
        ]);
        assert.equal(user.channel, 'web');
        assert.equal(user.source, 'channel');
        assert.equal(user.hasPhoneNumber, true);
        assert.equal(lifetime(user), 3600_000);
        const again = await login('web', identity);
        assert.equal(again.statusCode, 200);
        assert.deepEqual(again.json(), user);
        const someoneElse = await login('web', randomUUID());
        assert.notEqual(someoneElse.json().assistantId, user.assistantId);
        assert.notEqual(someoneElse.json().assistantIdGlobal, user.assistantIdGlobal);
        const otherChannel = await login('app', identity);
        assert.equal(otherChannel.statusCode, 201);
        assert.equal(
          lifetime(otherChannel.json()),
          7200_000,
          'channels without their own lifetime use ASSISTANT_ID_TTL',
        );
      });

      it('seeds a demo user that GET /users/assistant-id finds with the printed headers', async () => {
        const printed = (await assistantAuthService.seedDemo?.(suite.core)) as {
          assistantUser: { assistantId: string; headers: Record<string, string>; phoneNumber: string };
        };
        const response = await suite.app.inject({
          url: '/users/assistant-id',
          headers: { 'x-api-key': suite.key('gateway'), ...printed.assistantUser.headers },
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().assistantId, printed.assistantUser.assistantId);
        assert.equal(response.json().hasPhoneNumber, true);
      });

      it('gives concurrent first logins of one identity the same user, created once', async () => {
        // Several identities, a dozen first logins each, all at once: on PostgreSQL they run on separate
        // connections, so a check-then-insert without the identity's lock answers two users now and then.
        const identities = Array.from({ length: 5 }, () => randomUUID());
        const answers = await Promise.all(
          identities.map((identity) => Promise.all(Array.from({ length: 12 }, () => login('web', identity)))),
        );
        for (const logins of answers) {
          const ids = new Set(logins.map((answer) => answer.json().assistantId));
          assert.equal(ids.size, 1);
          assert.deepEqual(
            logins.map((answer) => answer.statusCode).sort(),
            [201, ...Array.from({ length: 11 }, () => 200)].sort(),
          );
          const runtimeRead = await suite.app.inject({
            url: `/users/${[...ids][0]}`,
            headers: { 'x-api-key': suite.key('runtime') },
          });
          assert.equal(runtimeRead.statusCode, 200);
        }
      });
    });

    describe('errors', () => {
      it('answers missing or bad identity headers with 400, one entry per field', async () => {
        const response = await suite.app.inject({
          url: '/users/assistant-id',
          headers: { 'x-api-key': suite.key('gateway'), 'x-channel': 'Web Chat', 'x-phone-number': '12345' },
        });
        assert.equal(response.statusCode, 400);
        const messages = (response.json().errors as Array<{ type: string; message: string }>).map(
          (e) => e.message,
        );
        assert.equal(messages.length, 3, messages.join(' | '));
        assert.ok(messages.some((m) => m.includes('x-channel-user-id')));
        assert.ok(messages.some((m) => m.includes('x-channel')));
        assert.ok(messages.some((m) => m.includes('x-phone-number')));
      });
    });
  });

  describe('users by id: read, by assistantIdGlobal, by external id, delete, retention', () => {
    describe('happy', () => {
      it('reads a valid user (200), an unknown one is 404 and an expired one 410', async () => {
        const user = (await login('web', randomUUID())).json() as UserBody;
        const read = await suite.app.inject({
          url: `/users/${user.assistantId}`,
          headers: { 'x-api-key': suite.key('runtime') },
        });
        assert.equal(read.statusCode, 200);
        assert.deepEqual(read.json(), user);
        const unknown = await suite.app.inject({
          url: `/users/${randomUUID()}`,
          headers: { 'x-api-key': suite.key('runtime') },
        });
        assert.equal(unknown.statusCode, 404);
        assert.equal(unknown.json().errors[0].type, 'USER_NOT_FOUND');
        const kiosk = (await login('kiosk', randomUUID())).json() as UserBody;
        assert.equal(lifetime(kiosk), 60_000);
        await expireUser(suite.core, kiosk.assistantId);
        const expired = await suite.app.inject({
          url: `/users/${kiosk.assistantId}`,
          headers: { 'x-api-key': suite.key('runtime') },
        });
        assert.equal(expired.statusCode, 410);
        assert.deepEqual(expired.json(), {
          code: 'GONE',
          message: 'This assistantId has expired; authenticate again.',
          errors: [
            { type: 'ASSISTANT_ID_EXPIRED', message: 'This assistantId has expired; authenticate again.' },
          ],
        });
        const bad = await suite.app.inject({
          url: '/users/has%20space',
          headers: { 'x-api-key': suite.key('runtime') },
        });
        assert.equal(bad.statusCode, 400);
      });

      it('finds the newest valid assistantId of the caller’s channel by assistantIdGlobal', async () => {
        const phone = '+34622333444';
        const web = (await login('web', randomUUID(), { 'x-phone-number': phone })).json() as UserBody;
        const kiosk = (await login('kiosk', randomUUID(), { 'x-phone-number': phone })).json() as UserBody;
        assert.equal(
          kiosk.assistantIdGlobal,
          web.assistantIdGlobal,
          'the phone number ties the person’s ids',
        );
        const byGlobal = (channel: string) =>
          suite.app.inject({
            url: `/users/assistant-id-global/${web.assistantIdGlobal}`,
            headers: { 'x-api-key': suite.key('gateway'), 'x-channel': channel },
          });
        assert.equal((await byGlobal('web')).json().assistantId, web.assistantId);
        assert.equal((await byGlobal('kiosk')).json().assistantId, kiosk.assistantId);
        const none = await byGlobal('whatsapp');
        assert.equal(none.statusCode, 404);
        assert.equal(none.json().errors[0].type, 'ASSISTANT_ID_GLOBAL_NOT_FOUND');
        await expireUser(suite.core, kiosk.assistantId);
        assert.equal((await byGlobal('kiosk')).statusCode, 404, 'an expired assistantId is not returned');
        const missingChannel = await suite.app.inject({
          url: `/users/assistant-id-global/${web.assistantIdGlobal}`,
          headers: { 'x-api-key': suite.key('gateway') },
        });
        assert.equal(missingChannel.statusCode, 400);
      });

      it('creates a user from an external id (201), returns it (200) and renews it once expired (201)', async () => {
        const externalId = `wa:${randomUUID()}`;
        const call = (channel: string) =>
          suite.app.inject({
            url: `/users/assistant-id/${externalId}`,
            headers: { 'x-api-key': suite.key('runtime'), 'x-channel': channel },
          });
        const created = await call('kiosk');
        assert.equal(created.statusCode, 201);
        assert.equal(created.json().assistantId, externalId);
        assert.equal(created.json().source, 'external');
        assert.equal((await call('kiosk')).statusCode, 200);
        await expireUser(suite.core, externalId);
        const renewed = await call('kiosk');
        assert.equal(renewed.statusCode, 201);
        assert.equal(renewed.json().assistantIdGlobal, created.json().assistantIdGlobal);
        assert.ok(Date.parse(renewed.json().expiresAt) > Date.now());
      });

      it('deletes a user (204), then it is gone (404)', async () => {
        const user = (await login('web', randomUUID())).json() as UserBody;
        const removed = await suite.app.inject({
          method: 'DELETE',
          url: `/users/${user.assistantId}`,
          headers: { 'x-api-key': suite.key('gateway') },
        });
        assert.equal(removed.statusCode, 204);
        assert.equal(removed.body, '');
        const again = await suite.app.inject({
          method: 'DELETE',
          url: `/users/${user.assistantId}`,
          headers: { 'x-api-key': suite.key('runtime') },
        });
        assert.equal(again.statusCode, 404);
        assert.equal(again.json().errors[0].type, 'USER_NOT_FOUND');
      });

      it('removes expired users once ASSISTANT_USER_RETENTION has passed, and only those', async () => {
        const kiosk = (await login('kiosk', randomUUID())).json() as UserBody;
        const web = (await login('web', randomUUID())).json() as UserBody;
        await expireUser(suite.core, kiosk.assistantId);
        const read = (id: string) =>
          suite.app.inject({ url: `/users/${id}`, headers: { 'x-api-key': suite.key('runtime') } });
        assert.equal((await read(kiosk.assistantId)).statusCode, 410);
        // The service's retention job, as it runs every RETENTION_INTERVAL.
        const job = composeAssistantAuth(suite.core).retention;
        assert.equal(
          (await job.runOnce()).removed['assistant_users (expired)'],
          undefined,
          'within the retention nothing goes',
        );
        const retention = suite.core.config.ASSISTANT_USER_RETENTION * 1000;
        assert.ok(
          ((await job.runOnce(Date.now() + retention)).removed['assistant_users (expired)'] ?? 0) >= 1,
        );
        assert.equal((await read(kiosk.assistantId)).statusCode, 404);
        assert.equal((await read(web.assistantId)).statusCode, 200);
      });
    });
  });

  describe('GET /config and GET /ping', () => {
    describe('happy', () => {
      it('answers /config with the cloud storage subdomain and /ping with the status', async () => {
        const config = await suite.app.inject({
          url: '/config',
          headers: { 'x-api-key': suite.key('runtime') },
        });
        assert.deepEqual(config.json(), { cloudStorageSubdomain: 'assets-test' });
        const ping = await suite.app.inject({ url: '/ping', headers: { 'x-api-key': suite.key('gateway') } });
        assert.equal(ping.statusCode, 200);
        assert.equal(ping.json().status, 'ok');
        assert.equal(ping.json().service, 'assistant-auth');
      });
    });
  });
});
