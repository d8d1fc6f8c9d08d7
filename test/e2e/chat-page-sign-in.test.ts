import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { launchChromium } from '../helpers/docs-page.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { HOUSEHOLD_PASSWORD, signedInHousehold } from '../helpers/household.ts';
import { openWebChatPage, PAGE_STEP_CEILING_MS } from '../helpers/webchat-page.ts';

const BASE = '/api/v1';

/**
 * The chat page as a person uses it: they sign in with their pay-TV account on the page, then ask the
 * assistant about their devices and sign one out with the Yes button, in the stock Web Chat.
 */
describe('the chat page in Chromium: signed in, the assistant acts on the person’s devices', () => {
  let browser: Browser | undefined;
  let core: TestCore;
  let family: RunningFamily;
  const tokens: Record<string, string> = {};

  before(async () => {
    browser = await launchChromium();
    core = await createTestCore({ CHAT_PAGE: 'on' });
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
    Object.assign(
      tokens,
      await signedInHousehold(core, `${family.url('client-api')}${BASE}`, {
        accountNumber: 'WEB-1001',
        email: 'ana@example.test',
        devices: [
          ['web-bed', 'Bedroom TV'],
          ['web-liv', 'Living room'],
        ],
      }),
    );
  });
  after(async () => {
    await browser?.close();
    await family?.close();
    await core?.dispose();
  });

  const devicesStatus = (deviceId: string) =>
    fetch(`${family.url('client-api')}${BASE}/accounts/WEB-1001/devices`, {
      headers: { authorization: `Bearer ${tokens[deviceId]}` },
    }).then((response) => response.status);

  it('a wrong password is refused on the page; the right one binds the conversation, which lists and signs out devices', async () => {
    assert.ok(browser);
    const chat = await openWebChatPage(browser, family.url('assistant-auth'));
    try {
      const { page } = chat;
      await page.fill('#sign-in input[name="username"]', 'ana@example.test');
      await page.fill('#sign-in input[name="password"]', 'not the password');
      await page.click('#sign-in button[type="submit"]');
      await page
        .getByText('That e-mail or password is not right.')
        .waitFor({ timeout: PAGE_STEP_CEILING_MS });
      chat.problems.length = 0; // the 401 of the wrong password is what this step expected

      await page.fill('#sign-in input[name="password"]', HOUSEHOLD_PASSWORD);
      await page.click('#sign-in button[type="submit"]');
      await page
        .getByText('Signed in as ana@example.test.', { exact: false })
        .waitFor({ timeout: PAGE_STEP_CEILING_MS });
      await chat.connected();

      await chat.send('what devices do I have?');
      // The page signed in as a device of the account itself (its sign-out ends what the assistant may do).
      const listed = await chat.botSays(/You have 3 devices/);
      assert.match(listed, /Bedroom TV/);
      assert.match(listed, /Living room/);
      assert.match(listed, /Chat page/);

      await chat.send('sign out the bedroom tv');
      await chat.botSays(/Do you want me to sign «Bedroom TV» out/);
      assert.equal(await devicesStatus('web-bed'), 200, 'nothing happens before the Yes');
      // The Yes button matches twice in Web Chat's suggested-actions markup (seen in Web Chat 4.18); either answers.
      await page.getByRole('button', { name: 'Yes', exact: true }).first().click();
      await chat.botSays(/Done: «Bedroom TV» is signed out/);
      assert.equal(await devicesStatus('web-bed'), 401, 'the signed-out device’s token is refused');
      assert.equal(await devicesStatus('web-liv'), 200, 'the other device is untouched');

      const screenshot = process.env.SINTONIA_CHAT_SIGN_IN_SCREENSHOT;
      if (screenshot) {
        mkdirSync(dirname(screenshot), { recursive: true });
        await page.screenshot({ path: screenshot });
      }
      assert.deepEqual(await chat.failedSends(), []);
      assert.deepEqual(chat.problems, [], 'console errors, failed or external requests on the page');
    } finally {
      await chat.close();
    }
  });
});
