import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import type { AgentTurn } from '../../src/agents/agent.ts';
import { agentChunks } from '../../src/agents/agent.ts';
import { createChatAgent } from '../../src/agents/chat/chat-agent.ts';
import { createModelClient } from '../../src/agents/chat/model-client.ts';
import type { AccountClient, AccountDevice } from '../../src/agents/tools/account-client.ts';
import { createConfirmations } from '../../src/agents/tools/confirmations.ts';
import { memoryAccount } from './helpers/memory-account.ts';
import {
  answerScripted,
  type ModelRequest,
  type ModelServer,
  type ScriptedTurn as Scripted,
  scriptedMessage,
  suiteCoreAndModel,
} from './helpers/model-server.ts';

const devices: AccountDevice[] = [
  { mediaPlayerId: 'mp-1', name: 'Bedroom TV', deviceClass: 'stb', enabled: true, playing: false },
  { mediaPlayerId: 'mp-2', name: 'Living room TV', deviceClass: 'stb', enabled: true, playing: true },
];

/** The linked account behind the tools, in memory (or none: an unlinked person). */
function memoryAccounts(linked = true) {
  const { session, ran } = memoryAccount(devices, { playing: ['mp-2'] });
  const client: AccountClient = {
    forSpeaker: async () => (linked ? { linked: true, session } : { linked: false }),
  };
  return { client, ran };
}

function answerWith(model: ModelServer, script: Scripted[]) {
  let turn = 0;
  model.handle((request, response) => {
    const next = script[turn++] ?? { text: 'out of script' };
    if (request.body.stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if ('text' in next) {
        for (const word of next.text.split(/(?<= )/)) {
          response.write(
            `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: word } }] })}\n\n`,
          );
        }
      } else {
        next.calls.forEach((call, index) => {
          // As OpenAI streams them: the id and name first, then the arguments in two parts.
          const half = Math.floor(call.arguments.length / 2);
          const parts = [
            {
              index,
              id: `call_${turn}_${index}`,
              type: 'function',
              function: { name: call.name, arguments: '' },
            },
            { index, function: { arguments: call.arguments.slice(0, half) } },
            { index, function: { arguments: call.arguments.slice(half) } },
          ];
          for (const part of parts) {
            response.write(
              `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [part] } }] })}\n\n`,
            );
          }
        });
      }
      response.end('data: [DONE]\n\n');
      return;
    }
    answerScripted(
      request,
      response,
      scriptedMessage(next, (index) => `call_${turn}_${index}`),
    );
  });
}

