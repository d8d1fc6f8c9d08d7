import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { AGENTS_AUDIENCE } from '../../src/agents/auth.ts';
import { createAssistantSigner } from '../../src/assistant-auth/signing/signer.ts';
import { clientApiService } from '../../src/client-api/service.ts';
import type { Core, ServiceName } from '../../src/core/core.ts';
import { type DocsPage, launchChromium, openDocsPage, type RenderedOperation } from '../helpers/docs-page.ts';
import { startTestFamily } from '../helpers/harness.ts';
import { AREA_A_OPERATION_IDS, AREA_B_OPERATIONS, AREA_C_OPERATIONS } from '../helpers/spec-operations.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Path parameter names are the route authors' choice: `{phone_number}` and `{phoneNumber}` match. */
const operationKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

/** The operations of a served document (OpenAPI 2 or 3), with their ids. */
async function servedOperations(url: string): Promise<RenderedOperation[]> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `GET ${url}`);
  const document = (await response.json()) as {
    paths?: Record<string, Record<string, { operationId?: string }>>;
  };
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operationId: operation.operationId ?? '' })),
  );
}

/** How an operation is told apart on the page: method, path and the id its document gives it, if any. */
const rendering = (op: RenderedOperation) => `${operationKey(op.method, op.path)} ${op.operationId}`.trim();

/** Every operation of the served document is on the page, under its own id when it has one. */
function assertAllRendered(rendered: RenderedOperation[], served: RenderedOperation[]): void {
  const shown = new Set(rendered.flatMap((op) => [rendering(op), operationKey(op.method, op.path)]));
  const missing = served.map(rendering).filter((entry) => !shown.has(entry));
  assert.deepEqual(missing, [], 'operations of the served document missing from the page');
}

/** Each listed (method, path) is in the document and on the page, with the operation id the document gives it. */
function assertSpecOperations(
  rendered: RenderedOperation[],
  served: RenderedOperation[],
  spec: string[],
): void {
  const shown = new Set(rendered.flatMap((op) => [rendering(op), operationKey(op.method, op.path)]));
  const missing = spec.filter((entry) => {
    const [method = '', path = ''] = entry.split(' ');
    const documented = served.find((op) => operationKey(op.method, op.path) === operationKey(method, path));
    return !documented || !shown.has(rendering(documented));
  });
  assert.deepEqual(missing, [], 'contract operations missing from the document or the page');
}

/** What client-api's demo data prints (the account and the user `npm start` shows). */
interface DemoAccount {
  accountNumber: string;
  email: string;
  password: string;
}

/** Loads client-api's demo data (as `npm start` does) and returns what it prints. */
async function seedClientDemo(core: Core): Promise<DemoAccount> {
  const { accountNumber, email, password } = (await clientApiService.seedDemo?.(core)) ?? {};
  assert.ok(
    typeof accountNumber === 'string' && typeof email === 'string' && typeof password === 'string',
    'client-api demo data prints accountNumber, email and password',
  );
  return { accountNumber, email, password };
}

/** The Authorize dialog's entry of the X-API-Key header scheme; the bearer one says "(http, Bearer)". */
const API_KEY_SCHEME = /Name: X-API-Key/;
const BEARER_SCHEME = /\(http, Bearer\)/;

function assertCleanPage(docs: DocsPage): void {
  assert.deepEqual(docs.problems, [], 'console errors, failed or external requests on the page');
}

