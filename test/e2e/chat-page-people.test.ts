import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteChatPageFamily } from '../helpers/chat-page-family.ts';
import { HOUSEHOLD_PASSWORD, signedInHousehold } from '../helpers/household.ts';
import { horizontalOverflow, seriousAccessibilityProblems } from '../helpers/page-checks.ts';
import { openWebChatPage, refusedSignIn, submitSignIn, type WebChatPage } from '../helpers/webchat-page.ts';

const WIDTHS = [390, 1280] as const;
/** Where the README's screenshots are written, when set (e.g. docs/img). */
const SCREENSHOTS = process.env.SINTONIA_CHAT_SCREENSHOTS;

/** A suggested question's button as shown (Web Chat keeps a hidden copy for screen readers too). */
const suggestion = (chat: WebChatPage, name: string) =>
  chat.page.locator('button.webchat__suggested-action', { hasText: name }).first();

/** The id of the element holding the focus ('' for none). */
const focusedId = (chat: WebChatPage) => chat.page.evaluate(() => document.activeElement?.id ?? '');

/** The page fits its window and axe-core finds nothing serious: asserted in every state a person meets. */
async function assertFitsAndAccessible(chat: WebChatPage, state: string) {
  assert.equal(await horizontalOverflow(chat.page), 0, `${state}: the page scrolls sideways`);
  assert.deepEqual(await seriousAccessibilityProblems(chat.page), [], `${state}: axe-core`);
}

/**
 * The chat page as people meet it, on a phone (390 px) and a desktop (1280 px): a greeting in their
 * language with questions to press, a refused sign-in, a signed-in conversation that acts on a device,
 * a long message, and the sign-out that brings the form back; never wider than the window, and clean for
 * axe-core (serious and critical). In Spanish at 320 px, signed in and out too.
 */
