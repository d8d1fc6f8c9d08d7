/**
 * The bench's data set, by formula (docs/benchmarks.md): nothing of it is held in memory, the database
 * generates the devices and bookmarks (seedRows), the load picks its keys among the signed-in users.
 */
const OTHER_DEVICES = 8;
/** `signedIn`: the users who sign in through the real route before the load, the keys of every path. */
export const fullShape = {
  users: 1000,
  listAccounts: 200,
  listDevices: 20,
  bookmarksPerUser: 100,
  signedIn: 100,
};
export const quickShape = { ...fullShape, users: 20, listAccounts: 4, bookmarksPerUser: 50, signedIn: 20 };
export type Shape = typeof fullShape;

/** The shape ×factor: more users and accounts, each as before. */
export const scaled = (shape: Shape, factor: number, signedIn: number): Shape => ({
  ...shape,
  users: shape.users * factor,
  listAccounts: shape.listAccounts * factor,
  signedIn: Math.min(shape.users * factor, signedIn),
});

export const DEVICE_CLASS = 'bench';
const pad = (index: number) => String(index).padStart(7, '0');
export const accountNumber = (user: number) => `9${pad(user)}`;
export const email = (user: number) => `bench-${pad(user)}@sintonia.invalid`;
export const platformUserId = (user: number) => `bench-user-${pad(user)}`;
export const deviceId = (user: number, device: number) =>
  `bench-${pad(user)}-${String(device).padStart(2, '0')}`;
export const devicesOf = (shape: Shape, user: number) =>
  user < shape.listAccounts ? shape.listDevices : OTHER_DEVICES;
/** The k-th bookmark's content of a user: one per block of 50 ids, so a user's are distinct. */
export const contentOf = (user: number, k: number) => 1 + k * 50 + ((user * 31 + k * 17) % 50);
/** Saves pick contents up to this: about half of them are new rows, half updates. */
export const maxContent = (shape: Shape) => shape.bookmarksPerUser * 100;

/** The signed-in users' indexes, evenly spaced over all users. */
export const signedInUsers = (shape: Shape) =>
  Array.from({ length: shape.signedIn }, (_, i) => Math.floor((i * shape.users) / shape.signedIn));

/** mulberry32: seeded, so that both targets of a run load the same keys. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Dialect = 'sqlite' | 'postgres';
/** `expr` as `width` digits, zero-padded, in the store's dialect (SQLite has no lpad, PostgreSQL no printf). */
export const padded = (dialect: Dialect, expr: string, width: number) =>
  dialect === 'postgres' ? `lpad((${expr})::text, ${width}, '0')` : `printf('%0${width}d', ${expr})`;
/** A recursive table `name(column)` of 0 … count - 1: the one series both stores write alike. */
export const series = (name: string, column: string, count: number) =>
  `${name}(${column}) as (select 0 union all select ${column} + 1 from ${name} where ${column} + 1 < ${count})`;

/**
 * The two statements that generate the devices and the bookmarks. `users` is a query of `(user_hash, a)`:
 * each user's hash and index (the product's hashes, read from its accounts, or the bare baseline's). The
 * rows go in in user_hash order, so the primary key grows at its end.
 */
export function seedRows(dialect: Dialect, shape: Shape, users: string, now: number): string[] {
  const devices = `case when a < ${shape.listAccounts} then ${shape.listDevices} else ${OTHER_DEVICES} end`;
  const device = (d: string) => `'bench-' || ${padded(dialect, 'a', 7)} || '-' || ${padded(dialect, d, 2)}`;
  return [
    `with recursive ${series('u', 'a', shape.users)}, ${series('d', 'd', Math.max(shape.listDevices, OTHER_DEVICES))}
     insert into devices (account_number, device_id, name, device_class, enabled, registered_at, activated_at,
       last_seen_at, last_playback_at)
     select '9' || ${padded(dialect, 'a', 7)}, ${device('d')}, 'Device ' || d, '${DEVICE_CLASS}', 1, ${now}, ${now},
       ${now}, null
     from u join d on d.d < ${devices}`,
    `with recursive ${series('n', 'k', shape.bookmarksPerUser)}
     insert into bookmarks (user_hash, content_id, account_number, version, offset_seconds, position_at, device_id,
       device_class, updated_at)
     select user_hash, 1 + k * 50 + ((a * 31 + k * 17) % 50), null, null, (a * 7 + k * 13) % 7200,
       ${now} - (a * k) % ${30 * 86_400_000}, ${device(`k % ${devices}`)}, '${DEVICE_CLASS}', ${now}
     from (${users}) u cross join n order by user_hash, k`,
  ];
}