describe('the chat agent’s account tools through the OpenAI tools API', () => {
  const fx = suiteCoreAndModel();
  beforeEach(() => {
    fx.model.requests.length = 0;
  });

  const agentFor = (client: AccountClient) =>
    createChatAgent(
      createModelClient({ baseUrl: fx.model.baseUrl, model: 'scripted', timeoutMs: 5000 }),
      'scripted',
      { client, confirmations: createConfirmations(fx.core) },
    );
  const turn = (input: string, speaker: string, conversationId: string): AgentTurn => ({
    input,
    conversationId,
    speaker: { assistantId: speaker },
    signal: new AbortController().signal,
  });

  /** Answers a turn by invoke, or streamed and gathered. */
  const runIn = (streamed: boolean) => async (agent: ReturnType<typeof agentFor>, at: AgentTurn) => {
    if (!streamed) return agent.invoke(at);
    let output = '';
    for await (const chunk of agentChunks(agent, at)) output += chunk;
    return { output };
  };
  /** Defines its cases once not streamed and once streamed, with `run` and `mode` (for their titles). */
  const eachMode = (define: (run: ReturnType<typeof runIn>, mode: string, streamed: boolean) => void) => {
    for (const streamed of [false, true])
      define(runIn(streamed), streamed ? 'streamed' : 'not streamed', streamed);
  };

  describe('happy', () => {
    eachMode((run, mode, streamed) => {
      it(`${mode}: runs a read-only tool and gives its result back to the fx.model, which answers`, async () => {
        const { client } = memoryAccounts();
        answerWith(fx.model, [
          { calls: [{ name: 'list_devices', arguments: '{}' }] },
          { text: 'You have a Bedroom TV and a Living room TV.' },
        ]);
        const answer = await run(
          agentFor(client),
          turn('what devices do I have?', randomUUID(), randomUUID()),
        );
        assert.equal(answer.output, 'You have a Bedroom TV and a Living room TV.');
        const [first, second] = fx.model.requests as Array<
          ModelRequest & { body: { tools?: Array<{ function: { name: string } }> } }
        >;
        assert.deepEqual(
          first?.body.tools?.map((tool) => tool.function.name),
          [
            'list_devices',
            'whats_playing',
            'rename_device',
            'set_device_enabled',
            'sign_out_device',
            'continue_watching',
            'where_was_i',
            'device_limit',
            'sign_out_everywhere',
            'approve_tv_sign_in',
            'whos_watching',
            'control_device',
            'hand_off',
          ],
        );
        const messages = second?.body.messages as Array<{
          role: string;
          content: string | null;
          tool_call_id?: string;
        }>;
        const result = messages.find((message) => message.role === 'tool');
        assert.ok(result?.tool_call_id);
        assert.deepEqual(
          (JSON.parse(result.content ?? '') as { devices: AccountDevice[] }).devices.map(
            (device) => device.name,
          ),
          ['Bedroom TV', 'Living room TV'],
        );
      });

      it(`${mode}: a change the fx.model asks for becomes a confirmation; only the person’s yes runs it, once`, async () => {
        const { client, ran } = memoryAccounts();
        const agent = agentFor(client);
        const speaker = randomUUID();
        const conversation = randomUUID();
        answerWith(fx.model, [{ calls: [{ name: 'sign_out_device', arguments: '{"device":"bedroom"}' }] }]);
        const asked = await run(agent, turn('sign the bedroom tv out please', speaker, conversation));
        assert.match(asked.output, /sign «Bedroom TV» out/);
        if (!streamed) {
          assert.deepEqual(
            (
              asked as { suggestedActions?: { actions: Array<{ value: unknown }> } }
            ).suggestedActions?.actions.map((action) => action.value),
            ['Yes', 'No'],
          );
        }
        assert.deepEqual(ran, []);
        const calls = fx.model.requests.length;
        const done = await run(agent, turn('yes', speaker, conversation));
        assert.match(done.output, /Bedroom TV/);
        assert.deepEqual(ran, ['sign-out mp-1']);
        assert.equal(fx.model.requests.length, calls, 'the yes is settled without the fx.model');
        const again = await run(agent, turn('yes', speaker, conversation));
        assert.match(again.output, /nothing waiting/);
        assert.deepEqual(ran, ['sign-out mp-1']);
      });
    });
  });

  describe('errors', () => {
    eachMode((run, mode) => {
      it(`${mode}: an unknown tool or malformed arguments go back to the fx.model as errors; nothing runs`, async () => {
        const { client, ran } = memoryAccounts();
        answerWith(fx.model, [
          {
            calls: [
              { name: 'delete_account', arguments: '{}' },
              { name: 'sign_out_device', arguments: '{"device": ' },
              { name: 'rename_device', arguments: '{"device":"bedroom"}' },
            ],
          },
          { text: 'Sorry, I could not do that.' },
        ]);
        const answer = await run(agentFor(client), turn('do something odd', randomUUID(), randomUUID()));
        assert.equal(answer.output, 'Sorry, I could not do that.');
        const messages = fx.model.requests[1]?.body.messages as Array<{ role: string; content: string }>;
        const results = messages
          .filter((message) => message.role === 'tool')
          .map((message) => JSON.parse(message.content).status);
        assert.deepEqual(results, ['unknown_tool', 'invalid_arguments', 'invalid_arguments']);
        assert.deepEqual(ran, []);
      });

      it(`${mode}: a fx.model that never stops calling tools is a 502 AGENT_MODEL_ERROR`, async () => {
        const { client } = memoryAccounts();
        answerWith(
          fx.model,
          Array.from({ length: 10 }, () => ({ calls: [{ name: 'whats_playing', arguments: '{}' }] })),
        );
        await assert.rejects(
          run(agentFor(client), turn('loop', randomUUID(), randomUUID())),
          (error: Error & { status?: number; type?: string }) => {
            assert.equal(error.status, 502);
            assert.equal(error.type, 'AGENT_MODEL_ERROR');
            return true;
          },
        );
      });
    });
  });

  describe('security', () => {
    eachMode((run, mode) => {
      it(`${mode}: "no" or another request cancels; another conversation cannot confirm`, async () => {
        const { client, ran } = memoryAccounts();
        const agent = agentFor(client);
        const speaker = randomUUID();
        const conversation = randomUUID();
        answerWith(fx.model, [
          { calls: [{ name: 'rename_device', arguments: '{"device":"living room tv","name":"Salón"}' }] },
          { calls: [{ name: 'set_device_enabled', arguments: '{"device":"bedroom tv","enabled":false}' }] },
          { text: 'The guide is on channel 0.' },
        ]);
        await run(agent, turn('rename the living room tv to Salón', speaker, conversation));
        await run(agent, turn('no', speaker, conversation));
        assert.match((await run(agent, turn('yes', speaker, conversation))).output, /nothing waiting/);
        await run(agent, turn('disable the bedroom tv', speaker, conversation));
        assert.match((await run(agent, turn('yes', speaker, randomUUID()))).output, /nothing waiting/);
        await run(agent, turn('where is the guide?', speaker, conversation));
        assert.match((await run(agent, turn('yes', speaker, conversation))).output, /nothing waiting/);
        assert.deepEqual(ran, []);
      });
    });

    it('offers no tools to an anonymous person, and tells an unlinked one how to link', async () => {
      answerWith(fx.model, [{ text: 'Hello!' }]);
      const agent = agentFor(memoryAccounts().client);
      await agent.invoke({ input: 'hello', signal: new AbortController().signal });
      const first = fx.model.requests[0];
      assert.ok(first, 'the fx.model was asked');
      assert.equal((first.body as { tools?: unknown }).tools, undefined);
      const unlinked = agentFor(memoryAccounts(false).client);
      const calls = fx.model.requests.length;
      const answer = await unlinked.invoke(turn('what devices do I have?', randomUUID(), randomUUID()));
      assert.match(answer.output, /account linked/);
      assert.equal(fx.model.requests.length, calls, 'no account data, no fx.model call');
    });
  });
});
