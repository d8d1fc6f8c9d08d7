import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { composeAssistantAuth } from '../../src/assistant-auth/composition.ts';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type TestCore } from '../helpers/harness.ts';
import {
  type Answer,
  casesOf,
  type HostileCase,
  hostileValues,
  jsonText,
  operationsOf,
  serverFaults,
} from '../helpers/hostile-inputs.ts';

/** Stands for the current conversation's id in the cases' paths. */
const CONVERSATION = 'CURRENT-CONVERSATION';

interface Conversation {
  conversationId: string;
  token: string;
}

describe('assistant-auth: no hostile value in any operation answers 5xx', () => {
  let app: App;
  let core: TestCore;
  let close: () => Promise<void>;
  let secret: string;
  let conversation: Conversation;
  const keys = new Map<string, string>();
  let cases: HostileCase[] = [];

  const startConversation = async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v3/directline/conversations',
      headers: { authorization: `Bearer ${secret}` },
      payload: {},
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as Conversation;
  };

  before(async () => {
    // The agents are never reached: what a posted message sets off runs after its answer.
    ({ app, core, close } = await createTestApp('assistant-auth', {
      AGENTS_URL: 'http://127.0.0.1:9/',
      RUNTIME_KEY_REQUEST_LIMIT: '0',
      GATEWAY_KEY_REQUEST_LIMIT: '0',
    }));
    for (const keyClass of ['runtime', 'gateway'] as const) {
      keys.set(keyClass, (await core.apiKeys.create(keyClass, `hostile-${keyClass}`)).key);
    }
    secret = core.key('directline-secret').toString('base64url');
    conversation = await startConversation();
    const users = composeAssistantAuth(core).users;
    const { user } = await users.findOrCreate(
      { channel: 'web', identity: randomUUID(), phoneNumber: '+34600000001' },
      'channel',
    );
    await users.link(user.assistantId, { accountNumber: 'ACC-HOSTILE' });
    const document = (await app.inject({ url: '/openapi.json' })).json();
    const known: Record<string, unknown> = {
      assistantId: user.assistantId,
      assistant_id_global: user.assistantIdGlobal,
      phone_number: '+34600000001',
      // The conversation of the moment: a case may end it (see send).
      conversationId: CONVERSATION,
      userId: 'dl_hostile',
      audience: 'client-api',
      type: 'message',
      text: 'hello',
    };
    cases = operationsOf(document).flatMap((operation) => casesOf(document, operation, known));
  });
  after(() => close());

  /** The key class (or Direct Line credential) each operation takes, found with a valid request. */
  const credentialOf = new Map<string, Record<string, string>>();
  const credentials = async (hostile: HostileCase): Promise<Record<string, string>> => {
    const { id, security, path, method } = hostile.operation;
    if (security.includes('directLineBearer')) {
      const bySecret =
        path.endsWith('/tokens/generate') || (method === 'POST' && path.endsWith('/conversations'));
      return { authorization: `Bearer ${bySecret ? secret : conversation.token}` };
    }
    if (!security.includes('apiKey')) return {};
    const known = credentialOf.get(id);
    if (known) return known;
    const runtime = { 'x-api-key': keys.get('runtime') ?? '' };
    const probe = await send(hostile, runtime);
    const chosen = probe.statusCode === 403 ? { 'x-api-key': keys.get('gateway') ?? '' } : runtime;
    credentialOf.set(id, chosen);
    return chosen;
  };

  const send = async (hostile: HostileCase, auth: Record<string, string>): Promise<Answer> => {
    const headers: Record<string, string> = {
      'x-channel': 'web',
      'x-channel-user-id': randomUUID(),
      ...auth,
    };
    let payload: string | undefined;
    if (hostile.operation.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = jsonText(hostile.body);
    }
    const method = hostile.operation.method as 'GET';
    const url = hostile.url.replace(CONVERSATION, conversation.conversationId);
    const response = await app.inject({ method, url, headers, payload });
    return { statusCode: response.statusCode, body: response.body };
  };

  it('walks every operation with every hostile value in every parameter and body field', async () => {
    assert.ok(cases.length > 200, `${cases.length} cases`);
    const sent: Array<{ hostile: HostileCase; answer: Answer }> = [];
    for (const hostile of cases) {
      let answer = await send(hostile, await credentials(hostile));
      // A case that ended the conversation's token must not starve the ones after it.
      if (answer.statusCode === 403 && answer.body.includes('DIRECTLINE_TOKEN')) {
        conversation = await startConversation();
        answer = await send(hostile, await credentials(hostile));
      }
      sent.push({ hostile, answer });
    }
    assert.deepEqual(serverFaults(sent), []);
  });

  it('an upload with hostile file names and activity parts answers no 5xx', async () => {
    const sent: Array<{ hostile: HostileCase; answer: Answer }> = [];
    const upload = cases.find((hostile) => hostile.operation.id === 'uploadFiles');
    assert.ok(upload, 'the document has uploadFiles');
    for (const value of hostileValues) {
      const text = typeof value.body === 'string' ? value.body : jsonText(value.body);
      const activity = jsonText({ type: 'message', text: value.body, from: { id: value.body } });
      const form = new FormData();
      form.append('activity', new Blob([activity], { type: 'application/vnd.microsoft.activity' }));
      form.append('file', new Blob([text], { type: 'text/plain' }), text.slice(0, 300));
      const request = new Request('http://x/', { method: 'POST', body: form });
      const response = await app.inject({
        method: 'POST',
        url: `/v3/directline/conversations/${conversation.conversationId}/upload`,
        headers: {
          authorization: `Bearer ${conversation.token}`,
          'content-type': request.headers.get('content-type') ?? '',
        },
        payload: Buffer.from(await request.arrayBuffer()),
      });
      const hostile = { ...upload, where: 'multipart activity and file name', value };
      sent.push({ hostile, answer: { statusCode: response.statusCode, body: response.body } });
    }
    assert.deepEqual(serverFaults(sent), []);
    // The activity part is read outside any schema: the rule on text is applied there too.
    const nul = sent.find(({ hostile }) => hostile.value.label === 'NUL')?.answer;
    assert.equal(nul?.statusCode, 400, nul?.body);
    assert.match(nul?.body ?? '', /DIRECTLINE_UPLOAD_INVALID.*\/text must not contain the character U\+0000/);
  });
});
