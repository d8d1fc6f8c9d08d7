import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * The shape of `src/`: no import cycle between its files (type-only imports count: a cycle of types is
 * still two files that cannot be read one without the other), and no file past 300 lines.
 */

const root = join(import.meta.dirname, '..', '..');
const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(join(root, 'src'));
const known = new Set(files);

/** Each file's imports of other files of `src/` (static, dynamic and re-exports; relative paths only). */
const imports = new Map(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name))
      .filter((target) => known.has(target));
    return [file, targets];
  }),
);

/** The strongly connected components of more than one file, or of one file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, order.get(next) ?? 0));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component);
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('the files of src/', () => {
  it('import each other without a cycle', () => {
    const described = cycles(imports).map((component) =>
      component
        .map((file) => {
          const within = (imports.get(file) ?? []).filter((target) => component.includes(target));
          return `${relative(root, file)} imports ${within.map((target) => relative(root, target)).join(', ')}`;
        })
        .join('; '),
    );
    assert.deepEqual(described, [], 'move what the files of a cycle share into a file of its own');
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a', 'd']],
    ]);
    assert.deepEqual(
      cycles(graph).map((component) => component.sort()),
      [['a', 'b', 'c'], ['d']],
    );
  });

  it(`are at most ${MAX_LINES} lines each`, () => {
    const long = files
      .map((file) => ({
        file: relative(root, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ lines }) => lines > MAX_LINES);
    assert.deepEqual(long, []);
  });
});

/**
 * Client API access is declared once per operation, in `access.route()` (src/client-api/access.ts), which
 * makes both the operation's document entry and its guards: no other file of src/client-api attaches a
 * guard by hand or builds an operation's document without its guards.
 */
const clientApiDir = join(root, 'src', 'client-api');
const accessModules = new Set(
  ['access.ts', join('auth', 'guards.ts')].map((file) => join(clientApiDir, file)),
);
const namesAGuard = (text: string) =>
  /\b(guards\.authenticate|requireAccount|requireUserHash|requireOperator|requirePerson)\b/.test(text);
const importsOperation = (text: string) =>
  /import\s*\{[^}]*\boperation\b[^}]*\}\s*from\s*'[./]*openapi\.ts'/.test(text);

describe('client-api access', () => {
  const others = files.filter((file) => file.startsWith(`${clientApiDir}/`) && !accessModules.has(file));

  it('is enforced only where it is declared: no other file names a guard or builds an operation', () => {
    assert.ok(others.length > 50, 'the files of src/client-api are read');
    const offenders = others
      .filter((file) => {
        const text = readFileSync(file, 'utf8');
        return namesAGuard(text) || importsOperation(text);
      })
      .map((file) => relative(root, file));
    assert.deepEqual(offenders, [], 'declare access with access.route() (src/client-api/access.ts)');
  });

  it('finds a guard attached by hand, and an operation built by hand', () => {
    assert.ok(namesAGuard("onRequest: [guards.authenticate, guards.requireAccount('accountNumber')]"));
    assert.ok(namesAGuard("preHandler: guards.requireUserHash('userHash')"));
    assert.ok(importsOperation("import { operation } from '../openapi.ts';"));
    assert.ok(!importsOperation("import { clientApiOpenApi } from './openapi.ts';"));
  });
});
