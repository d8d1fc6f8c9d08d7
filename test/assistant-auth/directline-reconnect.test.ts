import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/core/config.ts';
import { type Core, openCore } from '../../src/core/core.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { freePort, startServe } from '../helpers/processes.ts';
import {
  type AgentsStub,
  openStream,
  type StreamActivity,
  startAgentsStub,
} from './helpers/directline-stream.ts';
import { type ConversationAnswer, directLineJson } from './helpers/directline-wire.ts';

describe('embedded Direct Line channel: reconnecting after a dropped socket', () => {
  let stub: AgentsStub;
  let core: TestCore;
  let closeFirst: () => Promise<void>;
  let second: { core: Core; family: RunningFamily } | undefined;

  before(async () => {
    stub = await startAgentsStub();
    ({ core, close: closeFirst } = await startTestFamily(['assistant-auth'], { AGENTS_URL: stub.url }));
  });
  after(async () => {
    await second?.family.close();
    await second?.core.close();
    await closeFirst();
    await stub.close();
  });

  describe('happy', () => {
    it('replays from the watermark on another process, misses nothing, then delivers across processes', async () => {
      const first = core.serviceUrl('assistant-auth');
      const apiKey = (await core.apiKeys.create('client', 'web-chat')).key;
      const wss = await fetch(`${first}/token/wss`, { headers: { 'x-api-key': apiKey } });
      const conversation = (await wss.json()) as ConversationAnswer;
      const path = `/v3/directline/conversations/${conversation.conversationId}`;
      const say = async (base: string, text: string) => {
        const posted = await directLineJson(base, 'POST', `${path}/activities`, conversation.token, {
          type: 'message',
          text,
        });
        assert.equal(posted.status, 200);
        return String(posted.body.id);
      };

      // 1. Connected: a question and its answer; remember the watermark, then the socket drops.
      const stream = await openStream(conversation.streamUrl);
      const one = await say(first, 'one');
      await stream.waitFor((activity) => activity.replyToId === one && activity.type === 'message');
      const watermark = stream.sets.filter((set) => set.watermark).at(-1)?.watermark;
      assert.equal(watermark, '2');
      stream.socket.terminate();
      await stream.closed;

      // 2. While nobody listens, another question is asked and answered.
      const two = await say(first, 'two');
      for (const deadline = Date.now() + 15000; Date.now() < deadline; ) {
        const listed = await directLineJson(
          first,
          'GET',
          `${path}/activities?watermark=${watermark}`,
          conversation.token,
        );
        if ((listed.body.activities as StreamActivity[]).length === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

      // 3. Another process on the same store serves the reconnect with the old watermark.
      const otherCore = await openCore(loadConfig(core.env as NodeJS.ProcessEnv));
      second = { core: otherCore, family: await startFamily(otherCore, ['assistant-auth']) };
      const other = second.family.url('assistant-auth');
      assert.notEqual(other, first);
      const reconnect = await directLineJson(
        other,
        'GET',
        `${path}?watermark=${watermark}`,
        conversation.token,
      );
      assert.equal(reconnect.status, 200);
      const streamUrl = String(reconnect.body.streamUrl);
      assert.ok(streamUrl.startsWith(other.replace(/^http/, 'ws')), streamUrl);
      const resumed = await openStream(streamUrl);
      await resumed.waitFor((activity) => activity.replyToId === two && activity.type === 'message');
      assert.deepEqual(
        resumed.activities().map((activity) => activity.text),
        ['two', 'echo: two'],
        'exactly what came after the watermark',
      );
      assert.equal(resumed.sets.filter((set) => set.watermark).at(-1)?.watermark, '4');

      // 4. A message the first process takes reaches the socket held by the second.
      const three = await say(first, 'three');
      const answer = await resumed.waitFor(
        (activity) => activity.replyToId === three && activity.type === 'message',
      );
      assert.equal(answer.text, 'echo: three');
      assert.deepEqual(
        resumed
          .activities()
          .filter((activity) => activity.type === 'message')
          .map((activity) => activity.text),
        ['two', 'echo: two', 'three', 'echo: three'],
      );

      // 5. A reconnect without a watermark replays nothing old, only what comes next.
      await resumed.close();
      const fresh = await directLineJson(other, 'GET', path, conversation.token);
      const latest = await openStream(String(fresh.body.streamUrl));
      const four = await say(other, 'four');
      await latest.waitFor((activity) => activity.replyToId === four && activity.type === 'message');
      assert.deepEqual(
        latest
          .activities()
          .filter((activity) => activity.type === 'message')
          .map((activity) => activity.text),
        ['four', 'echo: four'],
      );
      await latest.close();
    });
  });

  describe('errors', () => {
    it('a message whose answering process was killed mid-call is answered by the next process', async () => {
      const question = 'are you still there?';
      stub.answer = (agentCall) =>
        agentCall.body.input === question
          ? undefined
          : { status: 200, body: { output: `echo: ${agentCall.body.input}` } };
      const apiKey = (await core.apiKeys.create('client', 'crash-test')).key;
      // The child's agent timeout is 3000 + 500 ms, so its claim on the message runs out 7 s after the post.
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const served = await startServe(
        ['--service', 'assistant-auth'],
        {
          ...core.env,
          ASSISTANT_AUTH_PORT: String(port),
          AGENTS_URL: stub.url,
          MODEL_TIMEOUT_MS: '3000',
          SUBSYSTEM_TIMEOUT_MS: '500',
        },
        [base],
      );
      let conversation: ConversationAnswer;
      let questionId: string;
      let postedAt: number;
      try {
        const wss = await fetch(`${base}/token/wss`, { headers: { 'x-api-key': apiKey } });
        conversation = (await wss.json()) as ConversationAnswer;
        const calls = stub.calls.length;
        postedAt = Date.now();
        const posted = await directLineJson(
          base,
          'POST',
          `/v3/directline/conversations/${conversation.conversationId}/activities`,
          conversation.token,
          {
            type: 'message',
            text: question,
          },
        );
        assert.equal(posted.status, 200);
        questionId = String(posted.body.id);
        for (const deadline = Date.now() + 15000; stub.calls.length === calls && Date.now() < deadline; ) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.equal(stub.calls.at(-1)?.body.input, question, 'the agent was asked');
      } finally {
        served.child.kill('SIGKILL');
        await served.exited;
      }
      stub.answer = (agentCall) => ({ status: 200, body: { output: `echo: ${agentCall.body.input}` } });

      await new Promise((resolve) => setTimeout(resolve, Math.max(0, postedAt + 7500 - Date.now())));
      const nextCore = await openCore(loadConfig(core.env as NodeJS.ProcessEnv));
      const next = await startFamily(nextCore, ['assistant-auth']);
      try {
        const path = `/v3/directline/conversations/${conversation.conversationId}/activities`;
        let answer: StreamActivity | undefined;
        for (const deadline = Date.now() + 20000; !answer && Date.now() < deadline; ) {
          const listed = await directLineJson(next.url('assistant-auth'), 'GET', path, conversation.token);
          answer = (listed.body.activities as StreamActivity[]).find(
            (activity) => activity.replyToId === questionId,
          );
          if (!answer) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        assert.equal(answer?.text, `echo: ${question}`);
        assert.equal(answer?.from.role, 'bot');
      } finally {
        await next.close();
        await nextCore.close();
      }
    });
  });
});
