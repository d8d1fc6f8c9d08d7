import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/docs-page.ts';
import { startTestFamily } from '../helpers/harness.ts';
import { openWebChatPage, type WebChatPage } from '../helpers/webchat-page.ts';

/** What the assistant agent answers, as Web Chat shows it (typographic apostrophes included). */
const GREETING = /Sintonia assistant\. I can help with what.s on/;
const HELP = /record programmes, continue watching and manage your devices/;
const THANKS = /You.re welcome!/;

/** Nothing the person would notice went wrong: no console error, failed request or failed send. */
async function assertClean(chat: WebChatPage): Promise<void> {
  assert.deepEqual(await chat.failedSends(), [], 'messages marked "send failed"');
  assert.deepEqual(chat.problems, [], 'console errors, failed or external requests on the page');
}

/** One exchange: the person sends `text`, the transcript shows it and then the assistant's answer. */
async function converse(chat: WebChatPage, text: string, answer: RegExp): Promise<void> {
  await chat.send(text);
  await chat.botSays(answer);
  const transcript = await chat.transcript();
  assert.ok(
    transcript.some((entry) => entry.from === 'user' && entry.text === text),
    `the person's message in ${JSON.stringify(transcript)}`,
  );
}

describe('the chat page in Chromium: the stock Web Chat against the embedded Direct Line channel', () => {
  let browser: Browser | undefined;
  let running: Awaited<ReturnType<typeof startTestFamily>> | undefined;
  const open = (transport: 'websocket' | 'polling') => {
    assert.ok(browser && running);
    return openWebChatPage(browser, running.family.url('assistant-auth'), { transport });
  };

  before(async () => {
    // First: without Chromium the whole suite fails here, with the message saying how to install it.
    browser = await launchChromium();
    running = await startTestFamily(['assistant-auth', 'agents'], { CHAT_PAGE: 'on' });
  });
  after(async () => {
    await browser?.close();
    await running?.close();
  });

  it('websocket: connects, sends, shows the answer; nothing failed', async () => {
    const chat = await open('websocket');
    try {
      await converse(chat, 'hello', GREETING);
      await converse(chat, 'thanks', THANKS);
      assert.equal(chat.socketsOpened(), 1, 'one Direct Line stream');
      const transcript = await chat.transcript();
      assert.deepEqual(
        transcript.map((entry) => entry.from),
        ['user', 'bot', 'user', 'bot'],
        JSON.stringify(transcript),
      );
      const screenshot = process.env.SINTONIA_CHAT_SCREENSHOT;
      if (screenshot) {
        mkdirSync(dirname(screenshot), { recursive: true });
        await chat.page.screenshot({ path: screenshot });
      }
      await assertClean(chat);
    } finally {
      await chat.close();
    }
  });

  it('websocket: after the stream drops, Web Chat reconnects and the next message is answered once', async () => {
    const chat = await open('websocket');
    try {
      await converse(chat, 'hello', GREETING);
      // The Direct Line client waits 3 to 15 s (at random) before it reconnects a dropped stream.
      const reopened = chat.page.waitForEvent('websocket', { timeout: 25_000 });
      assert.equal(await chat.dropSockets(), 1, 'one open stream dropped');
      await reopened;
      await chat.connected();
      await converse(chat, 'what can you do?', HELP);
      const transcript = await chat.transcript();
      assert.deepEqual(
        transcript.map((entry) => entry.from),
        ['user', 'bot', 'user', 'bot'],
        `no message lost or shown twice: ${JSON.stringify(transcript)}`,
      );
      assert.equal(chat.socketsOpened(), 2);
      await assertClean(chat);
    } finally {
      await chat.close();
    }
  });

  it('polling (webSocket: false): connects, sends, shows the answer, opens no websocket', async () => {
    const chat = await open('polling');
    try {
      await converse(chat, 'hello', GREETING);
      await converse(chat, 'what can you do?', HELP);
      assert.equal(chat.socketsOpened(), 0);
      assert.equal(await chat.page.locator('#webchat').getAttribute('data-transport'), 'polling');
      await assertClean(chat);
    } finally {
      await chat.close();
    }
  });

  for (const transport of ['websocket', 'polling'] as const) {
    it(`${transport}: a file picked with the upload button goes with the next message, is shown and answered`, async () => {
      const chat = await open(transport);
      try {
        const content = 'Sintonia upload check\n';
        await chat.upload({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(content) });
        await converse(chat, 'what can you do?', HELP);
        // The person's message shows the file, linked to the copy the channel keeps.
        const sent = chat.page
          .locator('.webchat__stacked-layout--from-user')
          .filter({ hasText: 'notes.txt' })
          .last();
        await sent.waitFor({ timeout: 15_000 });
        const href = await sent.locator('a[href]').first().getAttribute('href');
        assert.ok(href && !href.startsWith('blob:'), `the file's link points at the channel: ${href}`);
        const downloaded = await chat.page.evaluate(async (url) => (await fetch(url)).text(), href);
        assert.equal(downloaded, content);
        await converse(chat, 'thanks', THANKS);
        await assertClean(chat);
      } finally {
        await chat.close();
      }
    });
  }
});
