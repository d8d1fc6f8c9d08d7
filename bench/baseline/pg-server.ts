/**
 * The bare PostgreSQL baseline: Fastify 5 and a node-postgres pool of the product's size over the same
 * table shape, no auth, no logging, JSON only, each statement a named prepared statement (parsed once per
 * connection), int8 read as numbers as the product reads them. It measures what the machine and the
 * cluster give for the same operations without the product.
 * Run as its own process:
 *   BENCH_DATABASE_URL=<url> BENCH_POOL_SIZE=<n> BENCH_PORT=<port> node --import tsx bench/baseline/pg-server.ts
 */
import Fastify from 'fastify';
import pg from 'pg';
import { type StatementRunner, statementPipeline } from '../../src/core/db/pipeline.ts';

const port = Number(process.env.BENCH_PORT ?? '0');
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;
const pool = new pg.Pool({
  connectionString: process.env.BENCH_DATABASE_URL,
  max: Number(process.env.BENCH_POOL_SIZE ?? '10'),
  types,
});
pool.on('error', () => {});
// BENCH_BARE_PIPELINE=<n> (`npm run bench -- --bare-pipelined`): the statements go over n pipelined
// connections as the product's do (src/core/db/pipeline.ts), so that a ratio compares the rest of the request.
const pipelined = Number(process.env.BENCH_BARE_PIPELINE ?? '0');
const pipeline =
  pipelined > 0
    ? statementPipeline({
        connectionString: process.env.BENCH_DATABASE_URL ?? '',
        connections: pipelined,
        types,
        connectionTimeoutMillis: 5000,
      })
    : undefined;
const statements: StatementRunner = pipeline ?? pool;

const readBookmark = {
  name: 'read-bookmark',
  text: 'select content_id as "contentId", offset_seconds as "offset", device_id as "deviceId", position_at as "at", updated_at as "updatedAt" from bookmarks where user_hash = $1 and content_id = $2',
};
// The same stale-position condition as the product's save: a stored newer position is kept.
const upsertBookmark = {
  name: 'upsert-bookmark',
  text: `insert into bookmarks (user_hash, content_id, account_number, device_id, device_class, offset_seconds, position_at, updated_at)
   values ($1, $2, $3, $4, $5, $6, $7, $8)
   on conflict (user_hash, content_id) do update set device_id = excluded.device_id,
     offset_seconds = excluded.offset_seconds, position_at = excluded.position_at, updated_at = excluded.updated_at
   where bookmarks.position_at <= excluded.position_at
   returning content_id as "contentId", offset_seconds as "offset", device_id as "deviceId", position_at as "at", updated_at as "updatedAt"`,
};
const listDevices = {
  name: 'list-devices',
  text: 'select device_id as "mediaPlayerId", name, device_class as "deviceClass", enabled, registered_at as "registeredAt", last_seen_at as "lastSeenAt" from devices where account_number = $1 order by device_id',
};

const app = Fastify({ logger: false });

app.get<{ Params: { userHash: string; contentId: string } }>(
  '/bookmarks/:userHash/:contentId',
  async (request, reply) => {
    const { rows } = await statements.query({
      ...readBookmark,
      values: [request.params.userHash, Number(request.params.contentId)],
    });
    if (!rows[0]) return reply.code(404).send({ code: 'NOT_FOUND' });
    return rows[0];
  },
);

app.post<{
  Params: {
    deviceClass: string;
    deviceId: string;
    userHash: string;
    contentId: string;
    offset: string;
    accountNumber: string;
  };
}>('/bookmarks/:accountNumber/:deviceClass/:deviceId/:userHash/:contentId/:offset', async (request) => {
  const { accountNumber, deviceClass, deviceId, userHash, contentId, offset } = request.params;
  const now = Date.now();
  const { rows } = await statements.query({
    ...upsertBookmark,
    values: [userHash, Number(contentId), accountNumber, deviceId, deviceClass, Number(offset), now, now],
  });
  return rows[0] ?? { ignored: true };
});

app.get<{ Params: { accountNumber: string } }>('/accounts/:accountNumber/devices', async (request) => {
  const { rows } = await statements.query({ ...listDevices, values: [request.params.accountNumber] });
  return rows.map((row) => ({ ...row, enabled: row.enabled === 1 }));
});

app.get('/readyz', async () => ({ status: 'ready' }));

const shutdown = () => {
  app.close().then(async () => {
    await pipeline?.close();
    await pool.end();
    process.exit(0);
  });
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

await app.listen({ host: '127.0.0.1', port });
