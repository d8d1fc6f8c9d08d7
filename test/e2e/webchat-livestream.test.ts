import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { DirectLineTables } from '../../src/assistant-auth/directline/tables.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { type ModelServer, startModelServer } from '../agents/helpers/model-server.ts';
import { launchChromium } from '../helpers/docs-page.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';
import { openWebChatPage } from '../helpers/webchat-page.ts';

const WORDS = ['Once ', 'upon ', 'a ', 'time ', 'a ', 'quick ', 'brown ', 'fox ', 'jumped.'];
const STORY = WORDS.join('');
/** Between two words of the model: slow enough that the page shows the answer as it grows. */
const WORD_GAP_MS = 400;

/**
 * The chat agent's answer reaches the stock Web Chat as it is generated (Web Chat's livestreaming: typing
 * activities with the text so far, then the final message), from an OpenAI-compatible endpoint that
 * streams slowly; only the final text is stored, so a client reading the conversation again never sees a
 * half answer.
 */
describe('livestreamed answers in the stock Web Chat', () => {
  let browser: Browser | undefined;
  let core: TestCore;
  let family: RunningFamily;
  let model: ModelServer;

  before(async () => {
    browser = await launchChromium();
    model = await startModelServer();
    model.handle((request, response) => {
      if (!request.body.stream) {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let index = 0;
      const next = () => {
        const word = WORDS[index++];
        if (word === undefined) {
          response.end('data: [DONE]\n\n');
          return;
        }
        response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: word } }] })}\n\n`);
        setTimeout(next, WORD_GAP_MS);
      };
      next();
    });
    core = await createTestCore({ CHAT_PAGE: 'on', MODEL_BASE_URL: model.baseUrl, DIRECTLINE_AGENT: 'chat' });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
  });
  after(async () => {
    await browser?.close();
    await family?.close();
    await model?.close();
    await core?.dispose();
  });

  it('shows the answer growing before it ends, then the whole answer once; the store holds the final text only', async () => {
    assert.ok(browser);
    const chat = await openWebChatPage(browser, family.url('assistant-auth'));
    try {
      await chat.send('tell me a story');
      const partial = await chat.botSays(/Once upon/);
      assert.ok(!partial.includes('jumped.'), `partial text on the page before the end: ${partial}`);
      assert.equal(await chat.botSays(/jumped\./), STORY.trim());
      const answers = (await chat.transcript()).filter((entry) => entry.text.startsWith('Once upon'));
      assert.deepEqual(answers, [{ from: 'bot', text: STORY.trim() }], 'one bubble, the final one');

      // The last interim may already hold the whole text: the stored answer can follow it by a moment.
      const activities = await until(async () => {
        const rows = await core.database.db
          .withTables<DirectLineTables>()
          .selectFrom('directline_activities')
          .select('activity')
          .execute();
        const parsed = rows.map(
          (row) =>
            JSON.parse(row.activity) as {
              type: string;
              text?: string;
              channelData?: { streamType?: string };
            },
        );
        return parsed.some((activity) => activity.text?.startsWith('Once upon')) ? parsed : undefined;
      }, 'the stored answer');
      const answer = activities.filter((activity) => activity.text?.startsWith('Once upon'));
      assert.equal(answer.length, 1, 'one stored answer');
      assert.equal(answer[0]?.type, 'message');
      assert.equal(answer[0]?.text, STORY);
      assert.equal(answer[0]?.channelData?.streamType, 'final');
      assert.ok(!activities.some((activity) => activity.type === 'typing'), 'no interim activity is stored');
      assert.deepEqual(chat.problems, []);
    } finally {
      await chat.close();
    }
  });
});
