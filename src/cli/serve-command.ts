import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatPageEnabled } from '../assistant-auth/chat-page/settings.ts';
import { type KeyClass, keyClasses } from '../core/api-keys/api-keys.ts';
import { type Core, type ServiceName, serviceNames } from '../core/core.ts';
import { type RunningFamily, seedDemo, startFamily } from '../family.ts';
import { type Command, options, UsageError } from './command.ts';

const demoFile = (core: Core) => join(core.config.SINTONIA_DATA_DIR, 'demo-credentials.json');
const demoKeyName = (keyClass: KeyClass) => `demo-${keyClass}`;

/** The demo data set recorded by an earlier load, if the file is there and readable. */
function recordedDemo(core: Core): Record<string, unknown> | undefined {
  if (!existsSync(demoFile(core))) return undefined;
  try {
    return JSON.parse(readFileSync(demoFile(core), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * One live demo key per class. Keys are stored hashed, so a secret can only be printed again from the
 * recorded file: those keys are kept when each still verifies and is its class's only live demo key;
 * otherwise every live demo key is revoked and one new set is made.
 */
async function demoKeys(core: Core, recorded: unknown): Promise<Record<KeyClass, string>> {
  const live = (await core.apiKeys.list()).filter(
    (record) => record.revokedAt === null && record.name === demoKeyName(record.keyClass),
  );
  const previous = (typeof recorded === 'object' && recorded !== null ? recorded : {}) as Record<
    string,
    unknown
  >;
  let reusable = true;
  for (const keyClass of keyClasses) {
    const key = previous[keyClass];
    const verified = typeof key === 'string' ? await core.apiKeys.verify(key) : undefined;
    const ofClass = live.filter((record) => record.keyClass === keyClass);
    if (!verified || verified.keyClass !== keyClass || ofClass.length !== 1 || ofClass[0]?.id !== verified.id)
      reusable = false;
  }
  if (reusable) return previous as Record<KeyClass, string>;
  for (const record of live) await core.apiKeys.revoke(record.id);
  const keys = {} as Record<KeyClass, string>;
  for (const keyClass of keyClasses)
    keys[keyClass] = (await core.apiKeys.create(keyClass, demoKeyName(keyClass))).key;
  return keys;
}

/**
 * Loads the demo data set: one API key per class plus each service's demo records, found or created, so
 * loading it again changes nothing. The credentials are written to the data folder (mode 0600) so that
 * every later start can print them again.
 */
export async function loadDemo(core: Core): Promise<Record<string, unknown>> {
  const apiKeys = await demoKeys(core, recordedDemo(core)?.apiKeys);
  const demo = { apiKeys, ...(await seedDemo(core)) };
  // On PostgreSQL nothing else makes the data folder (the embedded store makes it when it opens).
  mkdirSync(core.config.SINTONIA_DATA_DIR, { recursive: true });
  writeFileSync(demoFile(core), `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

function parseServices(list: string | undefined): ServiceName[] {
  if (list === undefined) return [...serviceNames];
  const names = list.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(serviceNames as readonly string[]).includes(name)) {
      throw new UsageError(
        `--service takes a comma-separated list of ${serviceNames.join(', ')}; got ${name}`,
      );
    }
  }
  return names as ServiceName[];
}

export const serveCommand: Command = {
  name: 'serve',
  usage: `serve [--service ${serviceNames.join(',')}]`,
  summary: 'Run the services (all three by default) until SIGTERM or SIGINT.',
  async run(context) {
    const { values } = options(context.args, { service: { type: 'string' } });
    const names = parseServices(values.service as string | undefined);
    const core = await context.core();
    let demo: Record<string, unknown> | undefined;
    // SINTONIA_DEMO=0 (production): no demo records, no demo keys, nothing printed.
    if (core.database.dialect === 'sqlite' && core.config.SINTONIA_DEMO === '1') {
      demo = recordedDemo(core) ?? (await loadDemo(core));
      // The demo's agents act for linked people with the demo runtime key, unless one is configured.
      const runtimeKey = (demo.apiKeys as Partial<Record<KeyClass, string>> | undefined)?.runtime;
      if (core.config.ASSISTANT_RUNTIME_KEY === undefined && runtimeKey !== undefined) {
        Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
      }
    }
    const family = await startFamily(core, names);
    const running = family.services.map((service) => ({ ...service, url: publicUrl(core, service) }));
    core.logger.info(
      {
        services: Object.fromEntries(family.services.map((service) => [service.name, service.url])),
        publicUrls: Object.fromEntries(running.map((service) => [service.name, service.url])),
      },
      'sintonia is serving',
    );
    warnOfInternalAddresses(core, names);
    printWelcome(core, running, demo);
    await untilStopped(core, family);
    return undefined;
  },
};

/** Where clients reach a service: its public address when one is set, else where it listens. */
function publicUrl(core: Core, service: { name: ServiceName; url: string }): string {
  const configured =
    service.name === 'client-api'
      ? core.config.CLIENT_API_PUBLIC_URL
      : service.name === 'assistant-auth'
        ? core.config.PUBLIC_BASE_URL
        : undefined;
  return configured?.replace(/\/+$/, '') ?? service.url;
}

/**
 * A process started for production (a database URL, no demo data) without the public addresses would
 * hand clients its own: the TV sign-in's verification_uri and the token issuers. Warns naming them.
 */
function warnOfInternalAddresses(core: Core, names: readonly ServiceName[]) {
  const { DATABASE_URL, SINTONIA_DEMO, CLIENT_API_PUBLIC_URL, PUBLIC_BASE_URL } = core.config;
  if (!DATABASE_URL || SINTONIA_DEMO !== '0') return;
  const missing = [
    ...(names.includes('client-api') && !CLIENT_API_PUBLIC_URL ? ['CLIENT_API_PUBLIC_URL'] : []),
    ...((names.includes('assistant-auth') || names.includes('agents')) && !PUBLIC_BASE_URL
      ? ['PUBLIC_BASE_URL']
      : []),
  ];
  if (missing.length === 0) return;
  core.logger.warn(
    { missing },
    `${missing.join(' and ')} not set: clients are given this process's own address (the TV sign-in's verification_uri, the token issuers); set the address clients reach the family at (docs/deployment.md)`,
  );
}

function printWelcome(
  core: Core,
  running: Array<{ name: string; url: string }>,
  demo: Record<string, unknown> | undefined,
) {
  const lines = ['', 'Sintonia is running:'];
  for (const service of running)
    lines.push(
      `  ${service.name.padEnd(15)} ${service.url}   (docs: ${service.url}/docs, health: ${service.url}/healthz)`,
    );
  const assistantAuth = running.find((service) => service.name === 'assistant-auth');
  if (assistantAuth && chatPageEnabled(core)) {
    lines.push('', `Chat with the assistant: ${assistantAuth.url}/chat`);
  }
  if (demo) {
    lines.push('', 'Demo credentials (also in SINTONIA_DATA_DIR/demo-credentials.json):');
    lines.push(JSON.stringify(demo, null, 2).replace(/^/gm, '  '));
  }
  lines.push('', 'Stop with Ctrl-C (SIGINT) or SIGTERM: in-flight requests finish first.', '');
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** After the drain period, the services stop accepting once no connection or request came for this long. */
const DRAIN_QUIET_MS = 100;

/** Waits for SIGTERM/SIGINT, then stops accepting, lets in-flight requests finish and closes the store. */
function untilStopped(core: Core, family: RunningFamily): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = (signal: string) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      core.logger.info({ signal }, 'shutting down');
      const timer = setTimeout(() => {
        core.logger.error({ timeoutMs: core.config.SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out');
        reject(new Error('shutdown timed out'));
      }, core.config.SHUTDOWN_TIMEOUT_MS);
      timer.unref();
      core.lifecycle.draining = true;
      const { SHUTDOWN_DRAIN_MS, SHUTDOWN_TIMEOUT_MS } = core.config;
      family
        .drain({
          minMs: SHUTDOWN_DRAIN_MS,
          quietMs: DRAIN_QUIET_MS,
          maxMs: Math.max(SHUTDOWN_DRAIN_MS, SHUTDOWN_TIMEOUT_MS / 2),
        })
        .then(() => family.close())
        .then(() => {
          clearTimeout(timer);
          core.logger.info('stopped');
          resolve();
        })
        .catch(reject);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
