import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { ServiceName } from '../../src/core/core.ts';
import { startTestFamily } from '../helpers/harness.ts';

const run = promisify(execFile);

const documentPaths: Record<ServiceName, string> = {
  'client-api': '/api/v1/swagger.json',
  'assistant-auth': '/openapi.json',
  agents: '/openapi.json',
};
const services = Object.keys(documentPaths) as ServiceName[];
const bin = (name: string) => join(process.cwd(), 'node_modules', '.bin', name);
/** Neither linter may phone home or look for updates: the test runs offline, as CI may. */
const quiet = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** The linter's exit status and its JSON report; a non-zero exit is data here, not a throw. */
async function lint(
  command: string,
  args: string[],
): Promise<{ code: number; report: unknown; output: string }> {
  let code = 0;
  let stdout = '';
  let stderr = '';
  try {
    ({ stdout, stderr } = await run(command, args, { env: quiet, maxBuffer: 64 * 1024 * 1024 }));
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    code = Number(failed.code ?? 1);
    stdout = failed.stdout ?? '';
    stderr = failed.stderr ?? '';
  }
  const output = `${stdout}${stderr}`;
  let report: unknown;
  try {
    report = JSON.parse(stdout);
  } catch {
    assert.fail(`${command} printed no JSON report:\n${output}`);
  }
  return { code, report, output };
}

/**
 * The documents the services serve, as CI sees them, pass Spectral's `spectral:oas` ruleset and Redocly's
 * `recommended` rules with no error (warnings are reported, not failed on).
 */
describe('the served API documents pass Spectral and Redocly', { timeout: 600_000 }, () => {
  const folder = mkdtempSync(join(tmpdir(), 'sintonia-lint-'));
  const files = {} as Record<ServiceName, string>;
  const ruleset = join(folder, '.spectral.yaml');

  before(async () => {
    writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');
    const family = await startTestFamily(services);
    try {
      for (const service of services) {
        const response = await fetch(`${family.family.url(service)}${documentPaths[service]}`);
        assert.equal(response.status, 200);
        files[service] = join(folder, `${service}.json`);
        writeFileSync(files[service], await response.text());
      }
    } finally {
      await family.close();
    }
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  for (const service of services) {
    it(`${service}: spectral:oas reports no error`, async () => {
      const { code, report, output } = await lint(bin('spectral'), [
        'lint',
        '--ruleset',
        ruleset,
        '--fail-severity',
        'error',
        '--format',
        'json',
        '--quiet',
        files[service],
      ]);
      // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
      const errors = (
        report as Array<{ code: string; severity: number; path: string[]; message: string }>
      ).filter((problem) => problem.severity === 0);
      assert.deepEqual(errors, [], output);
      assert.equal(code, 0, output);
    });

    it(`${service}: Redocly's recommended rules report no error`, async () => {
      const { code, report, output } = await lint(bin('redocly'), [
        'lint',
        '--extends',
        'recommended',
        '--format',
        'json',
        files[service],
      ]);
      const { totals, problems } = report as {
        totals: { errors: number; warnings: number };
        problems: Array<{ ruleId: string; severity: string; message: string }>;
      };
      assert.deepEqual(
        problems.filter((problem) => problem.severity === 'error'),
        [],
        output,
      );
      assert.equal(totals.errors, 0, output);
      assert.equal(code, 0, output);
    });
  }
});
