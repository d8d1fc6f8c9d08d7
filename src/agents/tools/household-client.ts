/**
 * The household calls of the account client (client-api's who is watching, device commands and
 * handoff), on one linked account with a delegated token (scopes `playback:read`, `devices:control`).
 */

/** What one device of the account plays now (client-api's Stream). */
export interface AccountStream {
  deviceId: string;
  deviceClass: string;
  name: string;
  contentId: number;
  /** Last reported position, in seconds. */
  offset: number;
  since: string;
}

/** Who is watching: the account's live streams and its stream limit (client-api's Playback). */
export interface AccountWatching {
  limit: number;
  streams: AccountStream[];
}

/** A command a device obeys, as the assistant sends it. */
export type DeviceCommand = 'stop' | 'pause' | 'resume';

/** What client-api answered a command or handoff: sent, or its refusal the person can act on. */
export type HouseholdOutcome =
  | { ok: true; contentId?: number; offset?: number }
  | { ok: false; refusal: { status: number; type: string } };

export interface HouseholdSession {
  /** Who is watching now. */
  watching(): Promise<AccountWatching>;
  /** Tells a device of the account to stop, pause or resume. */
  command(mediaPlayerId: string, type: DeviceCommand): Promise<HouseholdOutcome>;
  /** Moves what `from` plays to `to` (the source stops, the target plays from the same position). */
  handoff(from: string, to: string): Promise<HouseholdOutcome>;
}

/** How the account client calls client-api for this account (a path under /accounts/{n}). */
type Call = <T>(
  path: string,
  method?: string,
  accept?: number[],
  body?: unknown,
) => Promise<{ status: number; body?: T }>;

/** Refusals told in words: bad request, unknown device, not connected / nothing playing, too many. */
const REFUSED = [400, 404, 409, 429];

export function householdSession(call: Call, errorType: (body: unknown) => string): HouseholdSession {
  const outcome = async (path: string, body: unknown): Promise<HouseholdOutcome> => {
    const answer = await call<{ contentId?: number; offset?: number }>(path, 'POST', REFUSED, body);
    if (answer.status >= 300) {
      return { ok: false, refusal: { status: answer.status, type: errorType(answer.body) } };
    }
    const { contentId, offset } = answer.body ?? {};
    return {
      ok: true,
      ...(typeof contentId === 'number' ? { contentId } : {}),
      ...(typeof offset === 'number' ? { offset } : {}),
    };
  };
  return {
    async watching() {
      const body = (await call<AccountWatching>('/playback')).body;
      return { limit: body?.limit ?? 0, streams: body?.streams ?? [] };
    },
    command: (id, type) => outcome(`/devices/${encodeURIComponent(id)}/commands`, { type }),
    handoff: (from, to) => outcome('/playback/handoff', { from, to }),
  };
}
