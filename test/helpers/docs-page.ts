import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium; CI installs it (.ci/run). CHROMIUM_PATH points elsewhere on other machines. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Fails (never skips) when the browser is missing: the docs pages are only checked in a real one. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium; .ci/run does it) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface RenderedOperation {
  method: string;
  path: string;
  operationId: string;
}

export interface DocsPage {
  page: Page;
  /** Console errors, page errors, failed or ≥ 400 requests, and any request to a non-loopback host. */
  problems: string[];
  operations(): Promise<RenderedOperation[]>;
  /** The security schemes the Authorize dialog offers, each as its visible text. */
  authorizeSchemes(): Promise<string[]>;
  /** Types a value into the scheme whose dialog entry matches `scheme` (e.g. /Name: X-API-Key/) and applies it. */
  authorize(scheme: RegExp, value: string): Promise<void>;
  /**
   * Runs one operation with try-it-out (parameters and, if given, the body typed into the page); returns
   * the status and body the page shows, and the status, URL and request headers on the wire.
   */
  tryIt(
    method: string,
    path: string,
    parameters: Record<string, string>,
    body?: string,
  ): Promise<{
    shown: string;
    shownBody: string;
    wire: number;
    url: string;
    headers: Record<string, string>;
  }>;
  /** The media types an operation's request body or response picker offers. */
  mediaTypes(method: string, path: string, direction: 'request' | 'response'): Promise<string[]>;
  close(): Promise<void>;
}

/** Opens `<serviceUrl>/docs` in a fresh context and waits until the operations are rendered. */
export async function openDocsPage(browser: Browser, serviceUrl: string): Promise<DocsPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = await watchPage(page);

  const response = await page.goto(`${serviceUrl}/docs`, { waitUntil: 'load' });
  if (response?.status() !== 200) {
    throw new Error(`GET ${serviceUrl}/docs answered ${response?.status()}`);
  }
  await page.waitForSelector('.swagger-ui .information-container .title', { timeout: 20_000 });
  await page.waitForSelector('.swagger-ui .opblock', { timeout: 20_000 });

  const operationBlock = (method: string, path: string) =>
    page
      .locator(`.opblock.opblock-${method.toLowerCase()}`)
      .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
      .first();

  /** Opens an operation unless it is open already (a click on an open one closes it). */
  const expand = async (method: string, path: string) => {
    const block = operationBlock(method, path);
    const open = await block.evaluate((element) => element.classList.contains('is-open'));
    if (!open) await block.locator('.opblock-summary-control').click();
    return block;
  };

  return {
    page,
    problems,
    operations: () =>
      page.$$eval('.swagger-ui .opblock', (blocks) =>
        blocks.map((block) => ({
          method: block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
          path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
          operationId: block.querySelector('.opblock-summary-operation-id')?.textContent?.trim() ?? '',
        })),
      ),
    async authorizeSchemes() {
      await page.click('.swagger-ui .auth-wrapper .btn.authorize');
      const schemes = await page.locator('.modal-ux .auth-container').allInnerTexts();
      await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();
      return schemes.map((scheme) => scheme.replace(/\s+/g, ' ').trim());
    },
    async authorize(scheme, value) {
      await page.click('.swagger-ui .auth-wrapper .btn.authorize');
      const container = page.locator('.modal-ux .auth-container').filter({ hasText: scheme }).first();
      await container.locator('input[type="text"]').fill(value);
      await container.locator('button.authorize').click();
      await container.locator('h6', { hasText: 'Authorized' }).waitFor();
      await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();
    },
    async tryIt(method, path, parameters, body) {
      const block = await expand(method, path);
      for (const [name, value] of Object.entries(parameters)) {
        await block.locator(`tr[data-param-name="${name}"] input`).fill(value);
      }
      if (body !== undefined) await block.locator('textarea.body-param__text').fill(body);
      const [wire] = await Promise.all([
        page.waitForResponse(
          (candidate) =>
            ['fetch', 'xhr'].includes(candidate.request().resourceType()) &&
            candidate.request().method() === method.toUpperCase(),
        ),
        block.locator('.btn.execute').click(),
      ]);
      const row = block.locator('.live-responses-table tr.response').first();
      const shown = await row.locator('.response-col_status').textContent();
      const shownBody = await row.locator('.response-col_description pre').first().textContent();
      return {
        shown: shown?.trim() ?? '',
        shownBody: shownBody ?? '',
        wire: wire.status(),
        url: wire.url(),
        headers: await wire.request().allHeaders(),
      };
    },
    async mediaTypes(method, path, direction) {
      const block = await expand(method, path);
      const label = direction === 'request' ? 'Parameter content type' : 'Response content type';
      const options = block.locator(`select[aria-label="${label}"]`).first().locator('option');
      return (await options.allTextContents()).map((type) => type.trim());
    },
    close: () => context.close(),
  };
}

/**
 * What went wrong on a page, as it happens: console errors, page errors, failed or ≥ 400 requests, and
 * any request to a host other than loopback (recorded and never sent: nothing may leave the machine).
 */
export async function watchPage(page: Page): Promise<string[]> {
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || LOOPBACK.has(url.hostname)) {
      return route.continue();
    }
    problems.push(`request to a non-loopback host: ${url.href}`);
    return route.abort('blockedbyclient');
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`failed request: ${request.method()} ${request.url()} (${request.failure()?.errorText})`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });

  return problems;
}
