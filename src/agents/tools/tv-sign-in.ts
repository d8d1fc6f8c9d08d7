import Type from 'typebox';
import { untrustedName } from '../../core/untrusted-text.ts';
import type { AccountRefusal, AccountSession } from './account-client.ts';

/**
 * The assistant signs a TV in with the code it shows (client-api's TV sign-in, delegated scope
 * `devices:pair`): the tool looks the code up first, so the person confirms knowing which device and of
 * what class will join their account; only their yes approves (or refuses) it.
 */
export const tvSignInSpec = {
  description:
    "Signs a TV or set-top box in to the person's account with the code it shows on screen (8 letters, like BDWP-HQPK), or refuses that sign-in when approve is false. Names the device and asks the person to confirm first.",
  parameters: Type.Object(
    {
      code: Type.String({
        minLength: 8,
        maxLength: 16,
        description: 'The code the TV shows, e.g. BDWP-HQPK.',
      }),
      approve: Type.Optional(
        Type.Boolean({ description: 'false to refuse the sign-in instead; approves when omitted.' }),
      ),
    },
    { additionalProperties: false },
  ),
  changes: true,
} as const;

/** A TV sign-in the person is asked to confirm: the device, its class, when and whence it asked, the code. */
export interface TvSignInAction {
  tool: 'approve_tv_sign_in';
  mediaPlayerId: string;
  /** The TV's own word for itself, made safe again here (untrusted-text.ts): never trusted as said. */
  deviceName: string;
  deviceClass: string;
  userCode: string;
  /** When it asked (ISO) and from where, coarsely; absent from a client-api that does not say. */
  requestedAt?: string;
  requestedFrom?: string;
  approve: boolean;
}

/** The code names no TV waiting (unknown, expired, decided), or the person typed too many wrong ones. */
export interface TvSignInNotFound {
  status: 'tv_sign_in_not_found';
  code: string;
  refusal: AccountRefusal;
}

/** The action to confirm for a code, once client-api has named the TV behind it. */
export async function tvSignInAction(
  session: AccountSession,
  args: { code: string; approve?: boolean },
): Promise<TvSignInAction | TvSignInNotFound> {
  const found = await session.tvSignIn(args.code);
  if (!found.ok) return { status: 'tv_sign_in_not_found', code: args.code, refusal: found.refusal };
  return {
    tool: 'approve_tv_sign_in',
    mediaPlayerId: found.signIn.deviceId,
    deviceName: untrustedName(found.signIn.deviceName),
    deviceClass: untrustedName(found.signIn.deviceClass),
    userCode: found.signIn.userCode,
    ...(typeof found.signIn.requestedAt === 'string' ? { requestedAt: found.signIn.requestedAt } : {}),
    ...(typeof found.signIn.requestedFrom === 'string'
      ? { requestedFrom: untrustedName(found.signIn.requestedFrom) }
      : {}),
    approve: args.approve ?? true,
  };
}

/** After the yes: the decision, at client-api. */
export const decideTvSignIn = (session: AccountSession, action: TvSignInAction) =>
  session.decideTvSignIn(action.userCode, action.approve);
