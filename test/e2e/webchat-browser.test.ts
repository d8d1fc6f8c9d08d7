import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { channelSecret } from '../../src/assistant-auth/directline/credentials.ts';
import { launchChromium } from '../helpers/docs-page.ts';
import { startTestFamily } from '../helpers/harness.ts';
import { freePort, startServe } from '../helpers/processes.ts';
import { openWebChatPage, PAGE_STEP_CEILING_MS, type WebChatPage } from '../helpers/webchat-page.ts';

/** What the assistant agent answers, as Web Chat shows it (typographic apostrophes included). */
const GREETING = /Sintonia assistant\. I can help with what.s on/;
const HELP = /check what's on and record programmes. Once you sign in/;
const THANKS = /You.re welcome!/;
const FILE_AND_HELP = /I received your file notes\.txt \(22 bytes\)[\s\S]*record programmes/;

/** Nothing the person would notice went wrong: no console error, failed request or failed send. */
async function assertClean(chat: WebChatPage): Promise<void> {
  assert.deepEqual(await chat.failedSends(), [], 'messages marked "send failed"');
  assert.deepEqual(chat.problems, [], 'console errors, failed or external requests on the page');
}

/**
 * A file picked with Web Chat's upload button goes with the next message: the assistant acknowledges it,
 * and the person's message links the file to the copy the channel keeps, which holds what was sent.
 */
async function uploadFile(chat: WebChatPage): Promise<void> {
  const content = 'Sintonia upload check\n';
  await chat.upload({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(content) });
  await converse(chat, 'what can you do?', FILE_AND_HELP);
  const sent = chat.page
    .locator('.webchat__stacked-layout--from-user')
    .filter({ hasText: 'notes.txt' })
    .last();
  await sent.waitFor({ timeout: PAGE_STEP_CEILING_MS });
  const href = await sent.locator('a[href]').first().getAttribute('href');
  assert.ok(href && !href.startsWith('blob:'), `the file's link points at the channel: ${href}`);
  const downloaded = await chat.page.evaluate(async (url) => (await fetch(url)).text(), href);
  assert.equal(downloaded, content);
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

// The conversations run side by side: most of their time is waiting (a reconnect's 3–15 s back-off,
// polling's 1 s interval), and each has its own page and conversation.
describe('the chat page in Chromium: the stock Web Chat against the embedded Direct Line channel', {
  concurrency: true,
}, () => {
  let browser: Browser | undefined;
  let running: Awaited<ReturnType<typeof startTestFamily>> | undefined;
  /** Where the cross-origin case's other assistant-auth serves its page: an origin `running` allows. */
  let sitePort = 0;
  const open = (transport: 'websocket' | 'polling') => {
    assert.ok(browser && running);
    return openWebChatPage(browser, running.family.url('assistant-auth'), { transport });
  };

  before(async () => {
    // First: without Chromium the whole suite fails here, with the message saying how to install it.
    browser = await launchChromium();
    sitePort = await freePort();
    running = await startTestFamily(['assistant-auth', 'agents'], {
      CHAT_PAGE: 'on',
      DIRECTLINE_ALLOWED_ORIGINS: `http://127.0.0.1:${sitePort}`,
    });
  });
  after(async () => {
    await browser?.close();
    await running?.close();
  });

  it('websocket: connects, converses, uploads a file; nothing failed', async () => {
    const chat = await open('websocket');
    try {
      await converse(chat, 'hello', GREETING);
      await uploadFile(chat);
      await converse(chat, 'thanks', THANKS);
      assert.equal(chat.socketsOpened(), 1, 'one Direct Line stream');
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
      const reopened = chat.page.waitForEvent('websocket', { timeout: PAGE_STEP_CEILING_MS });
      assert.equal(await chat.dropSockets(), 1, 'one open stream dropped');
      await reopened;
      await chat.connected();
      await converse(chat, 'what can you do?', HELP);
      const transcript = await chat.transcript();
      assert.deepEqual(
        transcript.map((entry) => entry.from),
        // The page's greeting, once, then each question and its answer.
        ['bot', 'user', 'bot', 'user', 'bot'],
        `no message lost or shown twice: ${JSON.stringify(transcript)}`,
      );
      assert.equal(chat.socketsOpened(), 2);
      await assertClean(chat);
    } finally {
      await chat.close();
    }
  });

  it('npm start (serve, demo data on the embedded store, CHAT_PAGE unset): names the page, which converses', async () => {
    assert.ok(browser);
    const dataDir = mkdtempSync(join(tmpdir(), 'sintonia-chat-'));
    const [clientApi, assistantAuth, agents] = [await freePort(), await freePort(), await freePort()];
    const url = `http://127.0.0.1:${assistantAuth}`;
    const serve = await startServe(
      [],
      {
        HOST: '127.0.0.1',
        SINTONIA_DATA_DIR: dataDir,
        CLIENT_API_PORT: String(clientApi),
        ASSISTANT_AUTH_PORT: String(assistantAuth),
        AGENTS_PORT: String(agents),
        LOG_LEVEL: 'info',
      },
      [url, `http://127.0.0.1:${agents}`],
    );
    try {
      assert.ok(serve.output().includes(`"url":"${url}/chat"`), 'the log names the chat page');
      const chat = await openWebChatPage(browser, url);
      try {
        await converse(chat, 'hello', GREETING);
        await assertClean(chat);
      } finally {
        await chat.close();
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('DIRECTLINE_URL: the page of one assistant-auth talks to another’s Direct Line service (cross-origin)', async () => {
    assert.ok(browser && running);
    // This family's embedded channel stands for the external service; the page is served by another
    // assistant-auth on another port, which holds that service's secret and hands out its tokens.
    const service = running.family.url('assistant-auth');
    const site = await startTestFamily(['assistant-auth'], {
      CHAT_PAGE: 'on',
      ASSISTANT_AUTH_PORT: String(sitePort),
      DIRECTLINE_URL: service,
      DIRECTLINE_SECRET: channelSecret(running.core),
    });
    try {
      const chat = await openWebChatPage(browser, site.family.url('assistant-auth'));
      try {
        await converse(chat, 'hello', GREETING);
        const streams = await chat.page.evaluate(() =>
          (window as unknown as { __openedSockets: WebSocket[] }).__openedSockets.map((socket) => socket.url),
        );
        assert.equal(streams.length, 1);
        assert.ok(
          streams[0]?.startsWith(service.replace(/^http/, 'ws')),
          `stream from the service: ${streams[0]}`,
        );
        await assertClean(chat);
      } finally {
        await chat.close();
      }
    } finally {
      await site.close();
    }
  });

  it('polling (webSocket: false): connects, converses, uploads a file, opens no websocket', async () => {
    const chat = await open('polling');
    try {
      await converse(chat, 'hello', GREETING);
      await uploadFile(chat);
      await converse(chat, 'thanks', THANKS);
      assert.equal(chat.socketsOpened(), 0);
      assert.equal(await chat.page.locator('#webchat').getAttribute('data-transport'), 'polling');
      await assertClean(chat);
    } finally {
      await chat.close();
    }
  });
});
