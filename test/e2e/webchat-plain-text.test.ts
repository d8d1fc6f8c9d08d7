import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AgentsStub,
  openStream,
  type StreamActivity,
  startAgentsStub,
} from '../assistant-auth/helpers/directline-stream.ts';
import { suiteChatPageFamily } from '../helpers/chat-page-family.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { openWebChatPage, signInOnPage } from '../helpers/webchat-page.ts';

/** A device name anyone who signs a device in may choose: markdown and HTML, 64 characters (the limit). */
const HOSTILE_NAME = '[Verify account](https://evil.example/p) <b>bold</b> <img src=x>';
/** A new name the person types, echoed back in the confirmation. */
const HOSTILE_RENAME = '<i>Guest</i> [here](https://evil.example/q)';

/**
 * What a person or a device controls reaches the stock Web Chat as plain text: a device named with
 * markdown and HTML is listed with every character shown, and no link or element comes of it.
 */
describe('the chat page in Chromium: device names and echoed words are shown as text', () => {
  const suite = suiteChatPageFamily(async (core, clientApi) => {
    await signedInHousehold(core, clientApi, {
      accountNumber: 'WEB-2001',
      email: 'eve@example.test',
      devices: [
        ['web-evil', HOSTILE_NAME],
        ['web-liv', 'Living room'],
      ],
    });
  });

  it('lists a device named with markdown and HTML literally, with no link, <b> or <img> in the transcript', async () => {
    const chat = await openWebChatPage(suite.browser, suite.family.url('assistant-auth'));
    try {
      const { page } = chat;
      await signInOnPage(chat, 'eve@example.test');

      await chat.send('what devices do I have?');
      const listed = await chat.botSays(/You have \d+ devices/);
      assert.ok(listed.includes(HOSTILE_NAME), `every character shown: ${listed}`);

      await chat.send(`rename living room to ${HOSTILE_RENAME}`);
      const asked = await chat.botSays(/Do you want me to rename «Living room»/);
      assert.ok(asked.includes(`«${HOSTILE_RENAME}»`), `the echoed name shown as typed: ${asked}`);

      const bubbles = page.locator('.webchat__bubble');
      assert.equal(await bubbles.locator('a').count(), 0, 'no link in the transcript');
      assert.equal(await bubbles.locator('b, i, img, strong, em').count(), 0, 'no element from a name');
      // The answers came with textFormat "plain": Web Chat did not use its markdown renderer on them.
      const answers = page.locator('.webchat__bubble:not(.webchat__bubble--from-user)');
      assert.ok((await answers.locator('.webchat__text-content--is-plain').count()) >= 2);
      assert.equal(await answers.locator('.webchat__text-content--is-markdown').count(), 0);
      assert.deepEqual(await chat.failedSends(), []);
      assert.deepEqual(chat.problems, [], 'console errors, failed or external requests on the page');
    } finally {
      await chat.close();
    }
  });
});

/** The agent's answer on its way to Web Chat: the embedded channel keeps the text format it was given. */
describe('the embedded channel puts the agent’s textFormat on the bot’s activity', () => {
  let stub: AgentsStub;
  let core: TestCore;
  let close: () => Promise<void>;
  let apiKey: string;

  before(async () => {
    stub = await startAgentsStub();
    ({ core, close } = await startTestFamily(['assistant-auth'], { AGENTS_URL: `${stub.url}/` }));
    apiKey = (await core.apiKeys.create('client', 'web-chat')).key;
  });
  after(async () => {
    await close();
    await stub.close();
  });

  /** The bot's answer to one message in a new conversation, as its stream carries it. */
  async function answerTo(text: string): Promise<StreamActivity & { textFormat?: string }> {
    const base = core.serviceUrl('assistant-auth');
    const response = await fetch(`${base}/token/wss`, { headers: { 'x-api-key': apiKey } });
    const conversation = (await response.json()) as {
      conversationId: string;
      token: string;
      streamUrl: string;
    };
    const stream = await openStream(conversation.streamUrl);
    try {
      const posted = await fetch(
        `${base}/v3/directline/conversations/${conversation.conversationId}/activities`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${conversation.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'message', text, from: { id: 'someone' } }),
        },
      );
      const { id } = (await posted.json()) as { id: string };
      return await stream.waitFor((activity) => activity.replyToId === id && activity.type === 'message');
    } finally {
      await stream.close();
    }
  }

  it('as the agent said it, plain when it said nothing, plain on an error; a malformed one is a 502', async () => {
    const failure = {
      code: 'TOO_MANY_REQUESTS',
      message: 'Rate limit error. [retry](https://evil.example)',
      errors: [
        { type: 'AGENT_RATE_LIMIT_ERROR', message: 'Rate limit error. [retry](https://evil.example)' },
      ],
    };
    const cases: Array<[string, ReturnType<AgentsStub['answer']>, string]> = [
      ['markdown', { status: 200, body: { output: '**Tonight**', textFormat: 'markdown' } }, 'markdown'],
      [
        'plain',
        { status: 200, body: { output: 'A [link](https://evil.example)', textFormat: 'plain' } },
        'plain',
      ],
      ['unsaid', { status: 200, body: { output: 'A [link](https://evil.example)' } }, 'plain'],
      ['an error', { status: 429, headers: { 'retry-after': '7' }, body: failure }, 'plain'],
      ['malformed', { status: 200, body: { output: 'x', textFormat: 'html' } }, 'plain'],
    ];
    for (const [name, answer, textFormat] of cases) {
      stub.answer = () => answer;
      const activity = await answerTo(name);
      assert.equal(activity.textFormat, textFormat, name);
    }
    const malformed = await answerTo('malformed again');
    assert.match(malformed.text ?? '', /^The assistant could not answer: .*malformed textFormat/);
    assert.deepEqual(malformed.channelData, { error: { status: 502 } });
  });
});
