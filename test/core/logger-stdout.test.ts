import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;

/** Runs `body` in a child process with `logger` (createLogger on stdout) in scope; its stdout lines as they come. */
function runLogging(body: string) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { createLogger } from './src/core/core.ts';\nconst logger = createLogger({ LOG_LEVEL: 'info' });\n${body}`,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines: Array<Record<string, unknown>> = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString();
    const parts = text.split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) if (part) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

const until = async (condition: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
};

describe('service logs on stdout (written once per event-loop turn)', () => {
  it('a line is out while the process waits, without 16 KiB of lines behind it', async () => {
    // The child waits far longer than a loaded machine takes to start it; it is killed once the line is in.
    const run = runLogging(`logger.info({ n: 1 }, 'first');\nsetTimeout(() => {}, 300_000);`);
    try {
      assert.ok(
        await until(() => run.lines.length === 1, 120_000),
        'the line did not reach stdout while the process waited',
      );
      assert.equal(run.lines[0]?.msg, 'first');
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
    }
  });

  /** Runs `body`, which ends in process.exit(code): the [msg, n] of the lines it wrote, once `count` arrived. */
  async function linesBeforeExit(body: string, code: number, count: number) {
    const run = runLogging(`${body}\nprocess.exit(${code});`);
    assert.equal(await run.exited, code);
    await until(() => run.lines.length === count, 2_000);
    return run.lines.map((line) => [line.msg, line.n]);
  }

  it('lines logged just before process.exit are not lost', async () => {
    assert.deepEqual(
      await linesBeforeExit(
        `for (let n = 0; n < 3; n++) logger.info({ n }, 'before exit');\nlogger.fatal('stopping');`,
        3,
        4,
      ),
      [
        ['before exit', 0],
        ['before exit', 1],
        ['before exit', 2],
        ['stopping', undefined],
      ],
    );
  });

  it('lines of the turn that calls process.exit are written, without a fatal line to flush them', async () => {
    assert.deepEqual(
      await linesBeforeExit(`for (let n = 0; n < 3; n++) logger.info({ n }, 'last turn');`, 4, 3),
      [
        ['last turn', 0],
        ['last turn', 1],
        ['last turn', 2],
      ],
    );
  });

  it('many lines in one turn all arrive, in order', async () => {
    const run = runLogging(`for (let n = 0; n < 2000; n++) logger.info({ n }, 'bulk');`);
    assert.equal(await run.exited, 0);
    await until(() => run.lines.length === 2000, 2_000);
    assert.equal(run.lines.length, 2000);
    assert.ok(run.lines.every((line, index) => line.n === index));
  });
});
