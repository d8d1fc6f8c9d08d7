import Type, { type Static, type TSchema } from 'typebox';
import Value from 'typebox/value';
import { type AgentMetrics, uncounted } from '../metrics.ts';
import type { AccountClient, AccountDevice, AccountRefusal, AccountSession } from './account-client.ts';
import type { ConfirmationOwner, Confirmations, PendingAction } from './confirmations.ts';
import { matchDevice } from './device-match.ts';
import {
  type HouseholdAction,
  type HouseholdResult,
  householdCall,
  householdToolSpecs,
  isHouseholdAction,
  isHouseholdTool,
  runHousehold,
} from './household-tools.ts';
import {
  decideTvSignIn,
  type TvSignInAction,
  type TvSignInNotFound,
  tvSignInAction,
  tvSignInSpec,
} from './tv-sign-in.ts';
import {
  type AccountLimits,
  isWatchingRead,
  readWatching,
  type WatchingResult,
  watchingToolSpecs,
} from './watching-tools.ts';

/**
 * The account actions the assistant offers a linked person, one typed set for every agent: the rule-based
 * agent calls them by intent, the chat agent offers them to its model (their parameters are JSON Schema,
 * as the OpenAI tools API takes them). Read-only tools run at once; changing ones first answer a
 * confirmation request, and run only when that request is confirmed (confirmations.ts).
 */

const deviceArgument = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'The device: its name as the person says it (matched loosely) or its mediaPlayerId.',
});

export const accountToolSpecs = {
  list_devices: {
    description: "Lists the devices of the person's pay-TV account: name, whether enabled, whether playing.",
    parameters: Type.Object({}, { additionalProperties: false }),
    changes: false,
  },
  whats_playing: {
    description: 'Tells which devices of the account are playing something now.',
    parameters: Type.Object({}, { additionalProperties: false }),
    changes: false,
  },
  rename_device: {
    description: 'Renames a device of the account (asks the person to confirm first).',
    parameters: Type.Object(
      {
        device: deviceArgument,
        name: Type.String({ minLength: 1, maxLength: 64, description: 'The new name.' }),
      },
      { additionalProperties: false },
    ),
    changes: true,
  },
  set_device_enabled: {
    description: 'Enables or disables a device of the account (asks the person to confirm first).',
    parameters: Type.Object(
      { device: deviceArgument, enabled: Type.Boolean() },
      { additionalProperties: false },
    ),
    changes: true,
  },
  sign_out_device: {
    description:
      'Signs a device out: closes its sessions, so it must sign in again (asks the person to confirm first).',
    parameters: Type.Object({ device: deviceArgument }, { additionalProperties: false }),
    changes: true,
  },
  ...watchingToolSpecs,
  approve_tv_sign_in: tvSignInSpec,
  ...householdToolSpecs,
} as const satisfies Record<string, { description: string; parameters: TSchema; changes: boolean }>;

export { matchDevice, normalizeName } from './device-match.ts';

export type AccountToolName = keyof typeof accountToolSpecs;
type AccountToolArguments<N extends AccountToolName> = Static<(typeof accountToolSpecs)[N]['parameters']>;
export const accountToolNames = Object.keys(accountToolSpecs) as AccountToolName[];

const isAccountTool = (name: string): name is AccountToolName => Object.hasOwn(accountToolSpecs, name);

/** What a tool call came to; each agent says it in its own words (or hands it to its model as JSON). */
export type ToolResult =
  | { status: 'devices'; devices: AccountDevice[] }
  | { status: 'playing'; devices: AccountDevice[] }
  | {
      status: 'confirmation_required';
      action: ConfirmableAction;
      confirmation: { id: string; expiresAt: string };
    }
  | { status: 'done'; action: ConfirmableAction }
  | { status: 'refused'; action: ConfirmableAction; refusal: AccountRefusal }
  | { status: 'device_not_found'; device: string; devices: string[] }
  | { status: 'device_ambiguous'; device: string; candidates: string[] }
  | { status: 'invalid_arguments'; tool: string; problems: string[] }
  | { status: 'unknown_tool'; tool: string }
  | { status: 'nothing_to_confirm' }
  | WatchingResult
  | HouseholdResult
  | TvSignInNotFound;

/** A changing action with the device it names, resolved: what the person confirms. */
export type ConfirmableAction =
  | { tool: 'rename_device'; mediaPlayerId: string; deviceName: string; name: string }
  | { tool: 'set_device_enabled'; mediaPlayerId: string; deviceName: string; enabled: boolean }
  | { tool: 'sign_out_device'; mediaPlayerId: string; deviceName: string }
  | { tool: 'sign_out_everywhere' }
  | TvSignInAction
  | HouseholdAction;

/** What an agent needs to act on a linked person's account; an agent built without it acts on none. */
export interface AccountAccess {
  client: AccountClient;
  confirmations: Confirmations;
  /** Where the tool calls are counted (the agents server's /metrics). */
  metrics?: Pick<AgentMetrics, 'toolCall'>;
  /** The device limit the device_limit tool tells; without it that tool is unknown. */
  limits?: AccountLimits;
}

