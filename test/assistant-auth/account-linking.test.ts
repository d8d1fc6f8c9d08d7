import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { makeCallbackParam, sealCallbackPayload } from '../../src/assistant-auth/callbacks/callback-param.ts';
import type { AssistantAuthTables } from '../../src/assistant-auth/tables.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';
import { expireUser } from './helpers/expire-user.ts';

const integrated = (data: string) => `/users/assistantid/integrated?data=${encodeURIComponent(data)}`;
const logout = (data: string) => `/users/assistantid/integrated/logout?data=${encodeURIComponent(data)}`;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { errors?: Array<{ type: string }> };
}

describe('account linking and delegated tokens', () => {
  let core: TestCore;
  let base: string;
  let close: () => Promise<void>;
  const keys: Record<'runtime' | 'gateway' | 'client' | 'backoffice', string> = {
    runtime: '',
    gateway: '',
    client: '',
    backoffice: '',
  };

  async function call(path: string, init: { method?: string; key?: string; body?: unknown } = {}) {
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.key ? { 'x-api-key': init.key } : {}),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : {},
    } as Answer;
  }

  /** A user created by the gateway's callback, linked to `accountNumber` when given. */
  async function integrate(payload: { accountNumber?: string; platformUserId?: string } = {}) {
    const identity = randomUUID();
    const { data } = makeCallbackParam(core, { identity, channel: 'web', ...payload });
    const answer = await call(integrated(data));
    assert.equal(answer.status, 201);
    return { identity, assistantId: String(answer.body.assistantId), answer };
  }

  const delegate = (assistantId: string, key: string, body: unknown = { audience: 'client-api' }) =>
    call(`/users/${assistantId}/delegations`, { method: 'POST', key, body });

  before(async () => {
    ({ core, close } = await startTestFamily(['assistant-auth']));
    base = core.serviceUrl('assistant-auth');
    for (const keyClass of Object.keys(keys) as Array<keyof typeof keys>) {
      keys[keyClass] = (await core.apiKeys.create(keyClass, `linking-${keyClass}`)).key;
    }
  });
  after(async () => close());

  describe('the callback’s link to an account (…/integrated and …/integrated/logout)', () => {
    describe('happy', () => {
      it('links the user to the account in the sealed callback payload; the user record shows the link', async () => {
        const { assistantId, answer } = await integrate({
          accountNumber: 'ACC-1001',
          platformUserId: 'pu-7',
        });
        const linked = answer.body.linkedAccount as Record<string, string>;
        assert.equal(linked.accountNumber, 'ACC-1001');
        assert.equal(linked.platformUserId, 'pu-7');
        assert.ok(!Number.isNaN(Date.parse(linked.linkedAt ?? '')));
        const read = await call(`/users/${assistantId}`, { key: keys.runtime });
        assert.equal(read.status, 200);
        assert.deepEqual(read.body.linkedAccount, linked);
        const stored = await core.database.db
          .withTables<AssistantAuthTables>()
          .selectFrom('assistant_users')
          .select('link_sealed')
          .where('assistant_id', '=', assistantId)
          .executeTakeFirstOrThrow();
        assert.ok(stored.link_sealed?.startsWith('v1.'), 'the link is sealed at rest');
        assert.ok(!stored.link_sealed?.includes('ACC-1001'));
      });

      it('a later callback of the same identity replaces the link; one without accountNumber keeps it', async () => {
        const { identity, assistantId } = await integrate({ accountNumber: 'ACC-2001' });
        const relink = await call(
          integrated(makeCallbackParam(core, { identity, channel: 'web', accountNumber: 'ACC-2002' }).data),
        );
        assert.equal(relink.status, 200);
        assert.equal(relink.body.assistantId, assistantId);
        assert.equal((relink.body.linkedAccount as Record<string, string>).accountNumber, 'ACC-2002');
        const plain = await call(integrated(makeCallbackParam(core, { identity, channel: 'web' }).data));
        assert.equal((plain.body.linkedAccount as Record<string, string>).accountNumber, 'ACC-2002');
      });

      it('a user created without an account has no link', async () => {
        const { answer } = await integrate();
        assert.equal(answer.body.linkedAccount, undefined);
      });

      it('the logout callback removes the user and its link: no delegation afterwards', async () => {
        const { identity, assistantId } = await integrate({ accountNumber: 'ACC-3001' });
        assert.equal((await delegate(assistantId, keys.runtime)).status, 201);
        const gone = await call(logout(makeCallbackParam(core, { identity, channel: 'web' }).data));
        assert.equal(gone.status, 204);
        const after = await delegate(assistantId, keys.runtime);
        assert.equal(after.status, 404);
        assert.equal(after.body.errors?.[0]?.type, 'USER_NOT_FOUND');
      });

      it('`sintonia callback-param` seals accountNumber and platformUserId; the callback links with them', async () => {
        const identity = randomUUID();
        const made = await runCli(
          [
            'callback-param',
            '--payload',
            JSON.stringify({ identity, channel: 'web', accountNumber: 'ACC-9001', platformUserId: 'pu-9' }),
          ],
          core.env,
        );
        assert.equal(made.code, 0, made.stderr);
        const { data } = JSON.parse(made.stdout) as { data: string };
        const answer = await call(integrated(data));
        assert.equal(answer.status, 201);
        assert.equal((answer.body.linkedAccount as Record<string, string>).accountNumber, 'ACC-9001');
        const bad = await runCli(
          ['callback-param', '--payload', JSON.stringify({ identity, channel: 'web', accountNumber: 'a b' })],
          core.env,
        );
        assert.notEqual(bad.code, 0);
        assert.match(bad.stderr, /accountNumber/);
      });
    });

    describe('errors', () => {
      it('refuses a payload whose accountNumber is malformed (401, nothing created)', async () => {
        const identity = randomUUID();
        const valid = makeCallbackParam(core, { identity, channel: 'web' }).payload;
        const data = sealCallbackPayload(core, { ...valid, accountNumber: 'has spaces / slashes' });
        const answer = await call(integrated(data));
        assert.equal(answer.status, 401);
        assert.equal(answer.body.errors?.[0]?.type, 'CALLBACK_PARAMETER_INVALID');
        const gone = await call(logout(makeCallbackParam(core, { identity, channel: 'web' }).data));
        assert.equal(gone.status, 404, 'no user was created');
      });
    });
  });

  describe('delegated tokens (POST …/delegations)', () => {
    describe('happy', () => {
      it('issues a delegated token that jose verifies against the published JWKS, with the decided claims', async () => {
        const { assistantId } = await integrate({ accountNumber: 'ACC-4001' });
        const answer = await delegate(assistantId, keys.runtime);
        assert.equal(answer.status, 201);
        assert.equal(answer.headers.get('cache-control'), 'no-store');
        assert.equal(answer.body.tokenType, 'Bearer');
        assert.equal(answer.body.audience, 'sintonia-client-api');
        assert.equal(answer.body.accountNumber, 'ACC-4001');
        assert.deepEqual(answer.body.scope, [
          'devices:read',
          'devices:write',
          'sessions:write',
          'bookmarks:read',
          'devices:pair',
          'playback:read',
          'devices:control',
        ]);
        assert.ok(Number(answer.body.expiresIn) <= 300);
        const token = String(answer.body.token);
        const discovery = await call('/openid/issuer/.well-known/openid-configuration');
        const jwks = createRemoteJWKSet(new URL(String(discovery.body.jwks_uri)));
        const { payload } = await jwtVerify(token, jwks, {
          issuer: String(discovery.body.issuer),
          audience: 'sintonia-client-api',
        });
        assert.equal(payload.sub, assistantId);
        assert.equal(payload.acc, 'ACC-4001');
        assert.equal(
          payload.scope,
          'devices:read devices:write sessions:write bookmarks:read devices:pair playback:read devices:control',
        );
        const runtimeKeyId = (await core.apiKeys.list()).find((key) => key.name === 'linking-runtime')?.id;
        assert.deepEqual(payload.act, { sub: `runtime-key:${runtimeKeyId}` });
        assert.ok(Number(payload.exp) - Number(payload.iat) <= 300);
        assert.equal(decodeProtectedHeader(token).alg, 'ES256');
      });

      it('narrows the token to the scopes asked for', async () => {
        const { assistantId } = await integrate({ accountNumber: 'ACC-5001' });
        const answer = await delegate(assistantId, keys.runtime, {
          audience: 'client-api',
          scope: ['devices:read'],
        });
        assert.equal(answer.status, 201);
        assert.deepEqual(answer.body.scope, ['devices:read']);
      });
    });

    describe('errors', () => {
      it('refuses unknown scopes, audiences and fields with 400', async () => {
        const { assistantId } = await integrate({ accountNumber: 'ACC-6001' });
        for (const body of [
          { audience: 'client-api', scope: ['accounts:delete'] },
          { audience: 'agents' },
          { audience: 'client-api', scope: [] },
          { audience: 'client-api', extra: true },
          {},
        ]) {
          const answer = await delegate(assistantId, keys.runtime, body);
          assert.equal(answer.status, 400, JSON.stringify(body));
          assert.equal(answer.body.code, 'BAD_REQUEST');
        }
      });

      it('answers 409 ASSISTANT_USER_NOT_LINKED for an unlinked user, 404 for an unknown one, 410 for an expired one', async () => {
        const unlinked = await integrate();
        const refused = await delegate(unlinked.assistantId, keys.runtime);
        assert.equal(refused.status, 409);
        assert.equal(refused.body.code, 'CONFLICT');
        assert.equal(refused.body.errors?.[0]?.type, 'ASSISTANT_USER_NOT_LINKED');
        const unknown = await delegate(randomUUID(), keys.runtime);
        assert.equal(unknown.status, 404);
        const expired = await integrate({ accountNumber: 'ACC-7001' });
        await expireUser(core, expired.assistantId);
        const late = await delegate(expired.assistantId, keys.runtime);
        assert.equal(late.status, 410);
        assert.equal(late.body.errors?.[0]?.type, 'ASSISTANT_ID_EXPIRED');
      });
    });

    describe('security', () => {
      it('only runtime keys obtain delegations: gateway, client and backoffice keys are 403, no key 401', async () => {
        const { assistantId } = await integrate({ accountNumber: 'ACC-8001' });
        for (const keyClass of ['gateway', 'client', 'backoffice'] as const) {
          const answer = await delegate(assistantId, keys[keyClass]);
          assert.equal(answer.status, 403, keyClass);
          assert.equal(answer.body.errors?.[0]?.type, 'ACCESS_DENIED');
        }
        const anonymous = await call(`/users/${assistantId}/delegations`, {
          method: 'POST',
          body: { audience: 'client-api' },
        });
        assert.equal(anonymous.status, 401);
      });
    });
  });
});
