import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { suiteChatPageFamily } from '../helpers/chat-page-family.ts';
import { householdAccount } from '../helpers/household.ts';
import { approvedOnPhone, tvCodeShown } from '../helpers/tv-page.ts';
import { until } from '../helpers/until.ts';
import {
  openWebChatPage,
  PAGE_STEP_CEILING_MS,
  signInOnPage,
  type WebChatPage,
} from '../helpers/webchat-page.ts';

const EMAIL = 'household@example.test';
const step = { timeout: PAGE_STEP_CEILING_MS };

/**
 * Issue 43's whole household in Chromium, as a person tries it: two TV pages sign in by code, approved on a
 * phone; one plays; on the chat page the person asks the assistant what is playing, stops it after a Yes,
 * then has it continue on the other TV, which plays it from the same point.
 */
describe('the household in Chromium: two TVs, a phone, the assistant', () => {
  const suite = suiteChatPageFamily(async (core) => {
    await householdAccount(core, { accountNumber: 'HOME-1', email: EMAIL });
  });
  const clientApi = () => `${suite.family.url('client-api')}/api/v1`;
  let operatorKey = '';
  /** Until the account's streams are `expected` ([device name, content id]), as an operator reads them. */
  const streams = (expected: Array<[string, number]>) =>
    until(
      async () => {
        operatorKey ||= (await suite.core.apiKeys.create('backoffice', 'household journey')).key;
        const response = await fetch(`${clientApi()}/accounts/HOME-1/playback`, {
          headers: { 'x-api-key': operatorKey, accept: 'application/json' },
        });
        const body = (await response.json()) as { streams: Array<{ name: string; contentId: number }> };
        const now = body.streams.map((stream) => [stream.name, stream.contentId]);
        return JSON.stringify(now) === JSON.stringify(expected) ? now : undefined;
      },
      `the streams ${JSON.stringify(expected)}`,
      PAGE_STEP_CEILING_MS,
    );

  /** A TV page named `name`, signed in by its code approved on the phone's verification page. */
  async function signedInTv(browser: Browser, name: string): Promise<Page> {
    const tv = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    await tv.goto(`${clientApi()}/tv?name=${encodeURIComponent(name)}`);
    await tvCodeShown(tv);
    await approvedOnPhone(browser, tv, EMAIL);
    await tv.getByText('Ready for commands').waitFor(step);
    return tv;
  }

  /** Says `text`, waits for the question, presses Yes, and answers what the assistant then says. */
  async function confirmed(chat: WebChatPage, text: string, question: RegExp, done: RegExp) {
    await chat.send(text);
    await chat.botSays(question);
    await chat.page.getByRole('button', { name: 'Yes', exact: true }).last().click();
    return chat.botSays(done);
  }

  it('sign two TVs in, play, ask what is playing, stop after Yes, continue on the other TV', async () => {
    const living = await signedInTv(suite.browser, 'Living room TV');
    const bedroom = await signedInTv(suite.browser, 'Bedroom TV');
    await living.getByRole('button', { name: 'The Lighthouse Keeper' }).click();
    await living.getByText('Playing: The Lighthouse Keeper').waitFor(step);
    await streams([['Living room TV', 202]]);

    const chat = await openWebChatPage(suite.browser, suite.family.url('assistant-auth'));
    try {
      await signInOnPage(chat, EMAIL);
      await chat.send("what's playing at home?");
      const watching = await chat.botSays(/of 2 screens in use/);
      assert.match(watching, /^1 of 2 screens in use: «Living room TV» \(content 202, at/);

      await confirmed(
        chat,
        'stop the living room tv',
        /Do you want me to stop «Living room TV»\?/,
        /Sent: «Living room TV» was told to stop\./,
      );
      await living.getByText('Stopped by your household.').waitFor(step);
      await living.getByText('Nothing playing').waitFor(step);

      await living.getByRole('button', { name: 'Cartoon Island' }).click();
      await living.getByText('Playing: Cartoon Island').waitFor(step);
      await streams([['Living room TV', 404]]);
      const handed = await confirmed(
        chat,
        'continue on the bedroom tv',
        /Do you want me to move what «Living room TV» is playing to «Bedroom TV»/,
        /Sent: «Living room TV» was told to stop and «Bedroom TV» to play content 404/,
      );
      assert.match(handed, /from/);
      await bedroom.getByText('Playing: Cartoon Island').waitFor(step);
      await living.getByText('Nothing playing').waitFor(step);
      await streams([['Bedroom TV', 404]]);
    } finally {
      await chat.close();
    }
  });
});
