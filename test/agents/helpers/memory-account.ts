import type {
  AccountBookmark,
  AccountDevice,
  AccountRefusal,
  AccountSession,
} from '../../../src/agents/tools/account-client.ts';

/**
 * A linked account held in memory behind the session interface the tools use, to see what they run and
 * when: `ran` lists each change in order. `refuse` names the refusal client-api would give a change, if any.
 */
export function memoryAccount(
  devices: AccountDevice[],
  options: {
    playing?: string[];
    /** The devices signed in; every enabled one when not said. */
    signedIn?: string[];
    bookmarks?: AccountBookmark[];
    refuse?: (change: string) => AccountRefusal | undefined;
  } = {},
) {
  const ran: string[] = [];
  const change = (description: string) => {
    ran.push(description);
    const refusal = options.refuse?.(description);
    return refusal ? { ok: false as const, refusal } : { ok: true as const };
  };
  const session: AccountSession = {
    accountNumber: 'ACC-MEMORY',
    devices: async () => devices.map((device) => ({ ...device })),
    playing: async () => options.playing ?? [],
    rename: async (id, name) => change(`rename ${id} ${name}`),
    setEnabled: async (id, enabled) => change(`enabled ${id} ${enabled}`),
    signOut: async (id) => change(`sign-out ${id}`),
    signedIn: async () =>
      options.signedIn ?? devices.filter((device) => device.enabled).map((device) => device.mediaPlayerId),
    recentBookmarks: async (limit, contentId) =>
      (options.bookmarks ?? [])
        .filter((bookmark) => contentId === undefined || bookmark.contentId === contentId)
        .slice(0, limit),
    signOutEverywhere: async () => change('sign-out everywhere'),
    // No TV waits in memory: the TV sign-in is tested against the real client-api.
    tvSignIn: async () => ({ ok: false, refusal: { status: 404, type: 'USER_CODE_INVALID' } }),
    decideTvSignIn: async (code, approve) => change(`tv-sign-in ${code} ${approve}`),
    // The household (who is watching, commands, handoff) is tested against the real client-api.
    watching: async () => ({ limit: 0, streams: [] }),
    command: async (id, type) => change(`command ${id} ${type}`),
    handoff: async (from, to) => change(`handoff ${from} ${to}`),
  };
  return { session, ran };
}