describe('API reference pages (/docs) in Chromium', () => {
  let browser: Browser | undefined;
  let running: Awaited<ReturnType<typeof startTestFamily>> | undefined;
  const url = (name: ServiceName) => {
    assert.ok(running);
    return running.family.url(name);
  };

  before(async () => {
    // First: without Chromium the whole suite fails here, with the message saying how to install it.
    browser = await launchChromium();
    running = await startTestFamily(['client-api', 'assistant-auth', 'agents']);
  });
  after(async () => {
    await browser?.close();
    await running?.close();
  });

  async function open(name: ServiceName): Promise<DocsPage> {
    assert.ok(browser);
    return openDocsPage(browser, url(name));
  }

  it('client-api: every contract operation id, the four media types, try-it with a back-office key', async () => {
    assert.ok(running);
    const { accountNumber } = await seedClientDemo(running.core);
    const { key } = await running.core.apiKeys.create('backoffice', 'docs-browser');
    const docs = await open('client-api');
    try {
      const screenshot = process.env.SINTONIA_DOCS_SCREENSHOT;
      if (screenshot) {
        mkdirSync(dirname(screenshot), { recursive: true });
        await docs.page.screenshot({ path: screenshot });
      }
      const rendered = await docs.operations();
      const shownIds = new Set(rendered.map((op) => op.operationId));
      assert.deepEqual(
        AREA_A_OPERATION_IDS.filter((id) => !shownIds.has(id)),
        [],
        'client API operation ids of the contract missing from the page',
      );
      assertAllRendered(rendered, await servedOperations(`${url('client-api')}/api/v1/swagger.json`));
      const schemes = await docs.authorizeSchemes();
      assert.ok(
        schemes.some((scheme) => scheme.includes('X-API-Key')),
        `schemes: ${schemes.join(' | ')}`,
      );
      assert.ok(
        schemes.some((scheme) => /Authorization/.test(scheme)),
        `bearer scheme: ${schemes.join(' | ')}`,
      );

      await docs.authorize(API_KEY_SCHEME, key);
      const call = await docs.tryIt('GET', '/accounts/{accountNumber}/devices', { accountNumber });
      assert.equal(call.wire, 200, `try-it answered ${call.wire}`);
      assert.equal(call.shown, '200');
      assert.equal(call.url, `${url('client-api')}/api/v1/accounts/${accountNumber}/devices?qspVersion=V3`);
      assert.equal(call.headers['x-api-key'], key);
      const fourTypes = ['application/bson', 'application/json', 'application/ubjson', 'application/xml'];
      const devices = '/accounts/{accountNumber}/devices';
      assert.deepEqual((await docs.mediaTypes('GET', devices, 'response')).sort(), fourTypes);
      const name = '/accounts/{accountNumber}/devices/{mediaPlayerId}/name';
      assert.deepEqual((await docs.mediaTypes('PUT', name, 'request')).sort(), fourTypes);
      assertCleanPage(docs);
    } finally {
      await docs.close();
    }
  });

  it('client-api: a person signs in on the page, pastes the token into Authorize and lists the devices', async () => {
    assert.ok(running);
    const demo = await seedClientDemo(running.core);
    const docs = await open('client-api');
    try {
      const credential = { username: demo.email, password: demo.password, deviceId: 'docs-browser' };
      const signIn = await docs.tryIt(
        'POST',
        '/auth/{deviceClass}/users/authenticate',
        { deviceClass: 'web' },
        JSON.stringify(credential),
      );
      assert.equal(signIn.wire, 200, signIn.shownBody);
      const { tokens } = JSON.parse(signIn.shownBody) as { tokens: { accessToken: string } };

      await docs.authorize(/Name: Authorization/, `Bearer ${tokens.accessToken}`);
      const devices = '/accounts/{accountNumber}/devices';
      const call = await docs.tryIt('GET', devices, { accountNumber: demo.accountNumber });
      assert.equal(call.wire, 200, call.shownBody);
      assert.equal(call.shown, '200');
      assert.equal(call.headers.authorization, `Bearer ${tokens.accessToken}`);
      const listed = JSON.parse(call.shownBody) as { mediaPlayerId: string }[];
      assert.deepEqual(
        listed.map((device) => device.mediaPlayerId),
        ['docs-browser'],
      );
      assertCleanPage(docs);
    } finally {
      await docs.close();
    }
  });

  it('assistant-auth: every contract path with its operation id, try-it with a client key, kept on reload', async () => {
    assert.ok(running);
    const { key } = await running.core.apiKeys.create('client', 'docs-browser');
    const docs = await open('assistant-auth');
    try {
      const rendered = await docs.operations();
      const served = await servedOperations(`${url('assistant-auth')}/openapi.json`);
      assertSpecOperations(rendered, served, AREA_B_OPERATIONS);
      assertAllRendered(rendered, served);
      const schemes = await docs.authorizeSchemes();
      assert.ok(
        schemes.some((scheme) => scheme.includes('X-API-Key')),
        `schemes: ${schemes.join(' | ')}`,
      );

      await docs.authorize(API_KEY_SCHEME, key);
      const call = await docs.tryIt('GET', '/config', {});
      assert.equal(call.wire, 200, `try-it answered ${call.wire}`);
      assert.equal(call.shown, '200');
      assert.equal(call.url, `${url('assistant-auth')}/config`);
      assert.equal(call.headers['x-api-key'], key);

      // persistAuthorization: after a reload the key is still applied, without the dialog.
      await docs.page.reload({ waitUntil: 'load' });
      await docs.page.waitForSelector('.swagger-ui .opblock');
      const again = await docs.tryIt('GET', '/config', {});
      assert.equal(again.wire, 200, `try-it after reload answered ${again.wire}`);
      assert.equal(again.headers['x-api-key'], key);
      assertCleanPage(docs);
    } finally {
      await docs.close();
    }
  });

  it('agents: every route with its operation id, try-it with a runtime key', async () => {
    assert.ok(running);
    const { key } = await running.core.apiKeys.create('runtime', 'docs-browser');
    const docs = await open('agents');
    try {
      const rendered = await docs.operations();
      const served = await servedOperations(`${url('agents')}/openapi.json`);
      assertSpecOperations(rendered, served, AREA_C_OPERATIONS);
      assertAllRendered(rendered, served);
      const schemes = await docs.authorizeSchemes();
      assert.ok(
        schemes.some((scheme) => scheme.includes('X-API-Key')),
        `schemes: ${schemes.join(' | ')}`,
      );

      assert.ok(
        schemes.some((scheme) => /Bearer/.test(scheme)),
        `bearer scheme: ${schemes.join(' | ')}`,
      );

      await docs.authorize(API_KEY_SCHEME, key);
      const call = await docs.tryIt('GET', '/agents', {});
      assert.equal(call.wire, 200, `try-it answered ${call.wire}`);
      assert.equal(call.shown, '200');
      assert.equal(call.url, `${url('agents')}/agents`);
      assert.equal(call.headers['x-api-key'], key);
      assertCleanPage(docs);
    } finally {
      await docs.close();
    }
  });

  it('agents: try-it with a bearer token signed by the assistant, typed into the Authorize dialog', async () => {
    assert.ok(running);
    const token = await createAssistantSigner(running.core).sign(
      { sub: 'docs-browser' },
      { audience: AGENTS_AUDIENCE },
    );
    const docs = await open('agents');
    try {
      await docs.authorize(BEARER_SCHEME, token);
      const call = await docs.tryIt('GET', '/agents', {});
      assert.equal(call.wire, 200, `try-it answered ${call.wire}`);
      assert.equal(call.shown, '200');
      assert.equal(call.headers.authorization, `Bearer ${token}`);
      assert.equal(call.headers['x-api-key'], undefined);
      assertCleanPage(docs);
    } finally {
      await docs.close();
    }
  });
});
