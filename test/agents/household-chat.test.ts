import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { agentChunks } from '../../src/agents/agent.ts';
import { createChatAgent } from '../../src/agents/chat/chat-agent.ts';
import { createModelClient } from '../../src/agents/chat/model-client.ts';
import {
  type HouseholdFamily,
  type LinkedHousehold,
  startHouseholdFamily,
} from './helpers/household-family.ts';
import {
  answerScripted,
  type ModelServer,
  scriptedMessage,
  startModelServer,
} from './helpers/model-server.ts';

/** A scripted model turn: a text answer, or one tool call. */
type Scripted = { text: string } | { tool: string; args: Record<string, unknown> };

/**
 * The household in the chat agent (issue 43 item 6): its model calls whos_watching, control_device and
 * hand_off against the real client-api; a change is asked about in the person's language and runs only
 * after their yes, without the model; the answer tells the result (sent, not connected, too many commands).
 */
describe('the chat agent: the household tools, after a yes', () => {
  let family: HouseholdFamily;
  let model: ModelServer;
  let home: LinkedHousehold;
  let casa: LinkedHousehold;
  /** What the model was given back by the tools (the `tool` messages of its last request). */
  const toolResults = () => {
    const messages = (model.requests.at(-1)?.body.messages ?? []) as Array<{ role: string; content: string }>;
    return messages
      .filter((message) => message.role === 'tool')
      .map((message) => JSON.parse(message.content));
  };

  before(async () => {
    // Few commands per sender: the assistant's own sends meet the limit within the suite.
    family = await startHouseholdFamily({ COMMANDS_PER_SENDER: '4' });
    model = await startModelServer();
    home = await family.household('HC-EN', [
      ['hc-living', 'Living room TV'],
      ['hc-kids', "Kids' tablet"],
      ['hc-bedroom', 'Bedroom TV'],
    ]);
    casa = await family.household('HC-ES', [
      ['hc-salon', 'Tele del salón'],
      ['hc-dormitorio', 'Tele del dormitorio'],
    ]);
  });
  after(async () => {
    await model.close();
    await family.close();
  });
  beforeEach(async () => {
    await family.releaseAll();
    model.requests.length = 0;
    await family.stopAll(home);
    await family.stopAll(casa);
  });

  function script(turns: Scripted[]) {
    let at = 0;
    model.handle((request, response) => {
      const next = turns[at++] ?? { text: 'out of script' };
      const turn =
        'text' in next ? next : { calls: [{ name: next.tool, arguments: JSON.stringify(next.args) }] };
      answerScripted(
        request,
        response,
        scriptedMessage(turn, () => `call_${at}`),
      );
    });
  }
  const agent = () =>
    createChatAgent(
      createModelClient({ baseUrl: model.baseUrl, model: 'scripted', timeoutMs: 5000 }),
      'scripted',
      family.accounts,
    );

  describe('happy', () => {
    it('whos_watching: the model gets each stream (device, content, position) and the limit, and answers', async () => {
      await family.play(home, 'hc-living', 42, 720);
      script([{ tool: 'whos_watching', args: {} }, { text: 'The living room TV is playing content 42.' }]);
      const answer = await agent().invoke(home.turn("what's on at home right now?"));
      assert.equal(answer.output, 'The living room TV is playing content 42.');
      const [result] = toolResults();
      assert.equal(result.status, 'watching');
      assert.equal(result.limit, 2);
      assert.deepEqual(
        result.streams.map((stream: Record<string, unknown>) => [
          stream.name,
          stream.contentId,
          stream.offset,
        ]),
        [['Living room TV', 42, 720]],
      );
    });

    it('control_device: asked in Spanish, sent after "sí" without the model, the TV told to pause', async () => {
      const tele = await family.hold(casa, 'hc-salon');
      script([{ tool: 'control_device', args: { device: 'tele del salon', command: 'pause' } }]);
      const conversation = randomUUID();
      const asked = await agent().invoke(casa.turn('pon en pausa la tele del salón', conversation));
      assert.equal(asked.output, '¿Quieres que vaya a pausar «Tele del salón»?');
      assert.deepEqual(
        asked.suggestedActions?.actions.map((action) => action.title),
        ['Sí', 'No'],
      );
      assert.equal(tele.events.length, 0, 'nothing before the yes');
      const calls = model.requests.length;
      const done = await agent().invoke(casa.turn('sí', conversation));
      assert.equal(done.output, 'Enviado: he pedido a «Tele del salón» que haga una pausa.');
      assert.equal(model.requests.length, calls, 'the yes is settled without the model');
      assert.equal((await family.command(casa, 'hc-salon', tele)).type, 'pause');
    });

    it('hand_off: from the device playing to the one named, after the yes; nothing playing is said', async () => {
      const bedroom = await family.hold(home, 'hc-bedroom');
      await family.play(home, 'hc-kids', 7, 40);
      script([{ tool: 'hand_off', args: { to: 'bedroom' } }]);
      const conversation = randomUUID();
      const asked = await agent().invoke(home.turn('continue this on the bedroom TV', conversation));
      assert.match(asked.output, /^Do you want me to move what «Kids' tablet» is playing to «Bedroom TV»/);
      const done = await agent().invoke(home.turn('yes', conversation));
      assert.equal(
        done.output,
        "Sent: «Kids' tablet» was told to stop and «Bedroom TV» to play content 7 from 40 s.",
      );
      const play = await family.command(home, 'hc-bedroom', bedroom);
      assert.deepEqual([play.type, play.contentId, play.offset], ['play', 7, 40]);

      await family.stopAll(home);
      script([{ tool: 'hand_off', args: { to: 'Bedroom TV' } }, { text: 'Nothing is playing to move.' }]);
      const nothing = await agent().invoke(home.turn('continue on the bedroom TV', randomUUID()));
      assert.equal(nothing.output, 'Nothing is playing to move.');
      assert.deepEqual(toolResults()[0], { status: 'nothing_playing', to: 'Bedroom TV' });
    });
  });

  describe('errors', () => {
    it('control_device, streamed: a device not connected is said so after the yes', async () => {
      script([{ tool: 'control_device', args: { device: 'Bedroom TV', command: 'stop' } }]);
      const conversation = randomUUID();
      let asked = '';
      for await (const chunk of agentChunks(agent(), home.turn('stop the bedroom tv please', conversation))) {
        asked += chunk;
      }
      assert.equal(asked, 'Do you want me to stop «Bedroom TV»?');
      const refused = await agent().invoke(home.turn('yes', conversation));
      assert.equal(
        refused.output,
        "I could not stop «Bedroom TV»: it isn't connected right now (its Sintonia app must be open).",
      );
    });

    it('too many commands from the assistant: the yes is answered with the refusal, nothing more is sent', async () => {
      const tablet = await family.hold(home, 'hc-kids');
      let refused = '';
      let sent = 0;
      // COMMANDS_PER_SENDER is 4: within five asks the assistant's commands meet it, whatever came before.
      for (let attempt = 0; attempt < 5 && !refused; attempt++) {
        script([{ tool: 'control_device', args: { device: "kids' tablet", command: 'pause' } }]);
        const conversation = randomUUID();
        await agent().invoke(home.turn('pause the tablet', conversation));
        const answer = (await agent().invoke(home.turn('yes', conversation))).output;
        if (answer.startsWith('Sent:')) sent++;
        else refused = answer;
      }
      assert.equal(
        refused,
        "I could not pause «Kids' tablet»: too many commands were sent just now; try again in a minute.",
      );
      for (let index = 0; index < sent; index++) {
        assert.equal((await family.command(home, 'hc-kids', tablet)).type, 'pause');
      }
      assert.equal(tablet.events.length, sent, 'the refused one never reached the tablet');
    });
  });
});
