/**
 * The benchmark's data set, generated from a seed so that every run (and both targets of one run)
 * load the same shape: accounts with one user each, devices spread over the accounts (the first
 * accounts hold 20 devices: those are the device-list keys), and bookmarks spread over the users.
 */

export interface DatasetSize {
  users: number;
  devices: number;
  bookmarks: number;
  /** Accounts holding exactly `listDevices` devices: the keys of the device-list path. */
  listAccounts: number;
  listDevices: number;
  /**
   * Users who sign in through the real route before the load (scrypt, ~40 ms each unloaded): the keys
   * of every loaded path are drawn from their bookmarks and accounts, on both targets alike.
   */
  signedIn: number;
}

export const fullSize: DatasetSize = {
  users: 1000,
  devices: 10000,
  bookmarks: 100000,
  listAccounts: 200,
  listDevices: 20,
  signedIn: 100,
};

export const quickSize: DatasetSize = {
  users: 20,
  devices: 120,
  bookmarks: 1000,
  listAccounts: 4,
  listDevices: 20,
  signedIn: 20,
};

export interface BenchUser {
  index: number;
  accountNumber: string;
  email: string;
  platformUserId: string;
  deviceIds: string[];
}

export interface BenchBookmark {
  user: number;
  contentId: number;
  offset: number;
  deviceId: string;
  at: number;
}

export interface Dataset {
  size: DatasetSize;
  deviceClass: string;
  users: BenchUser[];
  bookmarks: BenchBookmark[];
  /** Largest content id in use; writes pick ids up to twice this so some are inserts. */
  maxContentId: number;
  /** The signed-in users, their bookmarks, and those of them holding 20 devices: the keys of the load. */
  keys: { users: BenchUser[]; bookmarks: BenchBookmark[]; listUsers: BenchUser[] };
}

/** mulberry32: a small, fast, seeded generator; the data set must not depend on Math.random. */
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

function devicesPerAccount(size: DatasetSize): number[] {
  const counts = Array.from({ length: size.users }, (_, index) =>
    index < size.listAccounts ? size.listDevices : 0,
  );
  let left = size.devices - size.listAccounts * size.listDevices;
  // The remaining devices go round-robin over the other accounts, so they hold 7 or 8 each at full size.
  for (
    let index = size.listAccounts;
    left > 0;
    index = index + 1 >= size.users ? size.listAccounts : index + 1
  ) {
    counts[index] = (counts[index] ?? 0) + 1;
    left -= 1;
  }
  return counts;
}

export function generateDataset(size: DatasetSize, seed = 20261122): Dataset {
  const random = seededRandom(seed);
  const counts = devicesPerAccount(size);
  const users: BenchUser[] = counts.map((count, index) => {
    const id = String(index).padStart(6, '0');
    return {
      index,
      accountNumber: `9${id}`,
      email: `bench-${id}@sintonia.invalid`,
      platformUserId: `bench-user-${id}`,
      deviceIds: Array.from(
        { length: count },
        (_, device) => `bench-${id}-${String(device).padStart(2, '0')}`,
      ),
    };
  });
  const perUser = Math.ceil(size.bookmarks / size.users);
  const maxContentId = perUser * 50;
  const bookmarks: BenchBookmark[] = [];
  const now = Date.now();
  for (const user of users) {
    const seen = new Set<number>();
    while (seen.size < perUser && bookmarks.length < size.bookmarks) {
      const contentId = 1 + Math.floor(random() * maxContentId);
      if (seen.has(contentId)) continue;
      seen.add(contentId);
      const device = user.deviceIds[Math.floor(random() * user.deviceIds.length)] ?? user.deviceIds[0] ?? '';
      bookmarks.push({
        user: user.index,
        contentId,
        offset: Math.floor(random() * 7200),
        deviceId: device,
        at: now - Math.floor(random() * 30 * 86400_000),
      });
    }
  }
  const active = users.slice(0, size.signedIn);
  const keys = {
    users: active,
    bookmarks: bookmarks.filter((bookmark) => bookmark.user < size.signedIn),
    listUsers: active.filter((user) => user.index < size.listAccounts),
  };
  return { size, deviceClass: 'bench', users, bookmarks, maxContentId, keys };
}
