import Type from 'typebox';
import type { AccountDevice } from './account-client.ts';
import type { AccountStream, DeviceCommand, HouseholdSession } from './household-client.ts';

/**
 * The household tools (issue 43): who is watching at home, telling a device to stop, pause or resume,
 * and moving what one device plays to another (handoff). Their specs join the account tools'
 * (account-tools.ts), so both agents offer them; who is watching runs at once, the others after a yes.
 */
const device = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });

export const householdToolSpecs = {
  whos_watching: {
    description:
      "Who is watching at home: each device of the account playing now (its name, the content id, the position in seconds, since when) and the account's stream limit (screens at once).",
    parameters: Type.Object({}, { additionalProperties: false }),
    changes: false,
  },
  control_device: {
    description:
      'Tells a device of the account to stop, pause or resume what it plays (asks the person to confirm first). The device must be connected (its app open).',
    parameters: Type.Object(
      {
        device: device('The device: its name as the person says it (matched loosely) or its mediaPlayerId.'),
        command: Type.Union([Type.Literal('stop'), Type.Literal('pause'), Type.Literal('resume')]),
      },
      { additionalProperties: false },
    ),
    changes: true,
  },
  hand_off: {
    description:
      'Moves what a device plays to another device ("continue on the bedroom TV"): the source stops, the target plays the same content from the same position (asks the person to confirm first). Without `from`, the source is the device playing now.',
    parameters: Type.Object(
      {
        to: device('The device to continue on, by name (matched loosely) or mediaPlayerId.'),
        from: Type.Optional(device('The device playing now, when several are.')),
      },
      { additionalProperties: false },
    ),
    changes: true,
  },
} as const;

export type HouseholdToolName = keyof typeof householdToolSpecs;
export const isHouseholdTool = (tool: string): tool is HouseholdToolName =>
  Object.hasOwn(householdToolSpecs, tool);

/** A named device, resolved. */
interface Named {
  mediaPlayerId: string;
  deviceName: string;
}

/** A household action the person confirms; a done handoff also says what plays where it went. */
export type HouseholdAction =
  | ({ tool: 'control_device'; command: DeviceCommand } & Named)
  | { tool: 'hand_off'; from: Named; to: Named; contentId?: number; offset?: number };

export type HouseholdResult =
  | { status: 'watching'; limit: number; streams: AccountStream[] }
  /** A handoff with no device playing other than its target (`playingThere` when the target plays). */
  | { status: 'nothing_playing'; to: string; playingThere?: true }
  /** A handoff while several devices play: which one moves. */
  | { status: 'source_ambiguous'; to: string; candidates: string[] };

/** The device a person named, or why not (the account tools' device_not_found / device_ambiguous). */
type Resolve<R> = (said: string) => Promise<AccountDevice | R>;

const isDevice = <R extends { status: string }>(found: AccountDevice | R): found is AccountDevice =>
  !('status' in found);

const named = (device: AccountDevice): Named => ({
  mediaPlayerId: device.mediaPlayerId,
  deviceName: device.name,
});

/**
 * A household tool's call, with arguments already checked against its schema: a result to say at once,
 * or the action to ask the person about.
 */
export async function householdCall<R extends { status: string }>(
  session: HouseholdSession,
  tool: HouseholdToolName,
  args: Record<string, unknown>,
  resolve: Resolve<R>,
): Promise<HouseholdResult | HouseholdAction | R> {
  if (tool === 'whos_watching') return { status: 'watching', ...(await session.watching()) };
  if (tool === 'control_device') {
    const target = await resolve(args.device as string);
    if (!isDevice(target)) return target;
    return { tool, command: args.command as DeviceCommand, ...named(target) };
  }
  const to = await resolve(args.to as string);
  if (!isDevice(to)) return to;
  if (typeof args.from === 'string') {
    const from = await resolve(args.from);
    if (!isDevice(from)) return from;
    return { tool, from: named(from), to: named(to) };
  }
  const { streams } = await session.watching();
  const playing = streams.filter((stream) => stream.deviceId !== to.mediaPlayerId);
  const [only] = playing;
  if (!only) {
    const there = streams.length > 0;
    return { status: 'nothing_playing', to: to.name, ...(there ? { playingThere: true } : {}) };
  }
  if (playing.length > 1) {
    return { status: 'source_ambiguous', to: to.name, candidates: playing.map((stream) => stream.name) };
  }
  return { tool, from: { mediaPlayerId: only.deviceId, deviceName: only.name }, to: named(to) };
}

export const isHouseholdAction = (action: { tool: string }): action is HouseholdAction =>
  action.tool === 'control_device' || action.tool === 'hand_off';

/** After the yes: the command or the handoff, at client-api. */
export async function runHousehold(session: HouseholdSession, action: HouseholdAction) {
  if (action.tool === 'control_device') {
    return { action, outcome: await session.command(action.mediaPlayerId, action.command) };
  }
  const outcome = await session.handoff(action.from.mediaPlayerId, action.to.mediaPlayerId);
  const done: HouseholdAction = outcome.ok
    ? {
        ...action,
        ...(outcome.contentId === undefined ? {} : { contentId: outcome.contentId }),
        ...(outcome.offset === undefined ? {} : { offset: outcome.offset }),
      }
    : action;
  return { action: done, outcome };
}