/** Runs the account tools for one person in one conversation. */
export function createAccountTools(
  session: AccountSession,
  confirmations: Confirmations,
  owner: ConfirmationOwner,
  options: Pick<AccountAccess, 'metrics' | 'limits'> = {},
) {
  const { metrics = uncounted, limits } = options;
  /** Each device with whether it plays now and whether it is signed in (signed out is not disabled). */
  async function withPlaying(): Promise<AccountDevice[]> {
    const [devices, playing, signedIn] = await Promise.all([
      session.devices(),
      session.playing(),
      session.signedIn(),
    ]);
    const now = new Set(playing);
    const open = new Set(signedIn);
    return devices.map((device) => ({
      ...device,
      playing: device.playing || now.has(device.mediaPlayerId),
      signedIn: open.has(device.mediaPlayerId),
    }));
  }

  async function resolve(said: string): Promise<AccountDevice | ToolResult> {
    const devices = await session.devices();
    const match = matchDevice(devices, said);
    if (match.kind === 'one') return match.device;
    if (match.kind === 'many') {
      return {
        status: 'device_ambiguous',
        device: said,
        candidates: match.candidates.map((device) => device.name),
      };
    }
    return { status: 'device_not_found', device: said, devices: devices.map((device) => device.name) };
  }

  async function execute(action: ConfirmableAction): Promise<ToolResult> {
    if (isHouseholdAction(action)) {
      const ran = await runHousehold(session, action);
      const { action: done, outcome: result } = ran;
      return result.ok
        ? { status: 'done', action: done }
        : { status: 'refused', action, refusal: result.refusal };
    }
    const outcome =
      action.tool === 'sign_out_everywhere'
        ? await session.signOutEverywhere()
        : action.tool === 'approve_tv_sign_in'
          ? await decideTvSignIn(session, action)
          : action.tool === 'rename_device'
            ? await session.rename(action.mediaPlayerId, action.name)
            : action.tool === 'set_device_enabled'
              ? await session.setEnabled(action.mediaPlayerId, action.enabled)
              : await session.signOut(action.mediaPlayerId);
    return outcome.ok ? { status: 'done', action } : { status: 'refused', action, refusal: outcome.refusal };
  }

  /** A changing action waits for the person's yes. */
  async function ask(action: ConfirmableAction): Promise<ToolResult> {
    const pending = await confirmations.request(owner, action.tool, { ...action });
    return {
      status: 'confirmation_required',
      action,
      confirmation: { id: pending.id, expiresAt: new Date(pending.expiresAt).toISOString() },
    };
  }

  /** A device tool's action on the device the person named, once resolved. */
  async function deviceAction(
    tool: 'rename_device' | 'set_device_enabled' | 'sign_out_device',
    args: unknown,
  ): Promise<ConfirmableAction | ToolResult> {
    const { device: said } = args as { device: string };
    const device = await resolve(said);
    if ('status' in device) return device;
    const target = { mediaPlayerId: device.mediaPlayerId, deviceName: device.name };
    return tool === 'rename_device'
      ? { tool, ...target, name: (args as AccountToolArguments<'rename_device'>).name }
      : tool === 'set_device_enabled'
        ? { tool, ...target, enabled: (args as AccountToolArguments<'set_device_enabled'>).enabled }
        : { tool: 'sign_out_device', ...target };
  }

  return {
    /** Calls a tool by name with the arguments a model or an intent produced (checked against its schema). */
    async call(tool: string, args: unknown): Promise<ToolResult> {
      const result = await callTool(tool, args);
      metrics.toolCall(isAccountTool(tool) ? tool : 'unknown', result.status);
      return result;
    },

    /** The person said yes: runs the pending action of this conversation, if one is still valid. */
    async confirm(hash?: string): Promise<ToolResult> {
      const pending: PendingAction | undefined = await confirmations.confirm(owner, hash);
      if (!pending) return { status: 'nothing_to_confirm' };
      const result = await execute(pending.arguments as ConfirmableAction);
      metrics.toolCall(pending.tool, result.status);
      return result;
    },

    /** The person said no, or asked something else: nothing pending runs. */
    cancel: () => confirmations.cancel(owner),
  };

  /** What a tool call comes to, before it is counted. */
  async function callTool(tool: string, args: unknown): Promise<ToolResult> {
    if (!isAccountTool(tool)) return { status: 'unknown_tool', tool };
    const spec = accountToolSpecs[tool];
    if (!Value.Check(spec.parameters, args)) {
      const problems = [...Value.Errors(spec.parameters, args)].map(
        (error) => `${error.instancePath || '/'} ${error.message}`,
      );
      return { status: 'invalid_arguments', tool, problems };
    }
    if (tool === 'list_devices') return { status: 'devices', devices: await withPlaying() };
    if (tool === 'whats_playing') {
      return { status: 'playing', devices: (await withPlaying()).filter((device) => device.playing) };
    }
    if (isWatchingRead(tool)) {
      return (await readWatching(session, tool, args as object, limits)) ?? { status: 'unknown_tool', tool };
    }
    if (tool === 'sign_out_everywhere') return ask({ tool });
    if (isHouseholdTool(tool)) {
      const household = await householdCall(session, tool, args as Record<string, unknown>, resolve);
      return 'status' in household ? household : ask(household);
    }
    const action =
      tool === 'approve_tv_sign_in'
        ? await tvSignInAction(session, args as AccountToolArguments<'approve_tv_sign_in'>)
        : await deviceAction(tool, args);
    if ('status' in action) return action;
    return ask(action);
  }
}

export type AccountTools = ReturnType<typeof createAccountTools>;
