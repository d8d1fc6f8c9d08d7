import Type from 'typebox';
import type { AccountBookmark, AccountSession } from './account-client.ts';

/**
 * The account tools beyond single devices: what the person was watching and where they stopped, how many
 * more devices fit, and signing out everywhere. Their specs join the account tools' (account-tools.ts),
 * so both agents offer them; the read ones run at once, sign out everywhere after a confirmation.
 */
export const watchingToolSpecs = {
  continue_watching: {
    description:
      "The person's most recent playback positions (continue watching), newest first: content id, position in seconds, device, when.",
    parameters: Type.Object(
      {
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'How many; default 5.' })),
      },
      { additionalProperties: false },
    ),
    changes: false,
  },
  where_was_i: {
    description: 'Where the person stopped in one content item, by its numeric content id.',
    parameters: Type.Object(
      { contentId: Type.Integer({ minimum: 1, description: 'The content item’s numeric id.' }) },
      { additionalProperties: false },
    ),
    changes: false,
  },
  device_limit: {
    description:
      'How many devices the account has, how many are enabled (they count against the limit), the limit, and how many more fit.',
    parameters: Type.Object({}, { additionalProperties: false }),
    changes: false,
  },
  sign_out_everywhere: {
    description:
      'Signs every device of the account out, this chat included (asks the person to confirm first).',
    parameters: Type.Object({}, { additionalProperties: false }),
    changes: true,
  },
} as const;

/** How many positions continue watching answers when not told. */
const DEFAULT_RECENT = 5;

/** What the account's device limit is: the deployment's MAX_DEVICES_PER_ACCOUNT. */
export interface AccountLimits {
  maxDevicesPerAccount: number;
}

export type WatchingResult =
  | { status: 'continue_watching'; bookmarks: AccountBookmark[] }
  | { status: 'position'; contentId: number; bookmark?: AccountBookmark }
  | { status: 'device_limit'; devices: number; enabled: number; limit: number; free: number };

/** Runs a read tool of this file with arguments already checked against its schema. */
export async function readWatching(
  session: AccountSession,
  tool: 'continue_watching' | 'where_was_i' | 'device_limit',
  args: { limit?: number; contentId?: number },
  limits: AccountLimits | undefined,
): Promise<WatchingResult | undefined> {
  if (tool === 'continue_watching') {
    return {
      status: 'continue_watching',
      bookmarks: await session.recentBookmarks(args.limit ?? DEFAULT_RECENT),
    };
  }
  if (tool === 'where_was_i') {
    const contentId = args.contentId ?? 0;
    const [bookmark] = await session.recentBookmarks(1, contentId);
    return { status: 'position', contentId, ...(bookmark ? { bookmark } : {}) };
  }
  if (!limits) return undefined;
  const devices = await session.devices();
  const enabled = devices.filter((device) => device.enabled).length;
  const limit = limits.maxDevicesPerAccount;
  return {
    status: 'device_limit',
    devices: devices.length,
    enabled,
    limit,
    free: Math.max(0, limit - enabled),
  };
}

export const isWatchingRead = (tool: string): tool is 'continue_watching' | 'where_was_i' | 'device_limit' =>
  tool === 'continue_watching' || tool === 'where_was_i' || tool === 'device_limit';
