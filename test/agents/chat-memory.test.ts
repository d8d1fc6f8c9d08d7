import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { AgentTurn } from '../../src/agents/agent.ts';
import { agentChunks } from '../../src/agents/agent.ts';
import { createChatAgent } from '../../src/agents/chat/chat-agent.ts';
import { createChatHistory } from '../../src/agents/chat/history.ts';
import { createModelClient } from '../../src/agents/chat/model-client.ts';
import type { AccountClient } from '../../src/agents/tools/account-client.ts';
import { createConfirmations } from '../../src/agents/tools/confirmations.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { memoryAccount } from './helpers/memory-account.ts';
import {
  answerScripted,
  type ModelServer,
  scriptedMessage,
  startModelServer,
} from './helpers/model-server.ts';

type Sent = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };

/**
 * The chat agent remembers a conversation from the store: the model's next request carries the earlier
 * turns (tool calls and their results, and how a confirmation ended), within CHAT_HISTORY_TOKENS, whole
 * turns only, and for that conversation and speaker only; another agent instance on the same store
 * (another process) remembers it as well.
 */
describe('the chat agent’s conversation memory', () => {
  let core: TestCore;
  let model: ModelServer;
  /** The next model answers: text, or one tool call. */
  let script: Array<{ text: string } | { call: string; arguments: string }>;

  before(async () => {
    core = await createTestCore();
    model = await startModelServer();
    model.handle((request, response) => {
      const next = script.shift() ?? { text: 'out of script' };
      const turn = 'text' in next ? next : { calls: [{ name: next.call, arguments: next.arguments }] };
      answerScripted(
        request,
        response,
        scriptedMessage(turn, () => `call_${randomUUID().slice(0, 8)}`),
      );
    });
  });
  after(async () => {
    await model.close();
    await core.dispose();
  });
  beforeEach(() => {
    model.requests.length = 0;
    script = [];
  });

  const { session, ran } = memoryAccount([
    { mediaPlayerId: 'mp-1', name: 'Bedroom TV', deviceClass: 'stb', enabled: true, playing: false },
  ]);
  const accounts = (): { client: AccountClient; confirmations: ReturnType<typeof createConfirmations> } => ({
    client: { forSpeaker: async () => ({ linked: true, session }) },
    confirmations: createConfirmations(core),
  });
  const agent = (budgetTokens = 2000, linked = false) =>
    createChatAgent(
      createModelClient({ baseUrl: model.baseUrl, model: 'scripted', timeoutMs: 5000 }),
      'scripted',
      linked ? accounts() : undefined,
      createChatHistory({ database: core.database, key: (purpose) => core.key(purpose), budgetTokens }),
    );
  const turn = (input: string, conversationId: string, speaker?: string): AgentTurn => ({
    input,
    conversationId,
    signal: new AbortController().signal,
    ...(speaker ? { speaker: { assistantId: speaker } } : {}),
  });
  const sent = (index: number) =>
    ((model.requests[index]?.body.messages ?? []) as Sent[]).map((message) =>
      message.tool_calls
        ? `${message.role}:call ${message.tool_calls.map((call) => call.function.name).join(',')}`
        : `${message.role}:${message.role === 'tool' ? JSON.parse(message.content ?? '{}').status : message.content}`,
    );

  describe('happy', () => {
    it('the second request carries the first exchange; another conversation or another process', async () => {
      const conversation = randomUUID();
      script = [
        { text: 'Hello Ana.' },
        { text: 'Your name is Ana.' },
        { text: 'I do not know.' },
        { text: 'Ana.' },
      ];
      const first = agent();
      assert.equal((await first.invoke(turn('My name is Ana.', conversation))).output, 'Hello Ana.');
      assert.equal((await first.invoke(turn('What is my name?', conversation))).output, 'Your name is Ana.');
      assert.deepEqual(sent(1).slice(1), [
        'user:My name is Ana.',
        'assistant:Hello Ana.',
        'user:What is my name?',
      ]);
      await first.invoke(turn('What is my name?', randomUUID()));
      assert.deepEqual(sent(2).slice(1), ['user:What is my name?'], 'another conversation remembers nothing');
      // Another process: its own agent and history over the same store.
      let chunks = '';
      for await (const chunk of agentChunks(agent(), turn('And now?', conversation))) chunks += chunk;
      assert.equal(chunks, 'Ana.');
      assert.deepEqual(sent(3).slice(1, 5), [
        'user:My name is Ana.',
        'assistant:Hello Ana.',
        'user:What is my name?',
        'assistant:Your name is Ana.',
      ]);
    });

    it('remembers tool calls with their results and how a confirmation ended, so "rename it" works', async () => {
      const conversation = randomUUID();
      const speaker = randomUUID();
      const chat = agent(2000, true);
      script = [
        { call: 'list_devices', arguments: '{}' },
        { text: 'You have a Bedroom TV.' },
        { call: 'rename_device', arguments: '{"device":"Bedroom TV","name":"Kitchen"}' },
      ];
      await chat.invoke(turn('what devices do I have?', conversation, speaker));
      const asked = await chat.invoke(turn('rename it to Kitchen', conversation, speaker));
      assert.match(asked.output, /Do you want me to rename «Bedroom TV» to «Kitchen»/);
      assert.deepEqual(sent(2).slice(1), [
        'user:what devices do I have?',
        'assistant:call list_devices',
        'tool:devices',
        'assistant:You have a Bedroom TV.',
        'user:rename it to Kitchen',
      ]);
      assert.match((await chat.invoke(turn('yes', conversation, speaker))).output, /Done/);
      assert.deepEqual(ran, ['rename mp-1 Kitchen']);
      script = [{ text: 'It is called Kitchen now.' }];
      await chat.invoke(turn('what is it called now?', conversation, speaker));
      assert.deepEqual(sent(3).slice(6), [
        'assistant:call rename_device',
        'tool:confirmation_required',
        'assistant:Do you want me to rename «Bedroom TV» to «Kitchen»?',
        'user:yes',
        'assistant:Done: «Bedroom TV» is now called «Kitchen».',
        'user:what is it called now?',
      ]);
      script = [{ text: 'No idea.' }];
      await chat.invoke(turn('what is it called now?', conversation, randomUUID()));
      assert.equal(sent(4).length, 2, 'another speaker in the same conversation hears none of it');
    });

    it('keeps within the token budget, whole turns only, the most recent first; 0 remembers nothing', async () => {
      const conversation = randomUUID();
      script = [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }];
      // A turn of two short messages counts about 20 tokens: a budget of 30 holds the last turn only.
      const small = agent(30);
      for (const input of ['first', 'second', 'third']) await small.invoke(turn(input, conversation));
      assert.deepEqual(sent(2).slice(1), ['user:second', 'assistant:two', 'user:third']);
      const none = randomUUID();
      script = [{ text: 'a' }, { text: 'b' }];
      const forgetful = agent(0);
      await forgetful.invoke(turn('first', none));
      await forgetful.invoke(turn('second', none));
      assert.deepEqual(sent(4).slice(1), ['user:second']);
    });
  });
});
