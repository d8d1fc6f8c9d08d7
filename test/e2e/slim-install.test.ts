import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { testDatabase } from '../helpers/harness.ts';
import { freePort, gatherOutput } from '../helpers/processes.ts';
import { until } from '../helpers/until.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** The install steps of docs/production.md, which the Dockerfile runs too (checked below). */
const PACK = 'npm pack --pack-destination';
/** In the install folder: the package unpacked, then its runtime dependencies from its lockfile. */
const install = (pack: string) => `tar -xzf ${pack}/sintonia-*.tgz --strip-components=1 && npm ci --omit=dev`;
/**
 * Dev tools that must not reach a production install, nor Web Chat's tree: the build copies its one bundle
 * into dist/webchat/ (scripts/build.mjs).
 */
const DEV_TOOLS = [
  'typescript',
  'tsx',
  '@biomejs',
  'playwright-core',
  'fast-check',
  'botframework-webchat',
  'react',
];
/** The production install's budget on disk (`du`), in MiB: it was 572 MiB with Web Chat's tree. */
const INSTALL_BUDGET_MIB = 200;

/** The JSON array after `prefix` on a line of the Dockerfile (exec form). */
function execForm(prefix: string): string[] {
  const line = dockerfile.split('\n').find((text) => text.startsWith(prefix));
  assert.ok(line, `the Dockerfile has a ${prefix} line`);
  return JSON.parse(line.slice(prefix.length)) as string[];
}

/** The environment of a fresh shell: no npm_* variables of an enclosing `npm test`. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'),
  );
  return { ...env, ...extra };
}

function sh(
  command: string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env: shellEnv(env) });
    const gathered = gatherOutput(child);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: gathered.all }));
  });
}

interface Installed {
  /** As the lockfile names it: `node_modules/a/node_modules/@b/c`, from the folder the tree is under. */
  path: string;
  name: string;
  version: string;
}

/** Every package folder under a node_modules tree, nested ones included, with its version. */
function installedTree(modules: string, at = 'node_modules'): Installed[] {
  if (!existsSync(modules)) return [];
  const found: Installed[] = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const packages = entry.name.startsWith('@')
      ? readdirSync(join(modules, entry.name)).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of packages) {
      const folder = join(modules, name);
      const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
        version: string;
      };
      found.push(
        { path: `${at}/${name}`, name, version },
        ...installedTree(join(folder, 'node_modules'), `${at}/${name}/node_modules`),
      );
    }
  }
  return found;
}

interface LockEntry {
  version?: string;
  dev?: boolean;
  os?: string[];
  cpu?: string[];
}

/**
 * A loopback mirror of better-sqlite3's prebuilt binaries, serving the one this machine's own install built,
 * packed as prebuild-install downloads it from the project's GitHub releases
 * (`v{version}/better-sqlite3-v{version}-node-v{abi}-{platform}-{arch}.tar.gz`, holding
 * build/Release/better_sqlite3.node). Where GitHub cannot be reached (CI reaches the npm registry only),
 * better-sqlite3 would otherwise compile sqlite3.c, minutes on a busy machine; the install is otherwise the
 * same. npm_config_better_sqlite3_binary_host points prebuild-install at it.
 */
