import { isKeyClass, keyClasses } from '../core/api-keys/api-keys.ts';
import { type Command, options, UsageError } from './command.ts';

export const coreCommands: Command[] = [
  {
    name: 'migrate',
    usage: 'migrate [--dry-run]',
    summary:
      'Apply pending database migrations (also done at every start) and list them; --dry-run lists them only.',
    async run(context) {
      const { values } = options(context.args, { 'dry-run': { type: 'boolean' } });
      const { openDatabase } = await import('../core/db/database.ts');
      const { migrateToLatest, pendingMigrations } = await import('../core/db/migrator.ts');
      // The store alone first, to see what is pending and what this run applies (the core migrates on open).
      const database = openDatabase(await context.config());
      const where = { database: database.dialect, location: database.location };
      let applied: string[];
      try {
        if (values['dry-run']) {
          const pending = await pendingMigrations(database.db);
          return { ...where, pending, applied: [], status: pending.length > 0 ? 'pending' : 'up to date' };
        }
        applied = await migrateToLatest(database.sessionDb);
      } finally {
        await database.close();
      }
      // Then the core, as every command opens it: another master key than the store's is refused here.
      await context.core();
      return { ...where, applied, status: applied.length > 0 ? 'migrated' : 'up to date' };
    },
  },
  {
    name: 'key create',
    usage: `key create --class ${keyClasses.join('|')} --name NAME`,
    summary: 'Create an API key; the key is printed this once and stored only as a hash.',
    async run(context) {
      const { values } = options(context.args, { class: { type: 'string' }, name: { type: 'string' } }, [
        'class',
        'name',
      ]);
      const keyClass = String(values.class);
      if (!isKeyClass(keyClass)) throw new UsageError(`--class must be one of ${keyClasses.join(', ')}`);
      const name = String(values.name);
      if (name.length > 100) throw new UsageError('--name must be at most 100 characters');
      const core = await context.core();
      const created = await core.apiKeys.create(keyClass, name);
      await core.audit('cli', 'key.create', created.id);
      return created;
    },
  },
  {
    name: 'key list',
    usage: 'key list',
    summary: 'List API keys (never their secrets).',
    async run(context) {
      options(context.args, {});
      const core = await context.core();
      return { keys: await core.apiKeys.list() };
    },
  },
  {
    name: 'key revoke',
    usage: 'key revoke ID',
    summary: 'Revoke an API key; every process refuses it on its next request.',
    async run(context) {
      const { positionals } = options(context.args, {}, [], 1);
      const id = positionals[0];
      if (!id) throw new UsageError('usage: key revoke ID');
      const core = await context.core();
      if (!(await core.apiKeys.revoke(id))) throw new UsageError(`no API key with id ${id}`);
      await core.audit('cli', 'key.revoke', id);
      return { id, revoked: true };
    },
  },
];
