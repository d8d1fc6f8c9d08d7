import type { Browser, Page } from 'playwright-core';
import { LOOPBACK, watchPage } from './docs-page.ts';
import { HOUSEHOLD_PASSWORD } from './household.ts';

/** One message of the transcript as the person sees it. */
export interface TranscriptEntry {
  from: 'user' | 'bot';
  text: string;
}

export interface WebChatPage {
  page: Page;
  /** Console errors, page errors, failed or ≥ 400 requests, and any request to a non-loopback host. */
  problems: string[];
  /** How many websockets the page opened so far (Web Chat's Direct Line streams). */
  socketsOpened(): number;
  /** Types into Web Chat's send box and presses Enter. */
  send(text: string): Promise<void>;
  /** Waits until a bot message matching `pattern` is in the transcript; returns its text. */
  botSays(pattern: RegExp): Promise<string>;
  transcript(): Promise<TranscriptEntry[]>;
  /** The activity statuses that tell the person a message was not sent ("Send failed. Retry."). */
  failedSends(): Promise<string[]>;
  /** Closes every open websocket of the page from the page's side; returns how many were open. */
  dropSockets(): Promise<number>;
  /** Waits until Web Chat says it is connected (its screen-reader connectivity status). */
  connected(): Promise<void>;
  /** Picks a file with Web Chat's upload button (its hidden file input); the next send carries it. */
  upload(file: { name: string; mimeType: string; buffer: Buffer }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Before any script of the page: keeps a list of the websockets the page opens, so a test can drop them
 * as a network failure would. The constructor is the native one, subclassed without changing behaviour.
 * A string, not a function: the test's TypeScript loader may add helpers a page does not have.
 */
const TRACK_SOCKETS = `(() => {
  const opened = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      opened.push(this);
    }
  };
  Object.defineProperty(window, '__openedSockets', { value: opened });
})();`;

/**
 * How long any one step of the page may take before the test gives up: a ceiling, not a measurement. On a
 * loaded two-core CI machine, loading and parsing Web Chat's 4 MB bundle in several pages at once has
 * taken over 30 s.
 */
export const PAGE_STEP_CEILING_MS = 120_000;

/** Opens the chat page (`<serviceUrl>/chat`) in a fresh context and waits until Web Chat is connected. */
export async function openWebChatPage(
  browser: Browser,
  serviceUrl: string,
  options: {
    transport?: 'websocket' | 'polling';
    viewport?: { width: number; height: number };
    /** The browser's language (navigator.language), which the page speaks. */
    locale?: string;
  } = {},
): Promise<WebChatPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1000, height: 760 },
    locale: options.locale ?? 'en-US',
  });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  context.setDefaultNavigationTimeout(PAGE_STEP_CEILING_MS);
  const page = await context.newPage();
  let sockets = 0;
  await page.addInitScript(TRACK_SOCKETS);
  const problems = await watchPage(page);
  // Websockets escape page.route: counted here, and any to another host is a problem.
  page.on('websocket', (socket) => {
    sockets++;
    if (!LOOPBACK.has(new URL(socket.url()).hostname)) problems.push(`websocket to ${socket.url()}`);
  });

  const query = options.transport === 'polling' ? '?transport=polling' : '';
  const response = await page.goto(`${serviceUrl}/chat${query}`, {
    waitUntil: 'load',
    timeout: PAGE_STEP_CEILING_MS,
  });
  if (response?.status() !== 200) throw new Error(`GET ${serviceUrl}/chat answered ${response?.status()}`);

  const input = page.locator('[data-id="webchat-sendbox-input"]');
  const bubbles = page.locator('.webchat__bubble');
  const chat: WebChatPage = {
    page,
    problems,
    socketsOpened: () => sockets,
    async connected() {
      // Web Chat says it in the page's language (English or Spanish here).
      await page
        .getByText(/^(Connectivity Status: Connected|Estado de conexión: Conectado)$/)
        .waitFor({ state: 'attached', timeout: PAGE_STEP_CEILING_MS });
    },
    async send(text) {
      await input.fill(text);
      await input.press('Enter');
    },
    async botSays(pattern) {
      const bubble = page
        .locator('.webchat__bubble:not(.webchat__bubble--from-user) .webchat__bubble__content')
        .filter({ hasText: pattern })
        .last();
      await bubble.waitFor({ timeout: PAGE_STEP_CEILING_MS });
      return (await bubble.innerText()).trim();
    },
    transcript: () =>
      bubbles.evaluateAll((elements) =>
        elements.map((element) => ({
          from: element.classList.contains('webchat__bubble--from-user')
            ? ('user' as const)
            : ('bot' as const),
          text:
            (element.querySelector('.webchat__bubble__content') as HTMLElement | null)?.innerText.trim() ??
            '',
        })),
      ),
    failedSends: () =>
      page
        .locator('.webchat__activity-status')
        .filter({ hasText: /send failed/i })
        .allInnerTexts(),
    dropSockets: () =>
      page.evaluate(() => {
        const opened = (window as unknown as { __openedSockets: WebSocket[] }).__openedSockets;
        const open = opened.filter((socket) => socket.readyState === WebSocket.OPEN);
        for (const socket of open) socket.close();
        return open.length;
      }),
    async upload(file) {
      await page.locator('input[type="file"]').setInputFiles(file);
      // The attach button shows it holds a file once Web Chat has read it (and made its thumbnail).
      await page
        .locator('.webchat__upload-button .webchat__attachment-icon--checked')
        .waitFor({ timeout: PAGE_STEP_CEILING_MS });
    },
    close: () => context.close(),
  };
  await input.waitFor({ timeout: PAGE_STEP_CEILING_MS });
  await chat.connected();
  return chat;
}

/** Types `email` and `password` into the page's sign-in form and submits it. */
export async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.fill('#sign-in input[name="username"]', email);
  await page.fill('#sign-in input[name="password"]', password);
  await page.click('#sign-in button[type="submit"]');
}

/** A wrong password on the page: waits for its refusal, then forgets the 401 it caused among the page's problems. */
export async function refusedSignIn(chat: WebChatPage, email: string): Promise<void> {
  await submitSignIn(chat.page, email, 'not the password');
  await chat.page
    .getByText('That e-mail or password is not right.')
    .waitFor({ timeout: PAGE_STEP_CEILING_MS });
  chat.problems.length = 0; // the 401 of the wrong password is what this step expected
}

/** Signs in on the page with the household's password: waits for "Signed in as <email>." and a connected Web Chat. */
export async function signInOnPage(chat: WebChatPage, email: string): Promise<void> {
  await submitSignIn(chat.page, email, HOUSEHOLD_PASSWORD);
  await chat.page
    .getByText(`Signed in as ${email}.`, { exact: false })
    .waitFor({ timeout: PAGE_STEP_CEILING_MS });
  await chat.connected();
}
