import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AgentTurn } from '../../src/agents/agent.ts';
import { agentChunks } from '../../src/agents/agent.ts';
import { createAssistantAgent } from '../../src/agents/assistant/assistant-agent.ts';
import { createChatAgent } from '../../src/agents/chat/chat-agent.ts';
import { createModelClient } from '../../src/agents/chat/model-client.ts';
import type { AccountClient, AccountDevice } from '../../src/agents/tools/account-client.ts';
import { createConfirmations } from '../../src/agents/tools/confirmations.ts';
import { createTestCore, suiteApp, type TestCore } from '../helpers/harness.ts';
import { memoryAccount } from './helpers/memory-account.ts';
import { completion, suiteCoreAndModel } from './helpers/model-server.ts';
import { postAgent } from './helpers/post-agent.ts';
import { parseEvents } from './helpers/sse.ts';

/** A device name anyone who signs a device in may choose. */
const HOSTILE = '[Verify account](https://evil.example/p) <b>bold</b> <img src=x>';
/** What a person may type as a new name or a device. */
const TYPED = '<i>Guest</i> [here](https://evil.example/q)';

const devices: AccountDevice[] = [
  { mediaPlayerId: 'mp-1', name: HOSTILE, deviceClass: 'stb', enabled: true, playing: true },
  { mediaPlayerId: 'mp-2', name: 'Living room', deviceClass: 'stb', enabled: false, playing: false },
];

function linkedAccounts(core: TestCore) {
  const { session } = memoryAccount(devices, { playing: ['mp-1'] });
  const client: AccountClient = { forSpeaker: async () => ({ linked: true, session }) };
  return { client, confirmations: createConfirmations(core) };
}

const personTurn = (input: string, conversationId = randomUUID()): AgentTurn => ({
  input,
  conversationId,
  speaker: { assistantId: randomUUID() },
  signal: new AbortController().signal,
});
const anonymousTurn = (input: string): AgentTurn => ({ input, signal: new AbortController().signal });

describe('the rule-based assistant says what a person or a device controls word for word, as plain text', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  const agent = () =>
    createAssistantAgent(
      { maxDevicesPerAccount: 5, deviceDeleteCooldownSeconds: 3600 },
      linkedAccounts(core),
    );

  describe('happy', () => {
    it('lists and names devices with every character of their names, and marks every turn plain', async () => {
      const assistant = agent();
      const listed = await assistant.invoke(personTurn('what devices do I have?'));
      assert.equal(
        listed.output,
        `You have 2 devices: ${HOSTILE} (enabled, signed in, playing now) and Living room (disabled, signed out).`,
      );
      const spanish = await assistant.invoke(personTurn('¿qué dispositivos tengo?'));
      assert.equal(
        spanish.output,
        `Tienes 2 dispositivos: ${HOSTILE} (activo, sesión iniciada, reproduciendo ahora) y Living room (desactivado, sesión cerrada).`,
      );
      const playing = await assistant.invoke(personTurn("what's playing?"));
      assert.equal(playing.output, `Playing now on: ${HOSTILE}.`);
      for (const turn of [
        personTurn('hello'),
        anonymousTurn('hello'),
        personTurn('what devices do I have?'),
      ]) {
        assert.equal(assistant.textFormat?.(turn), 'plain');
      }
    });

    it('echoes what the person typed as typed: a new name, a device it cannot find', async () => {
      const assistant = agent();
      const asked = await assistant.invoke(personTurn(`rename living room to ${TYPED}`));
      assert.equal(asked.output, `Do you want me to rename «Living room» to «${TYPED}»?`);
      const missing = await assistant.invoke(personTurn('sign out of [kitchen](https://evil.example/k)'));
      assert.equal(
        missing.output,
        `I can't find a device called «[kitchen](https://evil.example/k)». Your devices are: ${HOSTILE} and Living room.`,
      );
    });

    it('acknowledges a file by the name it was sent with', async () => {
      const name = '<img src=x onerror=alert(1)>[a](https://evil.example).pdf';
      const answer = await agent().invoke({
        ...anonymousTurn(name),
        attachments: [{ name, contentType: 'application/pdf', size: 2048, contentUrl: 'http://127.0.0.1/f' }],
      });
      assert.equal(answer.output, `I received your file ${name} (2 KB).`);
    });
  });
});

