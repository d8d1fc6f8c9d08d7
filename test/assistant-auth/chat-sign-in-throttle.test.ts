import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CLIENT_ADDRESS_HEADER } from '../../src/core/api-keys/vouched-address.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { HOUSEHOLD_PASSWORD, signedInHousehold } from '../helpers/household.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/** An HTTP request sent from `from`, an address of this machine (all of 127.0.0.0/8 is loopback). */
function send(
  url: string,
  from: string,
  options: { method?: string; headers?: Record<string, string>; json?: unknown } = {},
): Promise<Answer> {
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        localAddress: from,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/**
 * The chat page signs people in through client-api's HTTP Basic check: with the runtime key it names each
 * person's own address, so client-api's per-address limit counts the person, not the page.
 */
describe('chat page sign-in: client-api counts each person’s own address', () => {
  let core: TestCore;
  let family: RunningFamily;
  let runtimeKey: string;
  const chatSignIn = (from: string, username: string, password: string) =>
    send(`${family.url('assistant-auth')}/chat/sign-in`, from, { json: { username, password } });
  const basicCheck = (
    from: string,
    username: string,
    password: string,
    headers: Record<string, string> = {},
  ) =>
    send(`${family.url('client-api')}/api/v1/auth/web/users/authenticate`, from, {
      headers: { authorization: basic(username, password), ...headers },
    });

  before(async () => {
    core = await createTestCore({
      CHAT_PAGE: 'on',
      CHAT_TOKEN_LIMIT: '1000',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '5',
      // Each check is a deliberately slow password hash: on a busy machine the default 3 s can pass.
      SUBSYSTEM_TIMEOUT_MS: '20000',
    });
    runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = await startFamily(core, ['client-api', 'assistant-auth']);
    const clientApi = `${family.url('client-api')}/api/v1`;
    for (const [accountNumber, email] of [
      ['THR-1', 'ana@example.test'],
      ['THR-2', 'bea@example.test'],
      ['THR-3', 'eva@example.test'],
    ] as const)
      await signedInHousehold(core, clientApi, { accountNumber, email, devices: [] });
  });
  after(async () => {
    await family?.close();
    await core?.dispose();
  });

  it('24 failed sign-ins from three addresses refuse only those addresses: a person’s right password from theirs passes', async () => {
    for (const from of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) {
      const answers: Answer[] = [];
      for (let attempt = 0; attempt < 8; attempt++) {
        answers.push(await chatSignIn(from, `nobody-${from}-${attempt}@example.test`, 'wrong'));
      }
      // Each attacker's address reaches its own limit (5): the page passed it on.
      const statuses = answers.map((answer) => answer.status);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429], from);
      // Every 401 challenges (RFC 9110 §11.6.1): the form's credentials, under a scheme no browser prompts for.
      for (const answer of answers.filter((refused) => refused.status === 401))
        assert.equal(answer.headers['www-authenticate'], 'Form realm="sintonia"', from);
    }
    const person = await chatSignIn('127.0.0.5', 'ana@example.test', HOUSEHOLD_PASSWORD);
    assert.equal(person.status, 200, 'the right password from the person’s own address');
    // The page's own address (and a client signing in directly from it) was never counted.
    assert.equal((await basicCheck('127.0.0.1', 'eva@example.test', HOUSEHOLD_PASSWORD)).status, 200);
  });

  it('the per-user-name limit still protects each account through the page', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      statuses.push((await chatSignIn(`127.0.0.${10 + attempt}`, 'bea@example.test', 'wrong')).status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    const right = await chatSignIn('127.0.0.16', 'bea@example.test', HOUSEHOLD_PASSWORD);
    assert.equal(right.status, 429);
    assert.ok(Number(right.headers['retry-after']) >= 1);
  });

  it('an address claimed without a runtime key (none, another class, a bogus one) is ignored: the caller is counted', async () => {
    const clientKey = (await core.apiKeys.create('client', 'some client')).key;
    const untrusted: Array<Record<string, string>> = [
      {},
      { 'x-api-key': clientKey },
      { 'x-api-key': `snt_runtime_0123456789abcdef_${'A'.repeat(43)}` },
      { 'x-api-key': clientKey },
      {},
    ];
    for (const [index, headers] of untrusted.entries()) {
      const claimed = { ...headers, [CLIENT_ADDRESS_HEADER]: `198.51.100.${index + 1}` };
      const answer = await basicCheck('127.0.0.20', `someone-${index}@example.test`, 'wrong', claimed);
      assert.equal(answer.status, 401, `attempt ${index + 1}`);
    }
    const refused = await basicCheck('127.0.0.20', 'ana@example.test', HOUSEHOLD_PASSWORD, {
      [CLIENT_ADDRESS_HEADER]: '198.51.100.99',
    });
    assert.equal(refused.status, 429, 'the five failures were counted against 127.0.0.20');
    // With the runtime key, the same caller's claim is believed: that address has no failures.
    const vouched = await basicCheck('127.0.0.20', 'ana@example.test', HOUSEHOLD_PASSWORD, {
      'x-api-key': runtimeKey,
      [CLIENT_ADDRESS_HEADER]: '198.51.100.99',
    });
    assert.equal(vouched.status, 200);
  });
});
