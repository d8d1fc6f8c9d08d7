import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestFamily } from '../helpers/harness.ts';
import { freePort } from '../helpers/processes.ts';
import { until } from '../helpers/until.ts';

const PROMETHEUS = '/usr/bin/prometheus';
const shipped = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));
const services = ['client-api', 'assistant-auth', 'agents'] as const;
const SHIPPED_TARGETS = ['127.0.0.1:8080', '127.0.0.1:8081', '127.0.0.1:8082'];

interface Target {
  labels: { job: string; instance: string };
  health: 'up' | 'down' | 'unknown';
  lastError: string;
}

/**
 * Debian's Prometheus server scraping the three services with deploy/prometheus/prometheus.yml as shipped,
 * only the targets' ports, the key file's path and the scrape interval changed: `up` is 1 for each, through
 * the key in the credentials file. A second job with a revoked key shows the services do check it.
 */
describe('Prometheus scrapes the family with a credentials file', {
  skip: existsSync(PROMETHEUS) ? false : `no ${PROMETHEUS} (Debian package prometheus)`,
  timeout: 180_000,
}, () => {
  let scratch: string;
  let family: Awaited<ReturnType<typeof startTestFamily>>;
  let prometheus: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  let output = '';
  let api = '';

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'sintonia-prometheus-'));
    family = await startTestFamily([...services]);
    const key = (await family.core.apiKeys.create('backoffice', 'prometheus')).key;
    const revoked = await family.core.apiKeys.create('backoffice', 'prometheus-old');
    await family.core.apiKeys.revoke(revoked.id);
    // As an operator writes it: the key and a newline.
    writeFileSync(join(scratch, 'sintonia.key'), `${key}\n`, { mode: 0o400 });
    writeFileSync(join(scratch, 'revoked.key'), `${revoked.key}\n`, { mode: 0o400 });
    const targets = services.map((service) => new URL(family.family.url(service)).host);
    let config = readFileSync(join(shipped, 'prometheus.yml'), 'utf8')
      .replace('scrape_interval: 15s', 'scrape_interval: 1s')
      .replace(
        'credentials_file: /etc/prometheus/sintonia.key',
        `credentials_file: ${join(scratch, 'sintonia.key')}`,
      );
    for (const [index, target] of SHIPPED_TARGETS.entries()) {
      assert.ok(config.includes(target), `${target} in the shipped file`);
      config = config.replace(target, targets[index] as string);
    }
    assert.ok(
      config.includes(`credentials_file: ${join(scratch, 'sintonia.key')}`),
      'the credentials file in the shipped file',
    );
    config += [
      '  - job_name: revoked',
      '    authorization:',
      `      credentials_file: ${join(scratch, 'revoked.key')}`,
      '    static_configs:',
      `      - targets: ['${targets[1]}']`,
      '',
    ].join('\n');
    writeFileSync(join(scratch, 'prometheus.yml'), config);
    copyFileSync(join(shipped, 'alerts.yml'), join(scratch, 'alerts.yml'));
    const port = await freePort();
    api = `http://127.0.0.1:${port}/api/v1`;
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(scratch, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(scratch, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    prometheus.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    exited = new Promise((resolve) => prometheus?.on('close', resolve));
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) prometheus.kill('SIGTERM');
    await exited;
    await family?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** What Prometheus' HTTP API answers at `path`, once it answers. */
  async function ask<T>(path: string): Promise<T | undefined> {
    if (prometheus?.exitCode !== null) throw new Error(`prometheus exited:\n${output}`);
    const response = await fetch(`${api}${path}`).catch(() => undefined);
    if (response?.status !== 200) return undefined;
    return ((await response.json()) as { data: T }).data;
  }

  it('up == 1 for the three services; a revoked key is refused 401 and its target is down', async () => {
    const targets = await until(
      async () => {
        const found = await ask<{ activeTargets: Target[] }>('/targets');
        const active = found?.activeTargets ?? [];
        return active.length === 4 && active.every((target) => target.health !== 'unknown')
          ? active
          : undefined;
      },
      'Prometheus to scrape every target once',
      120_000,
    );
    const byJob = (job: string) => targets.filter((target) => target.labels.job === job);
    assert.deepEqual(
      byJob('sintonia').map(({ health, lastError }) => ({ health, lastError })),
      services.map(() => ({ health: 'up', lastError: '' })),
    );
    assert.equal(byJob('revoked')[0]?.health, 'down');
    assert.match(byJob('revoked')[0]?.lastError ?? '', /401/);

    const up = await until(
      async () => {
        const result =
          (
            await ask<{ result: Array<{ metric: { instance: string }; value: [number, string] }> }>(
              `/query?query=${encodeURIComponent('up{job="sintonia"}')}`,
            )
          )?.result ?? [];
        return result.length === 3 ? result : undefined;
      },
      'up{job="sintonia"} for three instances',
      60_000,
    );
    assert.deepEqual(
      up.map((sample) => [sample.metric.instance, sample.value[1]]).sort(),
      services.map((service) => [new URL(family.family.url(service)).host, '1']).sort(),
    );
    // What was scraped is the services' own: their metrics, under their service label.
    const services_ = await ask<{ result: Array<{ metric: { service: string } }> }>(
      `/query?query=${encodeURIComponent('count by (service) (process_cpu_user_seconds_total{job="sintonia"})')}`,
    );
    assert.deepEqual(services_?.result.map((sample) => sample.metric.service).sort(), [...services].sort());
  });
});
