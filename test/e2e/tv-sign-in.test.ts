import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'openid-client';
import type { Browser } from 'playwright-core';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { launchChromium, watchPage } from '../helpers/docs-page.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { HOUSEHOLD_PASSWORD, signedInHousehold } from '../helpers/household.ts';
import { openWebChatPage, PAGE_STEP_CEILING_MS, type WebChatPage } from '../helpers/webchat-page.ts';

const BASE = '/api/v1';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ACCOUNT = 'TV-1001';

/**
 * A TV signs in with a code through a standard OAuth client (openid-client, unmodified): it discovers the
 * metadata, asks for codes and polls, while a person approves on the verification page, from their
 * phone, or by telling the assistant in the stock Web Chat and pressing Yes. Then the TV's token works on
 * its account, and sign-out refuses it.
 */
describe('TV sign-in with a code: openid-client against the real server, three ways to approve', () => {
  let browser: Browser | undefined;
  let core: TestCore;
  let family: RunningFamily;
  let phone = '';

  before(async () => {
    browser = await launchChromium();
    core = await createTestCore({ CHAT_PAGE: 'on', DEVICE_GRANT_INTERVAL: '1' });
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
    const tokens = await signedInHousehold(core, `${family.url('client-api')}${BASE}`, {
      accountNumber: ACCOUNT,
      email: 'tv@example.test',
      devices: [['tv-phone', 'Phone']],
    });
    phone = tokens['tv-phone'] ?? '';
  });
  after(async () => {
    await browser?.close();
    await family?.close();
    await core?.dispose();
  });

  const clientApi = () => family.url('client-api');
  const account = `${BASE}/accounts/${ACCOUNT}`;
  const status = (path: string, token: string, method = 'GET') =>
    fetch(`${clientApi()}${path}`, { method, headers: { authorization: `Bearer ${token}` } }).then(
      (response) => response.status,
    );

  /** The TV's OAuth client: a public client (no secret) of client id smarttv, over plain HTTP on loopback. */
  const discover = () =>
    oauth.discovery(new URL(clientApi()), 'smarttv', undefined, oauth.None(), {
      execute: [oauth.allowInsecureRequests],
      algorithm: 'oauth2',
    });

  /**
   * The TV's side, as any OAuth client does it: discovery, the device authorization request, polling.
   * `approve` is the person's side, given the codes the TV shows; it runs while the TV polls.
   */
  async function signTvIn(
    deviceId: string,
    deviceName: string,
    approve: (codes: oauth.DeviceAuthorizationResponse) => Promise<void>,
  ) {
    const config = await discover();
    assert.equal(config.serverMetadata().token_endpoint, `${clientApi()}${BASE}/oauth/token`);
    const codes = await oauth.initiateDeviceAuthorization(config, {
      device_id: deviceId,
      device_name: deviceName,
    });
    assert.match(codes.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    const polling = oauth.pollDeviceAuthorizationGrant(config, codes);
    await approve(codes);
    const tokens = await polling;
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.ok(tokens.refresh_token);
    // The TV's access token works on its account, where it is now a device.
    assert.equal(await status(`${account}/devices/${deviceId}`, tokens.access_token), 200);
    // Sign-out from the phone closes the TV's session: its token is refused from then on.
    assert.equal(await status(`${account}/devices/${deviceId}/sessions`, phone, 'DELETE'), 204);
    assert.equal(await status(`${account}/devices`, tokens.access_token), 401);
  }

  it('approved on the verification page in Chromium (phone width)', async () => {
    assert.ok(browser);
    const shots = process.env.SINTONIA_TV_SIGN_IN_SCREENSHOTS;
    await signTvIn('tv-page', 'Living room TV', async (codes) => {
      assert.ok(browser);
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
      const page = await context.newPage();
      const problems = await watchPage(page);
      try {
        await page.goto(codes.verification_uri_complete ?? '');
        assert.equal(await page.inputValue('#user_code'), codes.user_code);
        // Nothing wider than the phone: no horizontal scrolling.
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
        await page.fill('#username', 'tv@example.test');
        await page.fill('#password', HOUSEHOLD_PASSWORD);
        if (shots) await screenshot(page, join(shots, 'tv-sign-in-phone.png'));
        await page.click('button[type="submit"]');
        await page.getByText('Sign this TV in?').waitFor({ timeout: PAGE_STEP_CEILING_MS });
        assert.match((await page.textContent('dl')) ?? '', /smarttv[\s\S]*UTC[\s\S]*\/24[\s\S]*TV-1001/);
        // The TV's own name on a line of its own, below the warning and the facts.
        assert.equal(await page.textContent('.untrusted'), 'Living room TV');
        assert.match((await page.textContent('.warning')) ?? '', /^Approve only a code shown on a screen/);
        if (shots) await screenshot(page, join(shots, 'tv-sign-in-confirm.png'));
        await page.getByRole('button', { name: 'Sign it in' }).click();
        await page.getByText('Your TV is signed in').waitFor({ timeout: PAGE_STEP_CEILING_MS });
        assert.deepEqual(problems, [], 'console errors, failed or external requests on the page');
      } finally {
        await context.close();
      }
    });
    if (shots) {
      // The same page at desktop width, in Spanish (the browser's language).
      const desktop = await browser.newContext({ viewport: { width: 1280, height: 720 }, locale: 'es-ES' });
      const page = await desktop.newPage();
      await page.goto(`${clientApi()}${BASE}/device?user_code=BDWP-HQPK`);
      await page.getByText('Código de la tele').waitFor();
      await screenshot(page, join(shots, 'tv-sign-in-desktop-es.png'));
      await desktop.close();
    }
  });

  it('the verification page passes axe (form and confirmation, English and Spanish)', async () => {
    assert.ok(browser);
    // axe is injected as a script, which the page's own policy (no script at all) would refuse.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const violations = async () => {
      await page.addScriptTag({ content: AXE_SOURCE });
      return page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string }> }> } })
          .axe;
        return (await axe.run()).violations.map((violation) => violation.id);
      });
    };
    try {
      for (const lang of ['en', 'es']) {
        await page.goto(`${clientApi()}${BASE}/device?lang=${lang}`);
        assert.deepEqual(await violations(), [], `the ${lang} form`);
      }
      const codes = await fetch(`${clientApi()}${BASE}/oauth/device_authorization`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: 'smarttv', device_id: 'tv-axe' }),
      }).then((response) => response.json() as Promise<{ verification_uri_complete: string }>);
      await page.goto(codes.verification_uri_complete);
      await page.fill('#username', 'tv@example.test');
      await page.fill('#password', HOUSEHOLD_PASSWORD);
      await page.click('button[type="submit"]');
      await page.getByText('Sign this TV in?').waitFor({ timeout: PAGE_STEP_CEILING_MS });
      assert.deepEqual(await violations(), [], 'the confirmation');
    } finally {
      await context.close();
    }
  });

  it('approved from a signed-in phone of the account (its device token)', async () => {
    await signTvIn('tv-phone-approved', 'Bedroom TV', async (codes) => {
      const seen = await fetch(`${clientApi()}${account}/device-sign-ins/${codes.user_code}`, {
        headers: { authorization: `Bearer ${phone}`, accept: 'application/json' },
      });
      assert.equal(seen.status, 200);
      assert.equal(((await seen.json()) as { deviceName: string }).deviceName, 'Bedroom TV');
      const decided = await status(
        `${account}/device-sign-ins/${codes.user_code}/approved/true`,
        phone,
        'PUT',
      );
      assert.equal(decided, 200);
    });
  });

  it('approved by telling the assistant in the stock Web Chat, after its Yes button', async () => {
    assert.ok(browser);
    const chat = await openWebChatPage(browser, family.url('assistant-auth'));
    try {
      const { page } = chat;
      await signInOnChatPage(chat);
      await signTvIn('tv-kitchen', 'Kitchen TV', async (codes) => {
        await chat.send(`my TV shows ${codes.user_code}`);
        const asked = await chat.botSays(/Do you want me to sign the smarttv device with the code/);
        assert.match(asked, new RegExp(codes.user_code));
        assert.match(asked, /The name it gives itself \(not checked\): «Kitchen TV»/);
        await page.getByRole('button', { name: 'Yes', exact: true }).first().click();
        await chat.botSays(/Done: the smarttv device with the code \w{4}-\w{4} is signed in/);
      });
      assert.deepEqual(await chat.failedSends(), []);
      assert.deepEqual(chat.problems, [], 'console errors, failed or external requests on the page');
    } finally {
      await chat.close();
    }
  });

  it('refused in Spanish through the assistant: the TV hears access_denied', async () => {
    assert.ok(browser);
    const chat = await openWebChatPage(browser, family.url('assistant-auth'));
    try {
      const { page } = chat;
      await signInOnChatPage(chat);
      const config = await discover();
      const codes = await oauth.initiateDeviceAuthorization(config, {
        device_id: 'tv-stranger',
        device_name: 'Tele rara',
      });
      const polling = oauth.pollDeviceAuthorizationGrant(config, codes).then(
        () => 'signed in',
        (error: unknown) => (error as { error?: string }).error,
      );
      await chat.send(`rechaza el código ${codes.user_code}`);
      await chat.botSays(
        /¿Quieres que vaya a rechazar el inicio de sesión del dispositivo smarttv con el código/,
      );
      await page.getByRole('button', { name: 'Sí', exact: true }).first().click();
      await chat.botSays(/Hecho: he rechazado el inicio de sesión del dispositivo smarttv/);
      assert.equal(await polling, 'access_denied');
    } finally {
      await chat.close();
    }
  });
});

/** The person signs in on the chat page (binding the conversation to their account). */
async function signInOnChatPage(chat: WebChatPage) {
  const { page } = chat;
  await page.fill('#sign-in input[name="username"]', 'tv@example.test');
  await page.fill('#sign-in input[name="password"]', HOUSEHOLD_PASSWORD);
  await page.click('#sign-in button[type="submit"]');
  await page
    .getByText('Signed in as tv@example.test.', { exact: false })
    .waitFor({ timeout: PAGE_STEP_CEILING_MS });
  await chat.connected();
}

async function screenshot(page: import('playwright-core').Page, path: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  await page.screenshot({ path, fullPage: true });
}
