import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentColumns } from '../../src/agents/tables.ts';
import { directLineColumns } from '../../src/assistant-auth/directline/tables.ts';
import { assistantAuthColumns } from '../../src/assistant-auth/tables.ts';
import { loginThrottleColumns } from '../../src/client-api/auth/tables.ts';
import { commandColumns } from '../../src/client-api/commands/tables.ts';
import { deviceGrantColumns } from '../../src/client-api/device-grant/tables.ts';
import { accountColumns, clientContentColumns } from '../../src/client-api/tables.ts';
import {
  catalogueTypes,
  type MigratedTables,
  readMigratedTables,
  schemaDifferences,
} from '../../src/core/db/schema-comparison.ts';
import { bigint, integer, nullable, text } from '../../src/core/db/table-columns.ts';
import { coreColumns } from '../../src/core/db/tables.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';

/** Every table type of the family, by the name of the type derived from it. */
const described = {
  CoreTables: coreColumns,
  AccountTables: accountColumns,
  LoginThrottleTables: loginThrottleColumns,
  ClientContentTables: clientContentColumns,
  AssistantAuthTables: assistantAuthColumns,
  DirectLineTables: directLineColumns,
  AgentTables: agentColumns,
  DeviceGrantTables: deviceGrantColumns,
  CommandTables: commandColumns,
};

describe('table types and migrations', () => {
  let core: TestCore;
  let migrated: MigratedTables;
  before(async () => {
    core = await createTestCore();
    migrated = await readMigratedTables(core.database);
  });
  after(() => core.dispose());

  it('a freshly migrated store has exactly the tables and columns the table types describe', () => {
    const differences = schemaDifferences(described, migrated, core.database.dialect);
    assert.deepEqual(differences, [], `table types and migrations disagree:\n  ${differences.join('\n  ')}`);
  });

  /** The migrated store cut down to some tables, so a case below depends on those tables only. */
  const only = (...tables: string[]): MigratedTables =>
    new Map([...migrated].filter(([table]) => tables.includes(table)));

  it('reports each kind of disagreement, both ways', () => {
    const { dialect } = core.database;
    const { name: _name, ...withoutName } = coreColumns.api_keys;
    const drifted = {
      api_keys: {
        ...withoutName,
        nickname: text(),
        created_at: integer(),
        revoked_at: bigint(),
        secret_hash: nullable(text()),
      },
      ghost: { id: text() },
    };
    const types = catalogueTypes[dialect];
    assert.deepEqual(schemaDifferences({ CoreTables: drifted }, only('api_keys', 'audit_log'), dialect), [
      'api_keys.secret_hash: CoreTables says nullable, the migrated column is not null',
      `api_keys.created_at: CoreTables says integer (${types.integer} on ${dialect}), the migrated column is ${types.bigint}`,
      'api_keys.revoked_at: CoreTables says not null, the migrated column is nullable',
      'api_keys.nickname: in CoreTables but not in the migrated table',
      `api_keys.name: migrated (${types.text}) but missing from CoreTables`,
      'ghost: in CoreTables but the migrations create no such table',
      'audit_log: migrated but described by no table types',
    ]);
  });

  it('reports a table described by two table types', () => {
    const { users } = accountColumns;
    const twice = { AccountTables: { users }, Extra: { users } };
    assert.deepEqual(schemaDifferences(twice, only('users'), core.database.dialect), [
      'users: described twice, in AccountTables and Extra',
    ]);
  });

  it('counts a single-column primary key as not null on both databases', () => {
    assert.equal(migrated.get('api_keys')?.get('id')?.nullable, false);
    assert.equal(migrated.get('api_keys')?.get('revoked_at')?.nullable, true);
  });
});
