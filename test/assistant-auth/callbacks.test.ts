import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  createCallbackParams,
  gatewayCallbackKey,
  makeCallbackParam,
  sealCallbackPayload,
} from '../../src/assistant-auth/callbacks/callback-param.ts';
import { createCallbackNonceRepository } from '../../src/assistant-auth/callbacks/nonce-repository.ts';
import { assistantAuthService } from '../../src/assistant-auth/service.ts';
import { userErrors } from '../../src/assistant-auth/users/errors.ts';
import { loadConfig } from '../../src/core/config.ts';
import { openCore } from '../../src/core/core.ts';
import { httpErrors } from '../../src/core/errors.ts';
import { buildServiceApp } from '../../src/core/http/service-app.ts';
import { createTestApp, suiteApp } from '../helpers/harness.ts';

const link = (data: string) => `/users/assistantid/integrated?data=${encodeURIComponent(data)}`;
const unlink = (data: string) => `/users/assistantid/integrated/logout?data=${encodeURIComponent(data)}`;
const errorType = (body: string) => (JSON.parse(body) as { errors: Array<{ type: string }> }).errors[0]?.type;

describe('gateway callbacks', () => {
  const served = suiteApp('assistant-auth', []);

  describe('happy', () => {
    it('adds the user record, then answers 200 with the same user for the same identity', async () => {
      const identity = randomUUID();
      const first = await served.app.inject({
        url: link(makeCallbackParam(served.core, { identity, channel: 'web' }).data),
      });
      assert.equal(first.statusCode, 201);
      const user = first.json();
      assert.equal(user.channel, 'web');
      assert.equal(user.source, 'integrated');
      assert.equal(user.hasPhoneNumber, false);
      const again = await served.app.inject({
        url: link(makeCallbackParam(served.core, { identity, channel: 'web' }).data),
      });
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().assistantId, user.assistantId);
    });

    it('removes the user record on logout; a second logout finds nothing (404)', async () => {
      const identity = randomUUID();
      const created = await served.app.inject({
        url: link(makeCallbackParam(served.core, { identity, channel: 'web' }).data),
      });
      const runtime = (await served.core.apiKeys.create('runtime', 'cb')).key;
      const gone = await served.app.inject({
        url: unlink(makeCallbackParam(served.core, { identity, channel: 'web' }).data),
      });
      assert.equal(gone.statusCode, 204);
      assert.equal(gone.body, '');
      const read = await served.app.inject({
        url: `/users/${created.json().assistantId}`,
        headers: { 'x-api-key': runtime },
      });
      assert.equal(read.statusCode, 404);
      const again = await served.app.inject({
        url: unlink(makeCallbackParam(served.core, { identity, channel: 'web' }).data),
      });
      assert.equal(again.statusCode, 404);
      assert.equal(errorType(again.body), 'USER_NOT_FOUND');
    });
  });

  describe('errors', () => {
    it('refuses a well-sealed payload of the wrong shape with 401', async () => {
      const data = sealCallbackPayload(served.core, {
        identity: '',
        channel: 'Web!',
        exp: Math.floor(Date.now() / 1000) + 60,
        nonce: 'short',
      });
      const response = await served.app.inject({ url: link(data) });
      assert.equal(response.statusCode, 401);
      assert.equal(errorType(response.body), 'CALLBACK_PARAMETER_INVALID');
    });

    it('answers a data parameter over 4096 characters with 400 VALIDATION_ERROR (its documented limit)', async () => {
      const response = await served.app.inject({ url: link('v1.'.padEnd(4097, 'a')) });
      assert.equal(response.statusCode, 400);
      assert.equal(errorType(response.body), 'VALIDATION_ERROR');
    });

    it('a callback that fails on our side (5xx) gives its parameter back for the retry; a 4xx keeps it spent', async () => {
      // The service's own callback parameters, on the same store, with a callback's work that fails first.
      const params = createCallbackParams(
        { key: gatewayCallbackKey(served.core), nonceKey: served.core.key('callback-nonce') },
        createCallbackNonceRepository(served.core.database),
      );
      const { data } = makeCallbackParam(served.core, { identity: randomUUID(), channel: 'web' });
      await assert.rejects(
        params.use(data, async () => {
          throw httpErrors.STORE_UNAVAILABLE();
        }),
        { type: 'STORE_UNAVAILABLE' },
      );
      assert.equal(await params.use(data, async (payload) => payload.channel), 'web');
      await assert.rejects(
        params.use(data, async () => 'again'),
        { type: 'CALLBACK_PARAMETER_REPLAYED' },
      );
      const refused = makeCallbackParam(served.core, { identity: randomUUID(), channel: 'web' }).data;
      await assert.rejects(
        params.use(refused, async () => {
          throw userErrors.USER_NOT_FOUND();
        }),
        { type: 'USER_NOT_FOUND' },
      );
      await assert.rejects(
        params.use(refused, async () => 'later'),
        { type: 'CALLBACK_PARAMETER_REPLAYED' },
      );
    });
  });

  describe('security', () => {
    it('refuses a tampered parameter with 401', async () => {
      const { data } = makeCallbackParam(served.core, { identity: randomUUID(), channel: 'web' });
      const parts = data.split('.');
      const body = Buffer.from(parts[2] ?? '', 'base64url');
      body[0] = (body[0] ?? 0) ^ 1;
      const tampered = [parts[0], parts[1], body.toString('base64url'), parts[3]].join('.');
      for (const url of [link(tampered), unlink(tampered), link('v1.garbage'), link(`${data}x`)]) {
        const response = await served.app.inject({ url });
        assert.equal(response.statusCode, 401, url);
        assert.equal(response.json().code, 'UNAUTHORIZED');
        assert.equal(errorType(response.body), 'CALLBACK_PARAMETER_INVALID');
      }
    });

    it('refuses a parameter sealed with another key with 401', async () => {
      const other = await createTestApp('assistant-auth');
      try {
        const { data } = makeCallbackParam(other.core, { identity: randomUUID(), channel: 'web' });
        const response = await served.app.inject({ url: link(data) });
        assert.equal(response.statusCode, 401);
        assert.equal(errorType(response.body), 'CALLBACK_PARAMETER_INVALID');
      } finally {
        await other.close();
      }
    });

    it('refuses an expired parameter with 401', async () => {
      const past = Math.floor(Date.now() / 1000) - 1;
      const { data } = makeCallbackParam(served.core, { identity: randomUUID(), channel: 'web', exp: past });
      const response = await served.app.inject({ url: link(data) });
      assert.equal(response.statusCode, 401);
      assert.equal(errorType(response.body), 'CALLBACK_PARAMETER_EXPIRED');
    });

    it('refuses a parameter valid for more than a day with 401', async () => {
      const far = Math.floor(Date.now() / 1000) + 2 * 86_400;
      const { data } = makeCallbackParam(served.core, { identity: randomUUID(), channel: 'web', exp: far });
      const response = await served.app.inject({ url: link(data) });
      assert.equal(response.statusCode, 401);
      assert.equal(errorType(response.body), 'CALLBACK_PARAMETER_INVALID');
    });

    it('refuses a replayed parameter with 401, also in another process on the same database', async () => {
      const { data } = makeCallbackParam(served.core, { identity: randomUUID(), channel: 'web' });
      assert.equal((await served.app.inject({ url: link(data) })).statusCode, 201);
      const replay = await served.app.inject({ url: link(data) });
      assert.equal(replay.statusCode, 401);
      assert.equal(errorType(replay.body), 'CALLBACK_PARAMETER_REPLAYED');
      // A second served.core and served.app on the same store stand for a second process behind the load balancer.
      const secondCore = await openCore(loadConfig(served.core.env as NodeJS.ProcessEnv));
      const second = await buildServiceApp(secondCore, assistantAuthService);
      try {
        const elsewhere = await second.inject({ url: link(data) });
        assert.equal(elsewhere.statusCode, 401);
        assert.equal(errorType(elsewhere.body), 'CALLBACK_PARAMETER_REPLAYED');
        const fresh = makeCallbackParam(served.core, { identity: randomUUID(), channel: 'web' }).data;
        assert.equal((await second.inject({ url: unlink(fresh) })).statusCode, 404);
        assert.equal(
          errorType((await served.app.inject({ url: unlink(fresh) })).body),
          'CALLBACK_PARAMETER_REPLAYED',
        );
      } finally {
        await second.close();
        await secondCore.close();
      }
    });

    it('answers a missing or empty data parameter with 401 CALLBACK_PARAMETER_MISSING, like any missing credential', async () => {
      for (const url of [
        '/users/assistantid/integrated',
        '/users/assistantid/integrated?data=',
        '/users/assistantid/integrated/logout',
        '/users/assistantid/integrated/logout?other=1',
      ]) {
        const response = await served.app.inject({ url });
        assert.equal(response.statusCode, 401, url);
        assert.deepEqual(response.json(), {
          code: 'UNAUTHORIZED',
          message: 'The data parameter is missing.',
          errors: [{ type: 'CALLBACK_PARAMETER_MISSING', message: 'The data parameter is missing.' }],
        });
      }
    });
  });
});
