/**
 * The bare baseline: Fastify 5 and better-sqlite3 with the client-api's table shape, no auth, no
 * logging, JSON only. It measures what the machine gives for the same operations without the product.
 * Run as its own process: BENCH_DB=<file> BENCH_PORT=<port> node --import tsx bench/baseline/server.ts
 */
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

const file = process.env.BENCH_DB ?? '';
const port = Number(process.env.BENCH_PORT ?? '0');
const db = new SQLite(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');

const readBookmark = db.prepare<[string, number], Record<string, unknown>>(
  'select content_id as contentId, offset_seconds as offset, device_id as deviceId, position_at as at, updated_at as updatedAt from bookmarks where user_hash = ? and content_id = ?',
);
// The same stale-position condition as the product's save: a stored newer position is kept.
const upsertBookmark = db.prepare<
  [string, number, string, string, string, number, number, number],
  Record<string, unknown>
>(
  `insert into bookmarks (user_hash, content_id, account_number, device_id, device_class, offset_seconds, position_at, updated_at)
   values (?, ?, ?, ?, ?, ?, ?, ?)
   on conflict (user_hash, content_id) do update set device_id = excluded.device_id,
     offset_seconds = excluded.offset_seconds, position_at = excluded.position_at, updated_at = excluded.updated_at
   where bookmarks.position_at <= excluded.position_at
   returning content_id as contentId, offset_seconds as offset, device_id as deviceId, position_at as at, updated_at as updatedAt`,
);
const listDevices = db.prepare<[string], Record<string, unknown>>(
  'select device_id as mediaPlayerId, name, device_class as deviceClass, enabled, registered_at as registeredAt, last_seen_at as lastSeenAt from devices where account_number = ? order by device_id',
);

const app = Fastify({ logger: false });

app.get<{ Params: { userHash: string; contentId: string } }>(
  '/bookmarks/:userHash/:contentId',
  async (request, reply) => {
    const row = readBookmark.get(request.params.userHash, Number(request.params.contentId));
    if (!row) return reply.code(404).send({ code: 'NOT_FOUND' });
    return row;
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
  return (
    upsertBookmark.get(
      userHash,
      Number(contentId),
      accountNumber,
      deviceId,
      deviceClass,
      Number(offset),
      now,
      now,
    ) ?? {
      ignored: true,
    }
  );
});

app.get<{ Params: { accountNumber: string } }>('/accounts/:accountNumber/devices', async (request) =>
  listDevices.all(request.params.accountNumber).map((row) => ({ ...row, enabled: row.enabled === 1 })),
);

app.get('/readyz', async () => ({ status: 'ready' }));

const shutdown = () => {
  app.close().then(() => {
    db.close();
    process.exit(0);
  });
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

await app.listen({ host: '127.0.0.1', port });
