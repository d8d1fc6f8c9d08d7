/**
 * The bare baseline (docs/benchmarks.md): Fastify 5 on the client-api's tables, no auth, no logging, JSON
 * only, on better-sqlite3 or a node-postgres pool of the product's size. Run as its own process:
 *   BENCH_STORE=<file or postgres:// URL> BENCH_POOL_SIZE=<n> BENCH_PORT=<port> node --import tsx bench/bare-server.ts
 */
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';

const columns = `content_id as "contentId", offset_seconds as "offset", device_id as "deviceId",
  position_at as "at", updated_at as "updatedAt"`;
export const statements = {
  read: `select ${columns} from bookmarks where user_hash = $1 and content_id = $2`,
  upsert: `insert into bookmarks (user_hash, content_id, account_number, device_id, device_class, offset_seconds, position_at, updated_at)
    values ($1, $2, $3, $4, $5, $6, $7, $8)
    on conflict (user_hash, content_id) do update set device_id = excluded.device_id,
      offset_seconds = excluded.offset_seconds, position_at = excluded.position_at, updated_at = excluded.updated_at
    where bookmarks.position_at <= excluded.position_at
    returning ${columns}`,
  devices: `select device_id as "mediaPlayerId", name, device_class as "deviceClass", enabled,
    registered_at as "registeredAt", last_seen_at as "lastSeenAt" from devices where account_number = $1 order by device_id`,
};
type Name = keyof typeof statements;
type Run = (name: Name, values: unknown[]) => Promise<Record<string, unknown>[]>;

function sqliteRunner(file: string): { run: Run; close: () => void } {
  const db = new SQLite(file);
  for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000'])
    db.pragma(pragma);
  const prepared = Object.fromEntries(
    Object.entries(statements).map(([name, text]) => [name, db.prepare(text.replace(/\$\d+/g, '?'))]),
  ) as Record<Name, SQLite.Statement<unknown[], Record<string, unknown>>>;
  const run: Run = async (name, values) => {
    if (name === 'devices') return prepared.devices.all(...values);
    const row = prepared[name].get(...values);
    return row ? [row] : [];
  };
  return { run, close: () => db.close() };
}

function postgresRunner(url: string, size: number): { run: Run; close: () => Promise<void> } {
  for (const oid of [20, 1700]) pg.types.setTypeParser(oid, Number); // bigint and numeric, as numbers
  const pool = new pg.Pool({ connectionString: url, max: size });
  pool.on('error', () => {});
  const run: Run = async (name, values) => (await pool.query({ name, text: statements[name], values })).rows;
  return { run, close: () => pool.end() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const store = process.env.BENCH_STORE ?? '';
  const { run, close } = store.startsWith('postgres')
    ? postgresRunner(store, Number(process.env.BENCH_POOL_SIZE ?? '10'))
    : sqliteRunner(store);
  const app = Fastify({ logger: false });
  type Params = Record<string, string>;
  app.get<{ Params: Params }>('/bookmarks/:user/:content', async ({ params }, reply) => {
    const [row] = await run('read', [params.user, Number(params.content)]);
    return row ?? reply.code(404).send({ code: 'NOT_FOUND' });
  });
  app.post<{ Params: Params }>(
    '/bookmarks/:account/:class/:device/:user/:content/:offset',
    async ({ params }) => {
      const { account, class: kind, device, user, content, offset } = params;
      const now = Date.now();
      const values = [user, Number(content), account, device, kind, Number(offset), now, now];
      const [row] = await run('upsert', values);
      return row ?? { ignored: true };
    },
  );
  app.get<{ Params: Params }>('/accounts/:account/devices', async ({ params }) =>
    (await run('devices', [params.account])).map((row) => ({ ...row, enabled: row.enabled === 1 })),
  );
  app.get('/readyz', async () => ({ status: 'ready' }));
  const shutdown = async () => {
    await app.close();
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT ?? '0') });
}
