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

/** The page fits its window and axe-core finds nothing serious: asserted in every state a person meets. */
async function assertFitsAndAccessible(chat: WebChatPage, state: string) {
  assert.equal(await horizontalOverflow(chat.page), 0, `${state}: the page scrolls sideways`);
  assert.deepEqual(await seriousAccessibilityProblems(chat.page), [], `${state}: axe-core`);
}

/**
 * The chat page as people meet it, on a phone (390 px) and a desktop (1280 px): a greeting in their
 * language with questions to press, a refused sign-in, a signed-in conversation that acts on a device,
 * and a long message; never wider than the window, and clean for axe-core (serious and critical).
 */
describe('the chat page for people: phone and desktop, greeting, accessible', () => {
  const suite = suiteChatPageFamily(async (core, clientApi) => {
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
  });

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
      assert.deepEqual(chat.problems, []);
    } finally {
      await chat.close();
    }
  });
});
