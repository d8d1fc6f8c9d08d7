import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { AGENTS_AUDIENCE } from '../../src/agents/auth.ts';
import { createAssistantSigner } from '../../src/assistant-auth/signing/signer.ts';
import { createAccountRepository } from '../../src/client-api/accounts/repository.ts';
import { createAccountService } from '../../src/client-api/accounts/service.ts';
import type { ServiceName } from '../../src/core/core.ts';
import { type DocsPage, launchChromium, openDocsPage, type RenderedOperation } from '../helpers/docs-page.ts';
import { startTestFamily } from '../helpers/harness.ts';

/** Every operation id of SPEC's area A tables. */
const AREA_A_OPERATION_IDS = [
  'AccountManagement_TearDownSessionsAsync',
  'AccountManagement_TearDownDeviceSessionsAsync',
  'AccountManagement_GetValidDevicesAsync',
  'AccountManagement_DeleteMediaPlayersAsync',
  'AccountManagement_GetDeviceAsync',
  'AccountManagement_DeleteMediaPlayerAsync',
  'AccountManagement_SetMediaPlayerEnabledAsync',
  'AccountManagement_GetMediaPlayerNameAsync',
  'AccountManagement_UpdateMediaPlayerNameAsync',
  'AccountManagement_GetUserHashAsync',
  'AccountManagement_GetPlayingDeviceIdsAsync',
  'AccountManagement_CheckHomeZoneSubscriptionAsync',
  'AccountManagement_GetUserByEmailAsync',
  'AccountManagement_GetUsersByEmailAsync',
  'AccountManagement_RequestSendEmailAsync',
  'AccountManagement_SetUserRatingAsync',
  'AccountManagement_PostByDeviceClassContentsByModuleByContentIdRatingsByRating',
  'AccountManagement_AddContactAsync',
  'AccountManagement_UpgradeUserAsync',
  'Ad_GetContentAdInfoAsync',
  'Authentication_GetTokensAsync',
  'Authentication_GetUserAsync',
  'Authentication_BasicAuthenticateUserAsync',
  'Authentication_HeadAuthByDeviceClassUsersAuthenticate',
  'Authentication_AuthenticateUserAsync',
  'Bookmarks_GetBookmarkAsync',
  'Bookmarks_AddBookmarkAsync',
];

/** SPEC's area B table has no operation ids: every (method, path) of it must be on the page. */
const AREA_B_OPERATIONS = [
  'GET /users/assistant-id',
  'GET /users/assistant-id/{assistantId}',
  'GET /users/assistantid/integrated',
  'DELETE /admin/users/phone-numbers/{phone_number}',
  'GET /users/assistantid/integrated/logout',
  'DELETE /users/{assistantId}',
  'GET /users/{assistantId}',
  'GET /users/assistant-id-global/{assistant_id_global}',
  'GET /token',
  'GET /token/wss',
  'GET /openid/issuer/.well-known/openid-configuration',
  'GET /openid/jwk',
  'GET /healthz',
  'GET /ping',
  'GET /config',
  'GET /metrics',
];

/** The agents server's routes (DESIGN section 6). */
const AREA_C_OPERATIONS = [
  'GET /agents',
  'GET /agents/{name}',
  'POST /agents/{name}/invoke',
  'POST /agents/{name}/stream',
];

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
  assert.deepEqual(missing, [], 'SPEC operations missing from the document or the page');
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

  it('client-api: every SPEC operation id, the four media types, try-it with a back-office key', async () => {
    assert.ok(running);
    const accountNumber = 'DOCS-0001';
    await createAccountService(running.core, createAccountRepository(running.core.database)).create(
      accountNumber,
    );
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
        'SPEC area A operation ids missing from the page',
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

  it('assistant-auth: every SPEC path with its operation id, try-it with a client key, kept on reload', async () => {
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
