import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Command, options, UsageError } from './command.ts';

/** Admin commands of the store's keys and copies (docs/keys-and-backups.md). */
export const storeCommands: Command[] = [
  {
    name: 'master-key rotate',
    usage: 'master-key rotate',
    summary:
      'Move the store to SINTONIA_MASTER_KEY: what SINTONIA_MASTER_KEY_PREVIOUS sealed is sealed again and the fingerprint moves, in one transaction; run it again after the processes restarted (docs/keys-and-backups.md).',
    async run(context) {
      options(context.args, {});
      const { loadMasterKeys } = await import('../core/keys/master-keys.ts');
      const { rotateMasterKey } = await import('../core/keys/rotation.ts');
      const config = await context.config();
      // Loaded here as the core loads them: the keys come from the environment (or files), never arguments.
      const keys = loadMasterKeys(config);
      const core = await context.core();
      const report = await rotateMasterKey(core.database, keys, config);
      await core.audit('cli', 'master-key.rotate', report.from);
      return report;
    },
  },
  {
    name: 'backup',
    usage: 'backup --out FILE',
    summary:
      'Copy the embedded store (SQLite) into a new FILE while it serves: a consistent copy of every transaction committed before it; on PostgreSQL use pg_dump.',
    async run(context) {
      const { values } = options(context.args, { out: { type: 'string' } }, ['out']);
      const config = await context.config();
      if (config.DATABASE_URL) {
        throw new UsageError(
          'the store is PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. pg_dump --format=custom --file=sintonia.dump "$DATABASE_URL" (docs/keys-and-backups.md)',
        );
      }
      const out = resolve(String(values.out));
      if (existsSync(out)) throw new UsageError(`--out ${out} exists: give a new file`);
      if (!existsSync(dirname(out))) throw new UsageError(`--out: the folder ${dirname(out)} does not exist`);
      const { openDatabase } = await import('../core/db/database.ts');
      const { createStoreIdentityRepository } = await import('../core/db/store-identity.ts');
      const { FINGERPRINT } = await import('../core/keys/master-keys.ts');
      // The store alone: no migration (a backup before an upgrade must be of the store as it is).
      const database = openDatabase(config);
      const partial = `${out}.partial`;
      try {
        const sqlite = database.sqlite;
        if (!sqlite) throw new Error('the embedded store has no SQLite connection');
        rmSync(partial, { force: true });
        // SQLite's online backup. Its first step copies 100 pages; the rest goes in one step under one read
        // transaction, so writers of other processes never restart it (WAL: they are not blocked either).
        const progress = await sqlite.backup(partial, { progress: () => 0x7fffffff });
        renameSync(partial, out);
        const fingerprint = await createStoreIdentityRepository(database.db)
          .readPrefix(FINGERPRINT)
          .then((rows) => rows.find((row) => row.name === FINGERPRINT)?.value)
          .catch(() => undefined);
        return {
          file: out,
          bytes: statSync(out).size,
          pages: progress.totalPages,
          from: database.location,
          masterKeyFingerprint: fingerprint ?? null,
          note: 'the copy is useless without its master key (SINTONIA_MASTER_KEY, or SINTONIA_DATA_DIR/master.key): keep the key with it, apart from it',
        };
      } finally {
        rmSync(partial, { force: true });
        await database.close();
      }
    },
  },
];
