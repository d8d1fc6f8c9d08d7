import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commands, implementationOf } from '../../src/cli/main.ts';

// `sintonia --help` lists commands without loading them; each listing must match its module's command.
test('each command that help lists has the name, usage and summary its module defines', async () => {
  assert.ok(commands.length > 0);
  for (const command of commands) {
    const own = await implementationOf(command);
    assert.deepEqual(
      { name: own.name, usage: own.usage, summary: own.summary },
      { name: command.name, usage: command.usage, summary: command.summary },
    );
  }
});