describe('the chat agent: a person’s turns are plain text, an anonymous one keeps the model’s markdown', () => {
  const fx = suiteCoreAndModel();

  const agent = () =>
    createChatAgent(
      createModelClient({ baseUrl: fx.model.baseUrl, model: 'scripted', timeoutMs: 5000 }),
      'scripted',
      linkedAccounts(fx.core),
    );

  describe('happy', () => {
    it('marks a person’s turn plain and tells the fx.model so; an anonymous turn is markdown', async () => {
      fx.model.handle((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(completion('The guide is on 0.'));
      });
      const chat = agent();
      const person = personTurn('where is the guide?');
      await chat.invoke(person);
      assert.equal(chat.textFormat?.(person), 'plain');
      const system = fx.model.requests.at(-1)?.body.messages?.find((message) => message.role === 'system');
      assert.match(system?.content ?? '', /plain text without markdown/);

      const anonymous = anonymousTurn('where is the guide?');
      await chat.invoke(anonymous);
      assert.equal(chat.textFormat?.(anonymous), 'markdown');
      const anonymousSystem = fx.model.requests
        .at(-1)
        ?.body.messages?.find((message) => message.role === 'system');
      assert.doesNotMatch(anonymousSystem?.content ?? '', /plain text/);
      // Built without account access, no turn can quote account data.
      const bare = createChatAgent(
        createModelClient({ baseUrl: fx.model.baseUrl, model: 'scripted', timeoutMs: 5000 }),
        'scripted',
      );
      assert.equal(bare.textFormat?.(person), 'markdown');
    });

    it('asks to confirm a change the fx.model wants in words that quote the device and the new name as they are', async () => {
      const call = {
        id: 'call_1',
        type: 'function',
        function: { name: 'rename_device', arguments: JSON.stringify({ device: 'mp-1', name: TYPED }) },
      };
      fx.model.handle((request, response) => {
        if (request.body.stream) {
          const delta = { tool_calls: [{ index: 0, ...call }] };
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\ndata: [DONE]\n\n`);
          return;
        }
        const message = { role: 'assistant', content: null, tool_calls: [call] };
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ model: 'scripted', choices: [{ index: 0, message }] }));
      });
      const conversation = randomUUID();
      const asked = await agent().invoke(personTurn('rename the first one please', conversation));
      assert.equal(asked.output, `Do you want me to rename «${HOSTILE}» to «${TYPED}»?`);
      let streamed = '';
      for await (const chunk of agentChunks(agent(), personTurn('rename the first one please', conversation)))
        streamed += chunk;
      assert.equal(streamed, asked.output);
    });
  });
});

describe('the agents server says each answer’s textFormat, in invoke and in every stream event', () => {
  const agents = suiteApp('agents', 'runtime');

  const name = '[report](https://evil.example/r) <b>x</b>.pdf';
  const payload = {
    input: name,
    attachments: [{ name, contentType: 'application/pdf', size: 100, contentUrl: 'http://127.0.0.1/f' }],
  };

  describe('happy', () => {
    it('invoke: the assistant’s answer is plain, with the file’s name as sent', async () => {
      const response = await postAgent(agents, '/agents/assistant/invoke', payload);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().textFormat, 'plain');
      assert.equal(response.json().output, `I received your file ${name} (100 bytes).`);
    });

    it('stream: every chunk and the done event say plain', async () => {
      const response = await postAgent(agents, '/agents/assistant/stream', payload);
      assert.equal(response.statusCode, 200, response.body);
      const events = parseEvents(response.body);
      const chunks = events.filter((event) => event.event === 'chunk');
      assert.ok(chunks.length > 1);
      for (const chunk of chunks) assert.equal((chunk.data as { textFormat?: string }).textFormat, 'plain');
      const done = events.at(-1);
      assert.equal(done?.event, 'done');
      const body = done?.data as { textFormat?: string; output?: string } | undefined;
      assert.equal(body?.textFormat, 'plain');
      assert.equal(body?.output, `I received your file ${name} (100 bytes).`);
    });

    it('the OpenAPI document names the field and its two values', async () => {
      const response = await agents.app.inject({ method: 'GET', url: '/openapi.json' });
      const document = response.json() as {
        paths: Record<
          string,
          Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
        >;
        components?: { schemas?: Record<string, unknown> };
      };
      let schema = document.paths['/agents/{name}/invoke']?.post?.responses['200']?.content?.[
        'application/json'
      ]?.schema as { $ref?: string; required?: string[]; properties?: Record<string, { enum?: string[] }> };
      if (schema?.$ref)
        schema = document.components?.schemas?.[schema.$ref.split('/').at(-1) ?? ''] as typeof schema;
      assert.deepEqual(schema?.properties?.textFormat?.enum, ['plain', 'markdown']);
      assert.ok(schema?.required?.includes('textFormat'));
    });
  });
});
