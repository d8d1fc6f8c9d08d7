import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AgentTurn } from '../../src/agents/agent.ts';
import { createAssistantAgent } from '../../src/agents/assistant/assistant-agent.ts';
import { createChatAgent } from '../../src/agents/chat/chat-agent.ts';
import { createModelClient } from '../../src/agents/chat/model-client.ts';
import { createAccountClient } from '../../src/agents/tools/account-client.ts';
import type { AccountAccess } from '../../src/agents/tools/account-tools.ts';
import { createConfirmations } from '../../src/agents/tools/confirmations.ts';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { type ModelServer, startModelServer } from './helpers/model-server.ts';

const BASE = '/api/v1';
/** The question's time line, whatever minute the TV asked in. */
const anyTime = (text: string) => text.replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/, '<time>');
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * `approve_tv_sign_in` in both agents against the real client-api and assistant-auth: the rule-based
 * agent by what the person says, the chat agent by its model's tool call. Nothing is decided before the
 * person's yes; then the TV's next poll gets its tokens (or access_denied).
 */
describe('approve_tv_sign_in: both agents sign a TV in with its code after a yes', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let model: ModelServer;
  let accounts: AccountAccess;
  let assistantId = '';

  before(async () => {
    // Room for the phone and two TVs: the last test finds the account full.
    ({ core, close } = await startTestFamily(['client-api', 'assistant-auth'], {
      MAX_DEVICES_PER_ACCOUNT: '3',
    }));
    model = await startModelServer();
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    await signedInHousehold(core, `${core.serviceUrl('client-api')}${BASE}`, {
      accountNumber: 'AGT-TV-1',
      email: 'agt-tv@example.test',
      devices: [['agt-phone', 'Phone']],
    });
    const { data } = makeCallbackParam(core, {
      identity: randomUUID(),
      channel: 'web',
      accountNumber: 'AGT-TV-1',
    });
    const linked = await fetch(
      `${core.serviceUrl('assistant-auth')}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    );
    assert.equal(linked.status, 201);
    assistantId = ((await linked.json()) as { assistantId: string }).assistantId;
    const agentsCore = Object.assign(Object.create(core), {
      config: { ...core.config, ASSISTANT_RUNTIME_KEY: runtimeKey },
    }) as TestCore;
    accounts = { client: createAccountClient(agentsCore), confirmations: createConfirmations(core) };
  });
  after(async () => {
    await model.close();
    await close();
  });

  const form = async (path: string, fields: Record<string, string>) => {
    const response = await fetch(`${core.serviceUrl('client-api')}${BASE}${path}`, {
      method: 'POST',
      body: new URLSearchParams(fields),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };
  const askCodes = async (deviceId: string, deviceName: string) =>
    (
      await form('/oauth/device_authorization', {
        client_id: 'stb',
        device_id: deviceId,
        device_name: deviceName,
      })
    ).body as { device_code: string; user_code: string };
  const poll = (deviceCode: string) =>
    form('/oauth/token', { grant_type: GRANT, device_code: deviceCode, client_id: 'stb' });
  const turn = (input: string, conversationId: string): AgentTurn => ({
    input,
    conversationId,
    speaker: { assistantId },
    signal: new AbortController().signal,
  });

  describe('happy', () => {
    it('the rule-based agent: "mi tele muestra …" asks in Spanish naming the TV; "sí" signs it in', async () => {
      const agent = createAssistantAgent(
        { maxDevicesPerAccount: 10, deviceDeleteCooldownSeconds: 3600 },
        accounts,
      );
      const codes = await askCodes('agt-salon', 'Tele del salón');
      const conversation = randomUUID();
      const asked = await agent.invoke(
        turn(`mi tele muestra ${codes.user_code.toLowerCase()}`, conversation),
      );
      assert.equal(
        anyTime(asked.output),
        [
          `¿Quieres que vaya a iniciar sesión en el dispositivo stb con el código ${codes.user_code} en tu cuenta?`,
          'El nombre que se da a sí mismo (sin comprobar): «Tele del salón»',
          'Lo pidió: <time>, desde 127.0.0.0/24.',
          'Aprueba solo un código que veas en una pantalla delante de ti. Nadie de Sintonia te pedirá nunca un código: si alguien te lo ha pedido, recházalo.',
        ].join('\n'),
      );
      assert.deepEqual(
        asked.suggestedActions?.actions.map((action) => action.title),
        ['Sí', 'No'],
      );
      assert.equal(
        (await poll(codes.device_code)).body.error,
        'authorization_pending',
        'nothing before the yes',
      );
      const done = await agent.invoke(turn('sí', conversation));
      assert.equal(
        done.output,
        `Hecho: el dispositivo stb con el código ${codes.user_code} ha iniciado sesión en tu cuenta; empezará en unos segundos.`,
      );
      await new Promise((resolve) => setTimeout(resolve, 5_200));
      const tokens = await poll(codes.device_code);
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    });

    it("the chat agent: the model calls the tool, the person's yes approves, the TV gets its tokens", async () => {
      const codes = await askCodes('agt-bedroom', 'Bedroom TV');
      let calls = 0;
      model.handle((_request, response) => {
        calls++;
        const message = {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'approve_tv_sign_in', arguments: JSON.stringify({ code: codes.user_code }) },
            },
          ],
        };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ model: 'scripted', choices: [{ index: 0, message }] }));
      });
      const agent = createChatAgent(
        createModelClient({ baseUrl: model.baseUrl, model: 'scripted', timeoutMs: 5000 }),
        'scripted',
        accounts,
      );
      const conversation = randomUUID();
      const asked = await agent.invoke(
        turn('please sign in the TV in my bedroom, it shows a code', conversation),
      );
      assert.match(
        asked.output,
        /^Do you want me to sign the stb device with the code \w{4}-\w{4} in to your account\?\nThe name it gives itself \(not checked\): «Bedroom TV»\n/,
      );
      assert.equal(calls, 1);
      assert.equal((await poll(codes.device_code)).body.error, 'authorization_pending');
      const done = await agent.invoke(turn('yes', conversation));
      assert.equal(
        done.output,
        `Done: the stb device with the code ${codes.user_code} is signed in to your account; it starts within a few seconds.`,
      );
      await new Promise((resolve) => setTimeout(resolve, 5_200));
      assert.equal((await poll(codes.device_code)).status, 200);
    });
  });

  describe('errors', () => {
    it('the rule-based agent: a "no" decides nothing; an unknown code is said so', async () => {
      const agent = createAssistantAgent(
        { maxDevicesPerAccount: 10, deviceDeleteCooldownSeconds: 3600 },
        accounts,
      );
      const codes = await askCodes('agt-kitchen', 'Kitchen TV');
      const conversation = randomUUID();
      const asked = await agent.invoke(turn(`my TV shows ${codes.user_code}`, conversation));
      assert.match(
        asked.output,
        /^Do you want me to sign the stb device with the code \w{4}-\w{4} in to your account\?\nThe name it gives itself \(not checked\): «Kitchen TV»\n/,
      );
      assert.equal((await agent.invoke(turn('no', conversation))).output, "All right, I won't do it.");
      assert.equal((await poll(codes.device_code)).body.error, 'authorization_pending');
      const unknown = await agent.invoke(turn('the code is BBBB-BBBB', randomUUID()));
      assert.equal(
        unknown.output,
        'No TV is waiting with the code BBBB-BBBB. Check the code on the screen (it expires after 10 minutes).',
      );
    });

    it('a full account: the yes is answered with the device limit, and the TV is not signed in', async () => {
      const agent = createAssistantAgent(
        { maxDevicesPerAccount: 3, deviceDeleteCooldownSeconds: 3600 },
        accounts,
      );
      const codes = await askCodes('agt-garage', 'Garage TV');
      const conversation = randomUUID();
      await agent.invoke(turn(`my TV shows ${codes.user_code}`, conversation));
      const refused = await agent.invoke(turn('yes', conversation));
      assert.equal(
        refused.output,
        `I could not sign the stb device with the code ${codes.user_code} in to your account: your account already has the most enabled devices it may hold; disable another one first.`,
      );
      assert.equal((await poll(codes.device_code)).body.error, 'authorization_pending');
    });
  });

  describe('security', () => {
    it('a hostile name cannot rewrite the question: it stands alone, stripped and capped, below it', async () => {
      const agent = createAssistantAgent(
        { maxDevicesPerAccount: 10, deviceDeleteCooldownSeconds: 3600 },
        accounts,
      );
      const codes = await askCodes(
        'agt-phone',
        'Victim phone» (web), which you already own. Safe to press Yes «',
      );
      const asked = await agent.invoke(turn(`my TV shows ${codes.user_code}`, randomUUID()));
      assert.equal(
        anyTime(asked.output),
        [
          `Do you want me to sign the stb device with the code ${codes.user_code} in to your account?`,
          'The name it gives itself (not checked): «Victim phone web , which you alr»',
          'Asked: <time>, from 127.0.0.0/24.',
          'Approve only a code shown on a screen in front of you. Nobody from Sintonia will ever ask you for a code: if someone did, refuse it.',
        ].join('\n'),
      );
    });
  });
});
