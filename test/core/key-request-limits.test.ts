import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type TestCore } from '../helpers/harness.ts';

/** Per-class API key limits hold in every service, through the one place keys are verified. */
describe('request limits of API keys by class', () => {
  let agents: { app: App; core: TestCore; close(): Promise<void> };
  before(async () => {
    // Windows are fixed and aligned to the clock: an hour-long one makes it unlikely (~1 in 10^5) that the
    // test's three calls straddle two windows (with 60 s windows, CI once saw the third call counted anew).
    agents = await createTestApp('agents', { RUNTIME_KEY_REQUEST_LIMIT: '2', REQUEST_LIMIT_WINDOW: '3600' });
  });
  after(async () => agents.close());

  it('answers 429 RATE_LIMITED with Retry-After past the limit of its class, per key', async () => {
    const first = (await agents.core.apiKeys.create('runtime', 'limited')).key;
    const second = (await agents.core.apiKeys.create('runtime', 'other')).key;
    const call = (key: string) =>
      agents.app.inject({ method: 'GET', url: '/agents', headers: { 'x-api-key': key } });
    assert.equal((await call(first)).statusCode, 200);
    assert.equal((await call(first)).statusCode, 200);
    const refused = await call(first);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().errors[0].type, 'RATE_LIMITED');
    assert.equal(refused.json().code, 'TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 3600, `retry-after ${retryAfter}`);
    assert.equal((await call(second)).statusCode, 200, 'another key of the class has its own count');
  });

  it('leaves classes without a limit alone', async () => {
    const key = (await agents.core.apiKeys.create('backoffice', 'operator')).key;
    for (let i = 0; i < 5; i++) {
      const response = await agents.app.inject({
        method: 'GET',
        url: '/agents',
        headers: { 'x-api-key': key },
      });
      assert.equal(response.statusCode, 200);
    }
  });

  it('documents the 429 on keyed routes', async () => {
    const document = (await agents.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.ok(document.paths['/agents'].get.responses['429']);
  });
});
