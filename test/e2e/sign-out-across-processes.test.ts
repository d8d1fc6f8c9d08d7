import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import {
  askDelegation,
  devicesStatus,
  refreshToken,
  say,
  signInOnChatPage,
  speakerOf,
} from '../helpers/chat-page-person.ts';
import { createTestCore, type TestCore, testDatabase } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { freePort, startServe } from '../helpers/processes.ts';

const BASE = '/api/v1';

type Served = Awaited<ReturnType<typeof startServe>>;

/** The three services of one `sintonia serve` process. */
interface Process {
  assistantAuth: string;
  clientApi: string;
}

/**
 * A sign-out or an unlinking in one process holds at once in the other: each service asks the owner of the
 * fact (client-api its sessions, assistant-auth its links), which reads the shared store.
 */
describe('a sign-out reaches the assistant across two `sintonia serve` processes on one PostgreSQL', {
  skip: testDatabase === 'sqlite' ? 'two server processes share a PostgreSQL store only' : false,
  timeout: 120_000,
}, () => {
  let core: TestCore;
  let runtimeKey: string;
  const served: Served[] = [];
  const processes: Process[] = [];

  before(async () => {
    core = await createTestCore();
    runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    const ports: number[] = [];
    for (let index = 0; index < 6; index += 1) ports.push(await freePort());
    // One issuer for the deployment, as a load balancer's address would be: each process signs and checks
    // the assistant's tokens under it, with the keys both read from the store.
    const issuerBase = `http://127.0.0.1:${ports[1]}`;
    for (const index of [0, 1]) {
      const [clientApiPort, assistantAuthPort, agentsPort] = ports.slice(index * 3, index * 3 + 3);
      const urls = {
        clientApi: `http://127.0.0.1:${clientApiPort}`,
        assistantAuth: `http://127.0.0.1:${assistantAuthPort}`,
      };
      served.push(
        await startServe(
          [],
          {
            ...core.env,
            CLIENT_API_PORT: String(clientApiPort),
            ASSISTANT_AUTH_PORT: String(assistantAuthPort),
            AGENTS_PORT: String(agentsPort),
            CHAT_PAGE: 'on',
            ASSISTANT_RUNTIME_KEY: runtimeKey,
            PUBLIC_BASE_URL: issuerBase,
            LOG_LEVEL: 'warn',
          },
          [urls.clientApi, urls.assistantAuth, `http://127.0.0.1:${agentsPort}`],
        ),
      );
      processes.push({ ...urls, clientApi: `${urls.clientApi}${BASE}` });
    }
  });
  after(async () => {
    for (const server of served) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await core?.dispose();
  });

  async function household(accountNumber: string, clientApi: string) {
    const email = `${accountNumber.toLowerCase()}@example.test`;
    const tv = await signedInHousehold(core, clientApi, {
      accountNumber,
      email,
      devices: [[`${accountNumber}-bed`, 'Bedroom TV']],
    });
    return { email, bedroom: tv[`${accountNumber}-bed`] ?? '' };
  }

  it('"sign out everywhere" through one process: the other renews no token, grants no delegation, lists no device', async () => {
    const [first, second] = processes as [Process, Process];
    const home = await household('XPS-1001', second.clientApi);
    const chat = await signInOnChatPage(first.assistantAuth, home.email);
    const assistantId = await speakerOf(core, chat.conversationId);
    assert.equal((await refreshToken(second.assistantAuth, chat.token)).status, 200);
    assert.match((await say(first.assistantAuth, chat, 'what devices do I have?')).text ?? '', /Bedroom TV/);
    const delegated = (await askDelegation(second.assistantAuth, runtimeKey, assistantId)).token ?? '';
    assert.equal(await devicesStatus(first.clientApi, 'XPS-1001', delegated), 200);

    const everywhere = await fetch(`${second.clientApi}/accounts/XPS-1001/sessions`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${home.bedroom}` },
    });
    assert.equal(everywhere.status, 204);

    assert.equal((await refreshToken(first.assistantAuth, chat.token)).status, 403);
    const asked = await askDelegation(first.assistantAuth, runtimeKey, assistantId);
    assert.equal(asked.status, 409);
    assert.equal(asked.type, 'ASSISTANT_USER_SIGNED_OUT');
    assert.equal(await devicesStatus(first.clientApi, 'XPS-1001', delegated), 401);
    const listed = await say(first.assistantAuth, chat, 'what devices do I have?');
    assert.doesNotMatch(listed.text ?? '', /Bedroom TV/);
  });

  it('the assistant user deleted through one process: the other refuses its delegated token at once', async () => {
    const [first, second] = processes as [Process, Process];
    const home = await household('XPS-2001', first.clientApi);
    const chat = await signInOnChatPage(first.assistantAuth, home.email);
    const assistantId = await speakerOf(core, chat.conversationId);
    const delegated = (await askDelegation(first.assistantAuth, runtimeKey, assistantId)).token ?? '';
    assert.equal(await devicesStatus(second.clientApi, 'XPS-2001', delegated), 200);

    const removed = await fetch(`${first.assistantAuth}/users/${assistantId}`, {
      method: 'DELETE',
      headers: { 'x-api-key': runtimeKey },
    });
    assert.equal(removed.status, 204);
    assert.equal(await devicesStatus(second.clientApi, 'XPS-2001', delegated), 401, 'refused right after');
    assert.equal((await refreshToken(second.assistantAuth, chat.token)).status, 403);
  });

  it('an operator closes the account’s sessions through one process: the other renews no token, grants no delegation', async () => {
    const [first, second] = processes as [Process, Process];
    const operatorKey = (await core.apiKeys.create('backoffice', 'operator')).key;
    const home = await household('XPS-3001', first.clientApi);
    const chat = await signInOnChatPage(first.assistantAuth, home.email);
    const assistantId = await speakerOf(core, chat.conversationId);
    assert.equal((await refreshToken(second.assistantAuth, chat.token)).status, 200);
    const closed = await fetch(`${first.clientApi}/accounts/XPS-3001/sessions?qspVersion=All`, {
      method: 'DELETE',
      headers: { 'x-api-key': operatorKey },
    });
    assert.equal(closed.status, 204);
    assert.equal((await refreshToken(second.assistantAuth, chat.token)).status, 403);
    assert.equal((await askDelegation(second.assistantAuth, runtimeKey, assistantId)).status, 409);
  });

  it('a person the gateway linked, unlinked through one process: the other refuses their delegated token at once', async () => {
    const [first, second] = processes as [Process, Process];
    await household('XPS-4001', first.clientApi);
    const callback = (path: string, payload: { accountNumber?: string }) =>
      fetch(
        `${first.assistantAuth}/users/assistantid/integrated${path}?data=${encodeURIComponent(
          makeCallbackParam(core, { identity: 'xps-4001-person', channel: 'web', ...payload }).data,
        )}`,
      );
    const linked = await callback('', { accountNumber: 'XPS-4001' });
    assert.equal(linked.status, 201);
    const { assistantId } = (await linked.json()) as { assistantId: string };
    const delegated = (await askDelegation(first.assistantAuth, runtimeKey, assistantId)).token ?? '';
    assert.equal(await devicesStatus(second.clientApi, 'XPS-4001', delegated), 200);
    assert.equal((await callback('/logout', {})).status, 204);
    assert.equal(await devicesStatus(second.clientApi, 'XPS-4001', delegated), 401, 'refused right after');
  });
});
