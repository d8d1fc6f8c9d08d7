/**
 * The bench's data set, by formula: accounts of one user each, the first `listAccounts` holding
 * `listDevices` devices (the device-list keys), the others OTHER_DEVICES; `bookmarksPerUser` bookmarks a
 * user. Nothing of it is held in memory: the database generates the devices and bookmarks (seedRows), and
 * the load picks its keys among the signed-in users, spread evenly over all users.
 */

export interface Shape {
  users: number;
  listAccounts: number;
  listDevices: number;
  bookmarksPerUser: number;
  /** Users who sign in through the real route before the load: the keys of every path. */
  signedIn: number;
}

const OTHER_DEVICES = 8;
export const fullShape: Shape = {
  users: 1000,
  listAccounts: 200,
  listDevices: 20,
  bookmarksPerUser: 100,
  signedIn: 100,
};
export const quickShape: Shape = {
  users: 20,
  listAccounts: 4,
  listDevices: 20,
  bookmarksPerUser: 50,
  signedIn: 20,
};

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

/**
 * The two statements that generate the devices and the bookmarks, as the store's dialect writes them.
 * `users` is a query of `(user_hash, a)`: each user's hash and index (the product's hashes, read from its
 * accounts, or the bare baseline's). The rows go in in user_hash order, so the primary key grows at its end.
 */
export function seedRows(dialect: 'sqlite' | 'postgres', shape: Shape, users: string, now: number): string[] {
  const { listAccounts: l, listDevices: ld, bookmarksPerUser: k } = shape;
  const devices = `case when a < ${l} then ${ld} else ${OTHER_DEVICES} end`;
  const columns = {
    devices:
      'devices (account_number, device_id, name, device_class, enabled, registered_at, activated_at, last_seen_at, last_playback_at)',
    bookmarks:
      'bookmarks (user_hash, content_id, account_number, version, offset_seconds, position_at, device_id, device_class, updated_at)',
  };
  const bookmark = (pad7: string, pad2: string) =>
    `select user_hash, 1 + k * 50 + ((a * 31 + k * 17) % 50), null, null, (a * 7 + k * 13) % 7200,
      ${now} - (a * k) % ${30 * 86_400_000}, 'bench-' || ${pad7} || '-' || ${pad2}, '${DEVICE_CLASS}', ${now}`;
  if (dialect === 'postgres')
    return [
      `insert into ${columns.devices}
       select '9' || lpad(a::text, 7, '0'), 'bench-' || lpad(a::text, 7, '0') || '-' || lpad(d::text, 2, '0'),
         'Device ' || d, '${DEVICE_CLASS}', 1, ${now}, ${now}, ${now}, null
       from generate_series(0, ${shape.users - 1}) a cross join lateral generate_series(0, ${devices} - 1) d`,
      `insert into ${columns.bookmarks}
       ${bookmark("lpad(a::text, 7, '0')", `lpad((k % ${devices})::text, 2, '0')`)}
       from (${users}) u cross join generate_series(0, ${k - 1}) k order by user_hash, k`,
    ];
  return [
    `with recursive u(a) as (select 0 union all select a + 1 from u where a + 1 < ${shape.users}),
       d(d) as (select 0 union all select d + 1 from d where d + 1 < ${ld})
     insert into ${columns.devices}
     select '9' || printf('%07d', a), 'bench-' || printf('%07d', a) || '-' || printf('%02d', d), 'Device ' || d,
       '${DEVICE_CLASS}', 1, ${now}, ${now}, ${now}, null
     from u join d on d.d < ${devices}`,
    `with recursive n(k) as (select 0 union all select k + 1 from n where k + 1 < ${k})
     insert into ${columns.bookmarks}
     ${bookmark("printf('%07d', a)", `printf('%02d', k % ${devices})`)}
     from (${users}) u cross join n order by user_hash, k`,
  ];
}
