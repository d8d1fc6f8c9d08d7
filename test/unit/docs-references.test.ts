import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commands } from '../../src/cli/main.ts';
import { describeConfig } from '../../src/core/config.ts';
import type { ServiceName } from '../../src/core/core.ts';
import { definedErrors } from '../../src/core/errors.ts';
import { createTestApp } from '../helpers/harness.ts';

/**
 * The README and the operator's pages under docs/ name things an operator will type or look for: a
 * configuration variable, a `sintonia` command, an `npm run` script, an error type, a file of the
 * repository. Each of those must exist, so a renamed variable or a removed command fails here rather than
 * in front of an operator. (The configuration table itself is checked against the schema below.)
 */

const root = join(import.meta.dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'decisions.md')
    .map((name) => join('docs', name)),
];
/** Where the operator finds every variable (the table `scripts/config-table.ts` prints). */
const CONFIGURATION_PAGE = 'docs/configuration.md';
const read = (page: string) => readFileSync(join(root, page), 'utf8');

/**
 * Variables that are not ours: the shell's, PostgreSQL's clients', OpenTelemetry's, the test and bench
 * runners'; `NAME_FILE` is how the docs spell "any secret's file variable".
 */
const foreignVariable =
  /^(OTEL_|PG[A-Z]|NODE_|SINTONIA_TEST_|SINTONIA_TV_SIGN_IN_SCREENSHOTS$|BENCH_|CHROMIUM_PATH$|DEBIAN_FRONTEND$|NAME_FILE$|CI$|HOME$|PATH$|ON_ERROR_STOP$)/;

function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
}

function inlineCode(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
}

describe('what the README and docs/ name exists', () => {
  const errorTypes = new Set<string>();
  const closers: Array<() => Promise<void>> = [];
  before(async () => {
    // The error catalogues fill as each service's modules load.
    for (const name of ['client-api', 'assistant-auth', 'agents'] as ServiceName[]) {
      closers.push((await createTestApp(name)).close);
    }
    for (const spec of definedErrors()) errorTypes.add(spec.type);
  });
  after(async () => {
    for (const close of closers) await close();
  });

  const variables = new Set(describeConfig().map((row) => row.name));

  it('every variable named is a configuration variable (or plainly not ours)', () => {
    const unknown: string[] = [];
    for (const page of pages) {
      const markdown = read(page);
      const named = [
        ...inlineCode(markdown).flatMap(
          (code) => code.match(/^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=.*)?$/)?.[1] ?? [],
        ),
        ...codeBlocks(markdown).flatMap((block) =>
          [...block.matchAll(/(?:^|\s)(?:export\s+)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/gm)].map(
            (m) => m[1] ?? '',
          ),
        ),
      ];
      for (const name of named) {
        if (variables.has(name) || errorTypes.has(name) || foreignVariable.test(name)) continue;
        unknown.push(`${page}: ${name}`);
      }
    }
    assert.deepEqual(unknown, [], 'named but neither configured nor an error type');
  });

  it('every `sintonia` command shown exists', () => {
    const names = commands.map((command) => command.name).sort((a, b) => b.length - a.length);
    const unknown: string[] = [];
    for (const page of pages) {
      for (const block of codeBlocks(read(page))) {
        // A shell comment is prose, not a command.
        const commandLines = block.replace(/(^|\s)#.*$/gm, '');
        for (const match of commandLines.matchAll(
          /(?:^|[\s;&|(])(?:npx[ \t]+)?(?:sintonia|bin\/sintonia\.mjs)[ \t]+([a-z][a-z-]*(?:[ \t]+[a-z][a-z-]*)?)(?=\s|$)/gm,
        )) {
          const invoked = match[1] ?? '';
          if (
            !names.some(
              (name) => invoked === name || invoked.startsWith(`${name} `) || name.startsWith(invoked),
            )
          ) {
            unknown.push(`${page}: sintonia ${invoked}`);
          }
        }
      }
    }
    assert.deepEqual(unknown, []);
  });

  it('every `npm run` script shown is in package.json', () => {
    const scripts = Object.keys(
      (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
    );
    const unknown: string[] = [];
    for (const page of pages) {
      for (const match of read(page).matchAll(/npm run ([a-z][a-z:-]*)/g)) {
        if (!scripts.includes(match[1] ?? '')) unknown.push(`${page}: npm run ${match[1]}`);
      }
    }
    assert.deepEqual(unknown, []);
  });

  it('the configuration table is the one the configuration schema prints, whole', () => {
    const printed = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/config-table.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(printed.status, 0, printed.stderr);
    const table = printed.stdout.trim();
    const holders = pages.filter((page) => read(page).includes(table));
    assert.deepEqual(
      holders,
      [CONFIGURATION_PAGE],
      'run `node --import tsx scripts/config-table.ts` and paste its table',
    );
  });

  it('every relative link leads to a file of the repository', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const match of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (match[1] ?? '').split('#')[0] ?? '';
        if (target === '' || /^[a-z]+:/i.test(target)) continue;
        const path = join(root, dirname(page), target);
        if (!existsSync(path)) broken.push(`${page}: ${target} (${relative(root, path)})`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
