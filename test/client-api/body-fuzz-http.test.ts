import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type App, buildServiceApp } from '../../src/core/http/service-app.ts';
import { refusalTypes } from '../helpers/body-fuzz/check.ts';
import { type CodecName, codecs } from '../helpers/body-fuzz/codecs.ts';
import { bodyOf, caseOf } from '../helpers/body-fuzz/mutate.ts';
import { readRegressions } from '../helpers/body-fuzz/run.ts';
import { createTestApp, createTestCore, type TestCore } from '../helpers/harness.ts';
import { BASE } from './accounts-fixtures.ts';
import { sampleService } from './media-sample-service.ts';

/**
 * A bounded sample of the body fuzzer's broken bodies (test/unit/media/body-fuzz.test.ts decodes many
 * more in-process) sent through real HTTP handling: the four media types to routes of every body shape,
 * forms to the OAuth token endpoint. Each is answered 2xx or 400/413 with a family error body, within a
 * bound, never 5xx; the kept regression bodies too; and the service still answers /healthz afterwards.
 */

const SEED = 20261128;
const RUNS = 150;
/** Generous beside the in-process bound: it includes routing, validation and the answer. */
const ANSWER_BOUND_MS = 2000;
/** Routes of the sample service by body shape: unknown, object, list, string, integer. */
const routes = ['/echo/any', '/devices', '/echo/list', '/echo/string', '/echo/integer'];

async function assertAnswered(app: App, url: string, contentType: string, payload: Buffer, form = false) {
  const started = performance.now();
  const response = await app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': contentType, accept: 'application/json' },
    payload,
  });
  const took = performance.now() - started;
  const what = `${url} ${payload.toString('hex').slice(0, 160)}: ${response.statusCode} ${response.body.slice(0, 300)}`;
  assert.ok(took < ANSWER_BOUND_MS, `took ${Math.round(took)} ms: ${what}`);
  assert.ok(response.statusCode < 500, what);
  if (response.statusCode < 300) return;
  const type = response.json().errors?.[0]?.type;
  // The OAuth endpoints answer their own refusals (unknown code, grant type…); a broken form is one too.
  if (form) assert.equal(typeof type, 'string', what);
  else assert.ok([400, 413].includes(response.statusCode) && refusalTypes.has(type), what);
}

async function assertHealthy(app: App) {
  const health = await app.inject({ url: '/healthz' });
  assert.equal(health.statusCode, 200, health.body);
}

describe('body fuzzer through HTTP: broken bodies are answered and the service keeps answering', () => {
  let core: TestCore;
  let media: App;
  let clientApi: { app: App; close(): Promise<void> };
  before(async () => {
    core = await createTestCore();
    media = await buildServiceApp(core, sampleService());
    await media.ready();
    clientApi = await createTestApp('client-api');
  });
  after(async () => {
    await media.close();
    await core.dispose();
    await clientApi.close();
  });

  const mediaCodecs: CodecName[] = ['json', 'bson', 'ubjson', 'xml'];
  for (const name of mediaCodecs) {
    it(`${name}: regression bodies and ${RUNS} broken ones to routes of every body shape`, async () => {
      const codec = codecs[name];
      for (const hex of readRegressions(name)) {
        for (const route of routes) {
          await assertAnswered(media, `/api/v1${route}`, codec.contentType, Buffer.from(hex, 'hex'));
        }
      }
      await fc.assert(
        fc.asyncProperty(caseOf(codec, routes.length), async (fuzzCase) => {
          const url = `/api/v1${routes[fuzzCase.schema] ?? '/echo/any'}`;
          await assertAnswered(media, url, codec.contentType, bodyOf(codec, fuzzCase));
        }),
        { seed: SEED, numRuns: RUNS },
      );
      await assertHealthy(media);
    });
  }

  it(`form: regression bodies and ${RUNS} broken forms to the OAuth token endpoint`, async () => {
    const codec = codecs.form;
    const url = `${BASE}/oauth/token`;
    const bodies = readRegressions('form').map((hex) => Buffer.from(hex, 'hex'));
    for (const body of bodies) await assertAnswered(clientApi.app, url, codec.contentType, body, true);
    await fc.assert(
      fc.asyncProperty(caseOf(codec, 1), async (fuzzCase) => {
        await assertAnswered(clientApi.app, url, codec.contentType, bodyOf(codec, fuzzCase), true);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    await assertHealthy(clientApi.app);
  });
});
