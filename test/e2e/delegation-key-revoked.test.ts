import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { freePort, startServe } from '../helpers/processes.ts';

const BASE = '/api/v1';

type Serve = Awaited<ReturnType<typeof startServe>>;

/**
 * Issue 40: a delegated token rests on the runtime key that obtained it. Revoked by one process (the
 * operator's), the token is refused within seconds by client-api in this process and in another
 * `sintonia serve` on the same store (PostgreSQL in the suite's second pass), long before its 300 s end.
 */
describe('a delegated token falls with the runtime key that obtained it, in every process', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let other: Serve | undefined;
  let otherUrl = '';

  before(async () => {
    ({ core, close } = await startTestFamily(['client-api', 'assistant-auth'], { SINTONIA_DEMO: '0' }));
    const port = await freePort();
    otherUrl = `http://127.0.0.1:${port}`;
    // A second client-api process, asking this process's assistant-auth whether links stand.
    const assistantPort = new URL(core.serviceUrl('assistant-auth')).port;
    other = await startServe(
      ['--service', 'client-api'],
      { ...core.env, CLIENT_API_PORT: String(port), ASSISTANT_AUTH_PORT: assistantPort, LOG_LEVEL: 'warn' },
      [otherUrl],
    );
  });
  after(async () => {
    other?.child.kill('SIGTERM');
    await other?.exited;
    await close();
  });

  const devices = (origin: string, token: string) =>
    fetch(`${origin}${BASE}/accounts/DKR-1/devices`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });

  it('answers 200 on both processes, then 401 TOKEN_INVALID on both within seconds of the revocation', async () => {
    const runtime = await core.apiKeys.create('runtime', 'revoked runtime');
    await signedInHousehold(core, `${core.serviceUrl('client-api')}${BASE}`, {
      accountNumber: 'DKR-1',
      email: 'dkr-1@example.test',
      devices: [['dkr-tv', 'Living room']],
    });
    const { data } = makeCallbackParam(core, {
      identity: randomUUID(),
      channel: 'web',
      accountNumber: 'DKR-1',
    });
    const linked = await fetch(
      `${core.serviceUrl('assistant-auth')}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    );
    assert.equal(linked.status, 201);
    const { assistantId } = (await linked.json()) as { assistantId: string };
    const delegated = await fetch(`${core.serviceUrl('assistant-auth')}/users/${assistantId}/delegations`, {
      method: 'POST',
      headers: { 'x-api-key': runtime.key, 'content-type': 'application/json' },
      body: JSON.stringify({ audience: 'client-api' }),
    });
    assert.equal(delegated.status, 201);
    const { token } = (await delegated.json()) as { token: string };
    const origins = [core.serviceUrl('client-api'), otherUrl];
    for (const origin of origins) assert.equal((await devices(origin, token)).status, 200, origin);

    assert.equal(await core.apiKeys.revoke(runtime.id), true);
    const revokedAt = Date.now();
    for (const origin of origins) {
      let answer = await devices(origin, token);
      while (answer.status === 200 && Date.now() - revokedAt < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await devices(origin, token);
      }
      assert.equal(answer.status, 401, origin);
      const body = (await answer.json()) as { errors: Array<{ type: string }> };
      assert.equal(body.errors[0]?.type, 'TOKEN_INVALID');
      assert.ok(Date.now() - revokedAt < 5_000, `${origin}: refused ${Date.now() - revokedAt} ms after`);
    }
  });
});