describe('the chat page for people: phone and desktop, greeting, accessible', () => {
  // Every page here comes from one client address: all their tokens (anonymous, sign-ins, after each
  // sign-out) count under one CHAT_TOKEN_LIMIT, more than its default 10 a window.
  const pagesOfOneAddress = { CHAT_TOKEN_LIMIT: '30' };
  let operatorKey = '';
  const suite = suiteChatPageFamily(async (core, clientApi) => {
    operatorKey = (await core.apiKeys.create('backoffice', 'operator')).key;
    await signedInHousehold(core, clientApi, {
      accountNumber: 'PEOPLE-ES',
      email: 'lucia@example.test',
      devices: [['tv-es', 'Salón']],
    });
    for (const width of WIDTHS) {
      await signedInHousehold(core, clientApi, {
        accountNumber: `PEOPLE-${width}`,
        email: `ana-${width}@example.test`,
        devices: [
          [`bed-${width}`, 'Bedroom TV'],
          [`liv-${width}`, 'Living room'],
        ],
      });
    }
  }, pagesOfOneAddress);

  /** The account's devices with an open session, as client-api answers an operator. */
  const signedInDevices = async (accountNumber: string) => {
    const response = await fetch(
      `${suite.family.url('client-api')}/api/v1/accounts/${accountNumber}/devices/signed-in`,
      { headers: { 'x-api-key': operatorKey, accept: 'application/json' } },
    );
    assert.equal(response.status, 200);
    return (await response.json()) as string[];
  };

  for (const width of WIDTHS) {
    it(`at ${width} px: greeting and questions, a refused then a good sign-in, a confirmed action, a long message`, async () => {
      const chat = await openWebChatPage(suite.browser, suite.family.url('assistant-auth'), {
        viewport: { width, height: 800 },
      });
      try {
        const { page } = chat;
        await chat.botSays(/Hello! I’m the Sintonia assistant/);
        const questions = suggestion(chat, 'How do I record a series?');
        await questions.first().waitFor();
        await assertFitsAndAccessible(chat, 'signed out');
        // The README shows the phone as a person first meets it, and the desktop signed in.
        if (SCREENSHOTS && width === 390) {
          mkdirSync(SCREENSHOTS, { recursive: true });
          await page.screenshot({ path: join(SCREENSHOTS, 'chat-phone.png') });
        }

        await refusedSignIn(chat, `ana-${width}@example.test`);
        await assertFitsAndAccessible(chat, 'sign-in refused');

        await submitSignIn(page, `ana-${width}@example.test`, HOUSEHOLD_PASSWORD);
        await page.getByText(`Signed in as ana-${width}@example.test.`, { exact: false }).waitFor();
        await chat.botSays(/You’re signed in/);
        assert.equal(await focusedId(chat), 'sign-out', 'the focus moves from the gone form to the way out');
        await suggestion(chat, 'What devices do I have?').click();
        const listed = await chat.botSays(/You have 3 devices/);
        assert.match(listed, /Bedroom TV/);

        await chat.send('sign out the bedroom tv');
        await chat.botSays(/Do you want me to sign «Bedroom TV» out/);
        await page.getByRole('button', { name: 'Yes', exact: true }).first().click();
        await chat.botSays(/Done: «Bedroom TV» is signed out/);

        await chat.send(`what about ${'x'.repeat(300)} and https://example.test/${'a'.repeat(200)}`);
        await chat.botSays(/not sure I understood/);
        await assertFitsAndAccessible(chat, 'signed in, long messages');
        if (SCREENSHOTS && width === 1280) {
          mkdirSync(SCREENSHOTS, { recursive: true });
          await page.screenshot({ path: join(SCREENSHOTS, 'chat-desktop.png') });
        }

        // Signing out with the keyboard: that sign-in's session ends, the form is back, anonymous again.
        await page.getByRole('button', { name: 'Sign out', exact: true }).focus();
        await page.keyboard.press('Enter');
        await page.locator('#sign-in').waitFor({ state: 'visible' });
        await chat.botSays(/Hello! I’m the Sintonia assistant/);
        assert.equal(await page.locator('#signed-in').isHidden(), true);
        assert.equal(await focusedId(chat), '', 'the focus is in the form again (its e-mail field)');
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'username');
        assert.deepEqual(await signedInDevices(`PEOPLE-${width}`), [`liv-${width}`], 'the chat page is out');
        await assertFitsAndAccessible(chat, 'signed out again');

        assert.deepEqual(await chat.failedSends(), []);
        assert.deepEqual(chat.problems, [], 'console errors, failed or external requests on the page');
      } finally {
        await chat.close();
      }
    });
  }

  it('in a Spanish browser the page, the greeting and its questions are in Spanish, and so is the answer', async () => {
    const chat = await openWebChatPage(suite.browser, suite.family.url('assistant-auth'), {
      viewport: { width: 320, height: 700 },
      locale: 'es-ES',
    });
    try {
      const { page } = chat;
      assert.equal(await page.getAttribute('html', 'lang'), 'es');
      await page.getByRole('heading', { name: 'Asistente de Sintonia' }).waitFor();
      await page.getByLabel('Contraseña').waitFor();
      await chat.botSays(/¡Hola! Soy el asistente de Sintonia/);
      await suggestion(chat, '¿Cómo grabo una serie?').click();
      await chat.botSays(/Para grabar, abre la ficha del programa/);
      await assertFitsAndAccessible(chat, 'Spanish, 320 px');
      await submitSignIn(page, 'lucia@example.test', HOUSEHOLD_PASSWORD);
      await page.getByText('Has iniciado sesión como lucia@example.test.', { exact: false }).waitFor();
      const signOut = page.getByRole('button', { name: 'Cerrar sesión', exact: true });
      await assertFitsAndAccessible(chat, 'Spanish, 320 px, signed in');
      await signOut.click();
      await page.getByRole('button', { name: 'Iniciar sesión', exact: true }).waitFor();
      assert.equal(await signOut.isHidden(), true);
      assert.deepEqual(await signedInDevices('PEOPLE-ES'), ['tv-es']);
      assert.deepEqual(chat.problems, []);
    } finally {
      await chat.close();
    }
  });
});
