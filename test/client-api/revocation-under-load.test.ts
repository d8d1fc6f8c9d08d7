import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createAccountRepository } from '../../src/client-api/accounts/repository.ts';
import { createAccountService } from '../../src/client-api/accounts/service.ts';
import { USER_HASH_KEY_PURPOSE } from '../../src/client-api/accounts/user-hash.ts';
import { hashPassword } from '../../src/client-api/users/passwords.ts';
import { createUserRepository } from '../../src/client-api/users/repository.ts';
import { loadConfig } from '../../src/core/config.ts';
import { type Core, openCore } from '../../src/core/core.ts';
import { type App, buildServiceApp } from '../../src/core/http/service-app.ts';
import { services } from '../../src/family.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

/**
 * Whatever the client-api caches to check tokens cheaply, closing a session must refuse its token on
 * the very next request: here while 16 connections keep using the token, and on a second server
 * process-alike (its own core and connection on the same store), as a second process behind a load
 * balancer would be.
 */

const base = '/api/v1';
const password = 'revocation-password-1';
let core: TestCore;
let otherCore: Core;
let first: App;
let second: App;
let firstUrl: string;
let secondUrl: string;
let operatorKey: string;

async function listen(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

before(async () => {
  core = await createTestCore();
  const accounts = createAccountService(
    core.key(USER_HASH_KEY_PURPOSE),
    createAccountRepository(core.database),
  );
  const users = createUserRepository(core.database);
  const passwordHash = await hashPassword(password);
  for (const accountNumber of ['rev-1', 'rev-2']) {
    await accounts.create(accountNumber);
    await users.insert({
      platform_user_id: `user-${accountNumber}`,
      account_number: accountNumber,
      email: `${accountNumber}@sintonia.invalid`,
      password_hash: passwordHash,
      profiles: '[]',
      subscriptions: '[]',
      created_at: Date.now(),
    });
  }
  operatorKey = (await core.apiKeys.create('backoffice', 'revocation-test')).key;
  first = await buildServiceApp(core, services['client-api']);
  otherCore = await openCore(loadConfig(core.env as NodeJS.ProcessEnv), { migrate: false });
  second = await buildServiceApp(otherCore, services['client-api']);
  firstUrl = await listen(first);
  secondUrl = await listen(second);
});

after(async () => {
  await second?.close();
  await otherCore?.close();
  await first?.close();
  await core?.dispose();
});

async function signIn(accountNumber: string, deviceId: string): Promise<string> {
  const response = await fetch(`${firstUrl}${base}/auth/stb/users/authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: `${accountNumber}@sintonia.invalid`, password, deviceId }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { tokens: { accessToken: string } };
  return body.tokens.accessToken;
}

interface Sample {
  startedAt: number;
  status: number;
}

/** `connections` loops calling `url` with `token` until stopped; each request's start time and status. */
function load(url: string, token: string, connections: number) {
  const samples: Sample[] = [];
  let running = true;
  const loops = Array.from({ length: connections }, async () => {
    while (running) {
      const startedAt = performance.now();
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      samples.push({ startedAt, status: response.status });
    }
  });
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const until = (condition: () => boolean) =>
  new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const check = () => {
      if (condition()) resolve();
      else if (Date.now() > deadline) reject(new Error('condition not met within 10 s'));
      else setTimeout(check, 5);
    };
    check();
  });

for (const where of ['same', 'other'] as const) {
  test(`a closed session's token is refused on the next request under load (${where} process)`, async () => {
    const accountNumber = where === 'same' ? 'rev-1' : 'rev-2';
    const deviceId = `device-${where}`;
    const token = await signIn(accountNumber, deviceId);
    const target = `${where === 'same' ? firstUrl : secondUrl}${base}/accounts/${accountNumber}/devices`;
    const running = load(target, token, 16);
    try {
      // Enough successful requests first that the token is warm in any cache.
      await until(() => running.samples.filter((sample) => sample.status === 200).length >= 200);
      const close = await fetch(`${firstUrl}${base}/accounts/${accountNumber}/devices/${deviceId}/sessions`, {
        method: 'DELETE',
        headers: { 'x-api-key': operatorKey },
      });
      assert.equal(close.status, 204);
      const closedAt = performance.now();
      await until(() => running.samples.filter((sample) => sample.startedAt > closedAt).length >= 200);
      await running.stop();

      const afterClose = running.samples.filter((sample) => sample.startedAt > closedAt);
      const statuses = [...new Set(afterClose.map((sample) => sample.status))];
      assert.deepEqual(statuses, [401], 'every request started after the close must be 401');
      assert.ok(running.samples.some((sample) => sample.status === 200 && sample.startedAt < closedAt));
    } finally {
      await running.stop();
    }
    // And the answer is the documented one: 401 TOKEN_INVALID with a Bearer challenge.
    const refused = await fetch(target, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer /);
    const body = (await refused.json()) as { code: string; errors: Array<{ type: string }> };
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.equal(body.errors[0]?.type, 'TOKEN_INVALID');
  });
}
