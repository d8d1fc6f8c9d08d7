import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, it } from 'node:test';
import { suiteChatPageFamily } from '../helpers/chat-page-family.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { openWebChatPage, refusedSignIn, signInOnPage } from '../helpers/webchat-page.ts';

const BASE = '/api/v1';

/**
 * The chat page as a person uses it: they sign in with their pay-TV account on the page, then ask the
 * assistant about their devices and sign one out with the Yes button, in the stock Web Chat; then sign
 * the page itself out (a failed attempt shown in the status line first) and are anonymous again.
 */
describe('the chat page in Chromium: signed in, the assistant acts on the person’s devices', () => {
  const tokens: Record<string, string> = {};
  const suite = suiteChatPageFamily(async (core, clientApi) => {
    Object.assign(
      tokens,
      await signedInHousehold(core, clientApi, {
        accountNumber: 'WEB-1001',
        email: 'ana@example.test',
        devices: [
          ['web-bed', 'Bedroom TV'],
          ['web-liv', 'Living room'],
        ],
      }),
    );
  });

  const devicesStatus = (deviceId: string) =>
    fetch(`${suite.family.url('client-api')}${BASE}/accounts/WEB-1001/devices`, {
      headers: { authorization: `Bearer ${tokens[deviceId]}` },
    }).then((response) => response.status);

  it('a wrong password is refused on the page; the right one binds the conversation, which lists and signs out devices', async () => {
    const chat = await openWebChatPage(suite.browser, suite.family.url('assistant-auth'));
    try {
      const { page } = chat;
      await refusedSignIn(chat, 'ana@example.test');
      await signInOnPage(chat, 'ana@example.test');

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

      // A sign-out that fails says so in the status line and leaves the person signed in; the next works.
      await page.route('**/chat/sign-out', (route) =>
        route.fulfill({ status: 502, contentType: 'application/json', body: '{"errors":[]}' }),
      );
      const signOut = page.getByRole('button', { name: 'Sign out', exact: true });
      await signOut.click();
      await page.getByText('Signing out did not work. Please try again.').waitFor();
      assert.equal(
        await page.getByText('Signed in as ana@example.test.', { exact: false }).isVisible(),
        true,
      );
      chat.problems.length = 0; // the 502 is what this step made
      await page.unroute('**/chat/sign-out');
      await signOut.click();
      await page.locator('#sign-in').waitFor({ state: 'visible' });
      await chat.botSays(/Hello! I’m the Sintonia assistant/);
      const chatPageSession = await fetch(
        `${suite.family.url('client-api')}${BASE}/accounts/WEB-1001/devices/chat-page`,
        { headers: { authorization: `Bearer ${tokens['web-liv']}`, accept: 'application/json' } },
      );
      assert.equal(chatPageSession.status, 200, 'the device stays registered');
      await chat.send('what devices do I have?');
      await chat.botSays(/I need your Sintonia account linked/);
      assert.deepEqual(chat.problems, [], 'console errors, failed or external requests on the page');
    } finally {
      await chat.close();
    }
  });
});
