import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestFamily } from '../helpers/harness.ts';
import { scrape } from '../helpers/metrics-text.ts';

const deploy = fileURLToPath(new URL('../../deploy/', import.meta.url));
const services = ['client-api', 'assistant-auth', 'agents'] as const;
/** Registered only on PostgreSQL (the pool and the pipelined connections): checked exported there. */
const POSTGRES_ONLY = [
  'sintonia_store_pool_connections',
  'sintonia_store_pool_waiting_requests',
  'sintonia_store_pipeline_depth_statements',
  'sintonia_store_pipeline_connections',
];

const promtool = (...args: string[]) =>
  spawnSync('promtool', args, { cwd: `${deploy}prometheus`, encoding: 'utf8' });

/** The metric names a PromQL expression reads (label matchers, ranges, groupings and functions left out). */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(?![a-zA-Z0-9_:]|\s*\()/g)]
    .map((match) => match[1] as string)
    .filter((name) => name.includes('_'));
}

describe('the Prometheus alerts and the Grafana dashboard', () => {
  let exported: Set<string>;
  let dialect: string;
  before(async () => {
    const { family, core, close } = await startTestFamily([...services]);
    dialect = core.database.dialect;
    exported = new Set();
    try {
      for (const service of services) {
        for (const line of (await scrape(core, family.url(service))).split('\n')) {
          const name = /^# TYPE (\S+) (\w+)/.exec(line);
          if (!name) continue;
          exported.add(name[1] as string);
          if (name[2] === 'histogram')
            for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name[1]}${suffix}`);
        }
      }
    } finally {
      await close();
    }
  });

  it('promtool check rules finds alerts.yml clean', () => {
    const run = promtool('check', 'rules', 'alerts.yml');
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /SUCCESS: 5 rules found/);
  });

  it('promtool test rules: each alert fires when it should, and only then (alerts.test.yml)', () => {
    const run = promtool('test', 'rules', 'alerts.test.yml');
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /SUCCESS/);
  });

  it('the PostgreSQL-only metrics are exported on PostgreSQL (on the embedded store, none is)', () => {
    if (dialect === 'sqlite') for (const name of POSTGRES_ONLY) assert.ok(!exported.has(name), name);
    if (dialect !== 'postgres') return;
    for (const name of POSTGRES_ONLY) assert.ok(exported.has(name), name);
  });

  it('every expression of the dashboard and the alerts names a metric the services export', () => {
    const known = new Set([...exported, ...(dialect === 'postgres' ? [] : POSTGRES_ONLY)]);
    const dashboard = JSON.parse(readFileSync(`${deploy}grafana/sintonia.json`, 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
      templating: { list: Array<{ query?: unknown }> };
    };
    const expressions = [
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
      ...dashboard.templating.list.flatMap((variable) =>
        typeof variable.query === 'string' && variable.query.includes('(') ? [variable.query] : [],
      ),
      ...[
        ...readFileSync(`${deploy}prometheus/alerts.yml`, 'utf8').matchAll(
          /expr: (?:\|\n)?([\s\S]*?)\n\s+(?:for|labels):/g,
        ),
      ].map((match) => match[1] as string),
    ];
    assert.ok(dashboard.panels.length >= 15, 'a panel per part of the inside');
    assert.ok(expressions.length >= 20);
    const unknown = expressions.flatMap((expr) =>
      metricNames(expr)
        .filter((name) => !known.has(name))
        .map((name) => `${name} in ${expr}`),
    );
    assert.deepEqual(unknown, []);
    const used = new Set(expressions.flatMap(metricNames));
    for (const name of [
      'sintonia_store_statements_total',
      'sintonia_agent_runs_total',
      'sintonia_mail_outbox_messages',
    ])
      assert.ok(used.has(name), `the dashboard shows ${name}`);
  });
});
