import SQLite from 'better-sqlite3';
import type { Dataset } from '../dataset.ts';

/**
 * The bare baseline's store: the same table shape as the client-api's bookmarks and devices (one
 * row per user and content, one row per device), written in one transaction with prepared statements.
 */
export const baselineSchema = `
create table devices (
  account_number text not null,
  device_id text not null,
  name text not null,
  device_class text not null,
  enabled integer not null,
  registered_at bigint not null,
  activated_at bigint not null,
  last_seen_at bigint not null,
  last_playback_at bigint,
  primary key (account_number, device_id)
);
create table bookmarks (
  user_hash text not null,
  content_id bigint not null,
  account_number text,
  version text,
  offset_seconds integer not null,
  position_at bigint not null,
  device_id text not null,
  device_class text not null,
  updated_at bigint not null,
  primary key (user_hash, content_id)
);
`;

export function seedBaseline(file: string, dataset: Dataset, userHash: (user: number) => string): void {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(baselineSchema);
  const device = db.prepare('insert into devices values (?, ?, ?, ?, 1, ?, ?, ?, null)');
  const bookmark = db.prepare('insert into bookmarks values (?, ?, ?, null, ?, ?, ?, ?, ?)');
  const now = Date.now();
  db.transaction(() => {
    for (const user of dataset.users) {
      for (const id of user.deviceIds)
        device.run(user.accountNumber, id, `Device ${id}`, dataset.deviceClass, now, now, now);
    }
    for (const entry of dataset.bookmarks) {
      const user = dataset.users[entry.user];
      if (!user) continue;
      bookmark.run(
        userHash(entry.user),
        entry.contentId,
        user.accountNumber,
        entry.offset,
        entry.at,
        entry.deviceId,
        dataset.deviceClass,
        entry.at,
      );
    }
  })();
  db.close();
}
