import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
} from 'kysely';

const folder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * The migration a file holds, named without its extension: `.ts` in the sources, `.js` once compiled
 * to dist/, so a store records the same names whichever of the two migrated it.
 */
export function migrationName(file: string): string | undefined {
  return /^(\d{14}_[a-z0-9-]+)\.(?:ts|js)$/.exec(file)?.[1];
}

/** Migrations are the files `migrations/<timestamp>_<name>.ts`, applied in name order. */
const provider: MigrationProvider = {
  async getMigrations() {
    const migrations: Record<string, Migration> = {};
    for (const file of (await readdir(folder)).sort()) {
      const name = migrationName(file);
      if (name === undefined) continue;
      migrations[name] = (await import(pathToFileURL(join(folder, file)).href)) as Migration;
    }
    return migrations;
  },
};

/** The migrations not applied to this store yet, in the order they would be. */
export async function pendingMigrations<T>(db: Kysely<T>): Promise<string[]> {
  const known = await new Migrator({ db, provider }).getMigrations();
  return known.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

/** Applies every pending migration under Kysely's lock (advisory lock on PostgreSQL), forward only. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((entry) => entry.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${String(result.error)}`, { cause: result.error });
  }
  return (result.results ?? [])
    .filter((entry) => entry.status === 'Success')
    .map((entry) => entry.migrationName);
}
