import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { launchChromium, watchPage } from '../helpers/docs-page.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { horizontalOverflow, seriousAccessibilityProblems } from '../helpers/page-checks.ts';
import { approvedOnPhone, tvCodeShown } from '../helpers/tv-page.ts';
import { until } from '../helpers/until.ts';
import { PAGE_STEP_CEILING_MS } from '../helpers/webchat-page.ts';

const BASE = '/api/v1';
const ACCOUNT = 'TVP-1001';
const EMAIL = 'tv-page@example.test';

/**
 * The TV page in Chromium, as a person tries the household: the TV shows a code, a phone approves it on the
 * verification page, the TV plays a title (its stream is what "who is watching" shows), and commands sent
 * from the phone's device token reach the TV's command stream, which obeys, says so and acknowledges.
 */
describe('the TV page: sign in by code, play, obey the household', () => {
  let browser: Browser | undefined;
  let core: TestCore;
  let family: RunningFamily;
  let phone = '';
  let tv: BrowserContext | undefined;
  let page: Page;
  let tvDevice = '';

  before(async () => {
    browser = await launchChromium();
    core = await createTestCore({ DEVICE_GRANT_INTERVAL: '1' });
    family = await startFamily(core, ['client-api']);
    const tokens = await signedInHousehold(core, `${family.url('client-api')}${BASE}`, {
      accountNumber: ACCOUNT,
      email: EMAIL,
      devices: [['tvp-phone', 'Phone']],
    });
    phone = tokens['tvp-phone'] ?? '';
  });
  after(async () => {
    await tv?.close();
    await browser?.close();
    await family?.close();
    await core?.dispose();
  });

  const api = (path: string) => `${family.url('client-api')}${BASE}${path}`;
  const asPhone = (path: string, init: RequestInit = {}) =>
    fetch(api(path), {
      ...init,
      headers: { authorization: `Bearer ${phone}`, accept: 'application/json', ...init.headers },
    });
  const command = async (type: string, extra: object = {}) => {
    const response = await asPhone(`/accounts/${ACCOUNT}/devices/${tvDevice}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type, ...extra }),
    });
    const body = (await response.json()) as { id: string };
    assert.equal(response.status, 202, JSON.stringify(body));
    return body.id;
  };
  const watching = async () => {
    const response = await asPhone(`/accounts/${ACCOUNT}/playback`);
    assert.equal(response.status, 200);
    return ((await response.json()) as { streams: Array<{ deviceId: string; contentId: number }> }).streams;
  };
  const step = { timeout: PAGE_STEP_CEILING_MS };

  it('signs in by code approved on a phone, at TV size, axe-clean', async () => {
    assert.ok(browser);
    tv = await browser.newContext({ viewport: { width: 1280, height: 720 }, locale: 'en-US' });
    page = await tv.newPage();
    const problems = await watchPage(page);
    await page.goto(api('/tv'));
    await tvCodeShown(page);
    assert.deepEqual(await seriousAccessibilityProblems(page), []);

    await approvedOnPhone(browser, page, EMAIL);

    await page.getByText(`Signed in as ${EMAIL}.`).waitFor(step);
    await page.getByText('Ready for commands').waitFor(step);
    tvDevice = await page.evaluate(() => sessionStorage.getItem('sintonia.tv.deviceId') ?? '');
    assert.match(tvDevice, /^tv-/);
    assert.deepEqual(await seriousAccessibilityProblems(page), []);
    // Polling answers 400 authorization_pending until the approval (RFC 8628), which the browser logs.
    const polling = (problem: string) =>
      /\/oauth\/token$/.test(problem) || /status of 400 \(Bad Request\)$/.test(problem);
    assert.deepEqual(
      problems.filter((problem) => !polling(problem)),
      [],
      'console errors, failed or external requests on the page',
    );
  });

  it('plays a title: its stream is who is watching', async () => {
    await page.getByRole('button', { name: 'The Lighthouse Keeper' }).click();
    await page.getByText('Playing: The Lighthouse Keeper').waitFor(step);
    // The page says it plays at once, and reports its stream (PUT …/playback) right after.
    const streams = await until(
      async () => {
        const now = await watching();
        return now.length > 0 ? now : undefined;
      },
      'the stream reported',
      PAGE_STEP_CEILING_MS,
    );
    assert.deepEqual(
      streams.map((stream) => [stream.deviceId, stream.contentId]),
      [[tvDevice, 202]],
    );
  });

  it('obeys pause, resume and stop from the phone, acknowledging each', async () => {
    const paused = await command('pause');
    await page.getByText('Paused by your household.').waitFor(step);
    await page.getByText('Paused: The Lighthouse Keeper').waitFor(step);
    await until(
      async () => ((await commandState(paused)) === 'acknowledged' ? true : undefined),
      'the pause acknowledged',
      PAGE_STEP_CEILING_MS,
    );

    await command('resume');
    await page.getByText('Playing: The Lighthouse Keeper').waitFor(step);

    await command('stop');
    await page.getByText('Stopped by your household.').waitFor(step);
    await page.getByText('Nothing playing').waitFor(step);
    await until(
      async () => ((await watching()).length === 0 ? true : undefined),
      'the stream ended',
      PAGE_STEP_CEILING_MS,
    );
  });

  it('plays what the phone sends, from its position', async () => {
    await command('play', { contentId: 404, offset: 95 });
    await page.getByText('Playing: Cartoon Island').waitFor(step);
    assert.match((await page.textContent('#tv-position')) ?? '', /^00:01:3\d$/);
  });

  it('fits a phone without scrolling sideways, axe-clean in Spanish', async () => {
    assert.ok(browser);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'es-ES' });
    try {
      const small = await context.newPage();
      await small.goto(api('/tv'));
      await small.getByText('Inicia sesión en esta tele').waitFor(step);
      assert.equal(await horizontalOverflow(small), 0);
      assert.deepEqual(await seriousAccessibilityProblems(small), []);
    } finally {
      await context.close();
    }
  });

  async function commandState(id: string): Promise<string> {
    const response = await asPhone(`/accounts/${ACCOUNT}/devices/${tvDevice}/commands/${id}`);
    return ((await response.json()) as { state: string }).state;
  }
});