async function binaryMirror(folder: string) {
  const driver = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const archive = join(folder, name);
  const packed = await sh(`tar -czf ${archive} build/Release/better_sqlite3.node`, driver);
  assert.equal(packed.code, 0, packed.output);
  const served: string[] = [];
  const server = createServer((request, response) => {
    served.push(request.url ?? '');
    if (request.url !== `/v${version}/${name}`) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/gzip' });
    response.end(readFileSync(archive));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: { npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${port}` },
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Running {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

function start(command: string[], cwd: string, env: Record<string, string>, group = false): Running {
  const [file = '', ...args] = command;
  const child = spawn(file, args, { cwd, env: shellEnv(env), detached: group });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

const answers = (url: string) =>
  fetch(url)
    .then((response) => response.status)
    .catch(() => undefined);

/**
 * The package as an operator installs it: packed (`npm pack`, which builds dist/ and adds the lockfile as
 * npm-shrinkwrap.json), unpacked in a folder of its own, its runtime dependencies installed there from
 * that lockfile (`npm ci --omit=dev`), and started there, the way the Dockerfile's stages do it. better-sqlite3's binary comes from a loopback mirror of the one this machine
 * built (binaryMirror), as it would from GitHub; packing and installing still take a minute or two, so
 * this runs once, on the SQLite pass.
 */
describe('the slim production install: npm pack, unpacked, npm ci --omit=dev, sintonia serve', {
  skip: testDatabase === 'postgres' ? 'packs and installs once, on the SQLite pass' : false,
  timeout: 590_000,
}, () => {
  let scratch: string;
  let tarball: string;
  let app: string;
  let packed: { files: { path: string }[] }[];
  let installOutput: string;
  let env: Record<string, string>;
  let clientApi: string;
  let assistantAuth: string;
  const running: Running[] = [];

  before(
    async () => {
      scratch = mkdtempSync(join(tmpdir(), 'sintonia-slim-'));
      tarball = join(scratch, 'pack');
      app = join(scratch, 'app');
      mkdirSync(tarball);
      mkdirSync(app);
      const packStarted = Date.now();
      const pack = await sh(`${PACK} ${tarball} --json`, root);
      assert.equal(pack.code, 0, pack.output);
      packed = JSON.parse(pack.output.slice(pack.output.indexOf('\n[') + 1)) as typeof packed;
      const mirror = await binaryMirror(scratch);
      const installStarted = Date.now();
      try {
        const installed = await sh(install(tarball), app, mirror.env);
        assert.equal(installed.code, 0, installed.output);
        installOutput = installed.output;
        assert.equal(mirror.served.length, 1, 'better-sqlite3 downloaded its binary from the mirror');
        process.stdout.write(
          `# slim install: npm pack ${((installStarted - packStarted) / 1000).toFixed(1)} s, ` +
            `unpack and npm ci --omit=dev ${((Date.now() - installStarted) / 1000).toFixed(1)} s\n`,
        );
      } finally {
        await mirror.close();
      }
      const [clientApiPort, assistantAuthPort, agentsPort] = [
        await freePort(),
        await freePort(),
        await freePort(),
      ];
      clientApi = `http://127.0.0.1:${clientApiPort}`;
      assistantAuth = `http://127.0.0.1:${assistantAuthPort}`;
      env = {
        HOST: '127.0.0.1',
        CLIENT_API_PORT: String(clientApiPort),
        ASSISTANT_AUTH_PORT: String(assistantAuthPort),
        AGENTS_PORT: String(agentsPort),
        SINTONIA_DATA_DIR: join(app, 'data'),
        SINTONIA_DEMO: '1',
        LOG_LEVEL: 'warn',
      };
    },
    { timeout: 540_000 },
  );

  after(async () => {
    for (const server of running) {
      if (server.child.exitCode === null && server.child.pid) {
        try {
          process.kill(-server.child.pid, 'SIGKILL');
        } catch {
          server.child.kill('SIGKILL');
        }
      }
      await server.exited;
    }
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('the tarball holds the compiled dist/ with the Web Chat bundle, bin/ and the lockfile, no sources or tests', () => {
    const files = (packed[0]?.files ?? []).map((file) => file.path);
    for (const file of ['bin/sintonia.mjs', 'dist/cli/main.js', 'npm-shrinkwrap.json']) {
      assert.ok(files.includes(file), file);
    }
    for (const file of ['webchat.js', 'webchat.js.LICENSE.txt', 'webchat.json']) {
      assert.ok(files.includes(`dist/webchat/${file}`), file);
    }
    assert.deepEqual(
      files.filter(
        (path) =>
          !/^(dist\/.*\.js|dist\/webchat\/webchat\.(js\.LICENSE\.txt|json)|bin\/sintonia\.mjs|package\.json|npm-shrinkwrap\.json|README\.md)$/.test(
            path,
          ),
      ),
      [],
    );
    assert.equal(existsSync(join(root, 'npm-shrinkwrap.json')), false, 'postpack removed the copy');
  });

  it('the install prints no warning', () => {
    // Bar npm's word on the test's own mirror variable (binaryMirror), which no production install sets.
    const mirrorVariable = /^npm warn Unknown env config "better-sqlite3-binary-host"/;
    assert.deepEqual(
      installOutput.split('\n').filter((line) => /\bwarn/i.test(line) && !mirrorVariable.test(line)),
      [],
      installOutput,
    );
  });

  it('its node_modules holds exactly the runtime dependencies of package-lock.json, at their versions', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const installed = installedTree(join(app, 'node_modules'));
    const fits = (entry: LockEntry) =>
      (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch));
    const expected = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !entry.dev && fits(entry))
      .map(([path, entry]) => `${path}@${entry.version}`)
      .sort();
    assert.deepEqual(installed.map((found) => `${found.path}@${found.version}`).sort(), expected);
    assert.ok(
      installed.some((found) => found.name === 'better-sqlite3'),
      'better-sqlite3 installed',
    );
  });

  it(`its node_modules holds no TypeScript, tsx, Biome, test tools nor Web Chat, within ${INSTALL_BUDGET_MIB} MiB`, async () => {
    const names = installedTree(join(app, 'node_modules')).map((found) => found.name);
    assert.deepEqual(
      names.filter((name) => DEV_TOOLS.some((tool) => name === tool || name.startsWith(`${tool}/`))),
      [],
    );
    const du = await sh('du -sk node_modules', app);
    assert.equal(du.code, 0, du.output);
    const mib = Number.parseInt(du.output, 10) / 1024;
    process.stdout.write(`# slim install: node_modules ${mib.toFixed(0)} MiB (du)\n`);
    assert.ok(mib <= INSTALL_BUDGET_MIB, `${mib.toFixed(0)} MiB`);
  });

  it('the Dockerfile runs these same steps, and its entry point and health check work here', async () => {
    assert.match(dockerfile, new RegExp(`^RUN ${PACK} /pack$`, 'm'));
    assert.ok(dockerfile.includes(`RUN ${install('/pack')}\n`));
    const entry = [...execForm('ENTRYPOINT '), ...execForm('CMD ')];
    // The HEALTHCHECK's command, on the line that continues it.
    const probe = JSON.parse(
      dockerfile.match(/^HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m)?.[1] ?? '[]',
    ) as string[];
    assert.equal(probe[0], 'node', 'the HEALTHCHECK runs node (no curl in the slim image)');
    const runProbe = () =>
      new Promise<number | null>((resolve) => {
        const child = start(probe, app, env);
        child.exited.then(resolve);
      });

    const server = start(entry, app, env);
    running.push(server);
    await until(
      async () => ((await answers(`${clientApi}/healthz`)) === 200 ? true : undefined),
      `the entry point serving:\n${server.output()}`,
      60_000,
    );
    assert.equal(await runProbe(), 0, 'HEALTHCHECK healthy while it serves');

    // A real operation on the installed store (better-sqlite3's native module): the demo user signs a
    // device in, saves a playback position and reads it back.
    const base = `${clientApi}/api/v1`;
    const signIn = await fetch(`${base}/auth/web/users/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo@sintonia.test', password: 'sintonia-demo', deviceId: 'slim-1' }),
    });
    const session = (await signIn.json()) as { tokens: { accessToken: string }; user: { userHash: string } };
    assert.equal(signIn.status, 200, JSON.stringify(session));
    const auth = { authorization: `Bearer ${session.tokens.accessToken}` };
    const userHash = session.user.userHash;
    const saved = await fetch(`${base}/web/slim-1/users/${userHash}/bookmarks/1234/600`, {
      method: 'POST',
      headers: auth,
    });
    assert.equal(saved.status, 200, await saved.text());
    const read = await fetch(`${base}/web/users/${userHash}/bookmarks/1234`, { headers: auth });
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { offset: number }).offset, 600);

    // The chat page's Web Chat bundle comes from the package's dist/webchat/.
    const page = await (await fetch(`${assistantAuth}/chat`)).text();
    const bundle = page.match(/\/chat\/assets\/webchat-[\d.]+\.js/)?.[0];
    assert.ok(bundle, page);
    const webChat = await fetch(`${assistantAuth}${bundle}`);
    assert.equal(webChat.status, 200);
    assert.ok((await webChat.arrayBuffer()).byteLength > 1_000_000);

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    assert.equal(await runProbe(), 1, 'HEALTHCHECK unhealthy once it stopped');
  });

  it('`npx sintonia serve` in the installed folder serves', async () => {
    // npx runs the bin under `npm exec` and a shell: stopped as a group, as a terminal's Ctrl-C would.
    const server = start(['npx', 'sintonia', 'serve'], app, env, true);
    running.push(server);
    await until(
      async () => ((await answers(`${clientApi}/healthz`)) === 200 ? true : undefined),
      `npx sintonia serve serving:\n${server.output()}`,
      60_000,
    );
    const ready = await fetch(`${assistantAuth}/readyz`);
    assert.equal(ready.status, 200);
    process.kill(-(server.child.pid ?? 0), 'SIGTERM');
    await server.exited;
    await until(
      async () => ((await answers(`${clientApi}/healthz`)) === undefined ? true : undefined),
      'the server stopped',
      30_000,
    );
  });
});
