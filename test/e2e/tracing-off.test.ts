import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultServiceName, tracingWanted } from '../../src/core/tracing/tracing.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { serveAgents } from '../helpers/processes.ts';

describe('tracing is off unless an OTLP endpoint is set', () => {
  it('on with an endpoint (base or traces), unless the SDK is disabled or the exporter is none', () => {
    assert.equal(tracingWanted({}), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
    assert.equal(
      tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
      true,
    );
    assert.equal(
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
      false,
    );
    assert.equal(
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }),
      false,
    );
    assert.equal(defaultServiceName(['agents']), 'sintonia-agents');
    assert.equal(defaultServiceName(['agents', 'client-api']), 'sintonia');
  });

  describe('what `serve` loads', () => {
    let core: TestCore;
    let folder: string;
    before(async () => {
      core = await createTestCore();
      folder = mkdtempSync(join(tmpdir(), 'sintonia-otel-'));
    });
    after(async () => {
      await core.dispose();
      rmSync(folder, { recursive: true, force: true });
    });

    /** Serves the agents with a module hook that writes down every OpenTelemetry module imported; answers those. */
    async function loadedModules(name: string, env: Record<string, string>): Promise<string[]> {
      const list = join(folder, `${name}.txt`);
      const hook = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/opentelemetry|import-in-the-middle/.test(resolved.url)) appendFileSync(${JSON.stringify(list)}, resolved.url + '\\n');
  return resolved;
}`;
      const register = join(folder, `${name}.mjs`);
      writeFileSync(
        register,
        `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});\n`,
      );
      const served = await serveAgents(core.env, { NODE_OPTIONS: `--import=${register}`, ...env });
      try {
        assert.equal((await fetch(`${served.url}/healthz`)).status, 200);
      } finally {
        served.child.kill('SIGTERM');
        await served.exited;
      }
      return existsSync(list) ? readFileSync(list, 'utf8').split('\n').filter(Boolean) : [];
    }

    it('off: not one OpenTelemetry module is imported', async () => {
      assert.deepEqual(await loadedModules('off', {}), []);
    });

    it('on: the SDK is imported (the check above can see it)', async () => {
      const loaded = await loadedModules('on', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
      assert.ok(
        loaded.some((url) => url.includes('@opentelemetry/sdk-node')),
        loaded.join('\n'),
      );
    });
  });
});
