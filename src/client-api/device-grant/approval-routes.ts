import type { FastifyRequest } from 'fastify';
import { vouchedClientAddress } from '../../core/api-keys/vouched-address.ts';
import { authErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { Principal } from '../auth/principal.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { operation } from '../openapi.ts';
import { normalizeUserCode } from './codes.ts';
import { deviceGrantErrors } from './errors.ts';
import { DecisionParams, DeviceSignIn, SignInParams } from './schemas.ts';
import type { Approver } from './service.ts';

const { USER_CODE_INVALID, USER_CODE_THROTTLED, SIGN_IN_REFUSALS_LIMITED } = deviceGrantErrors;

/**
 * A TV sign-in seen and decided by someone already signed in to the account: one of its devices (a phone
 * app, with its device token) or the assistant for its linked person (delegated scope `devices:pair`).
 */
export function deviceSignInRoutes(app: App, { guards, deviceGrants, repositories, core }: ClientApi): void {
  const access = { onRequest: [guards.authenticate, guards.requireAccount('accountNumber')] };

  /** Who decides: the device's user, or the person the assistant's link rests on. Operators may not. */
  async function approverOf(request: FastifyRequest, principal: Principal | undefined): Promise<Approver> {
    if (principal?.kind === 'device') {
      const address = await vouchedClientAddress(core.apiKeys, request);
      const { accountNumber, platformUserId } = principal;
      return { accountNumber, platformUserId, person: `user:${platformUserId}`, address, via: 'device' };
    }
    if (principal?.kind === 'assistant') {
      const platformUserId = await personOf(principal.accountNumber, principal.sessionId);
      return {
        accountNumber: principal.accountNumber,
        platformUserId,
        person: `assistant:${principal.assistantId}`,
        // The assistant's calls all come from its runtime: its guesses count per account, not per address.
        address: `account:${principal.accountNumber}`,
        via: 'assistant',
      };
    }
    throw authErrors.ACCESS_DENIED('Only a person signed in to the account may decide a TV sign-in.');
  }

  /** The user the assistant acts for: its chat page sign-in's, else the account's first user. */
  async function personOf(accountNumber: string, sessionId: string | undefined): Promise<string> {
    const session = sessionId === undefined ? undefined : await repositories.sessions.find(sessionId);
    if (session) return session.platform_user_id;
    const account = await repositories.accounts.find(accountNumber);
    const [first] = account ? await repositories.users.findByUserHash(account.userHash) : [];
    if (!first) throw accountErrors.ACCOUNT_NOT_FOUND();
    return first.platformUserId;
  }

  const signInOperation = {
    tag: 'tv sign-in',
    security: 'person' as const,
    delegated: 'devices:pair' as const,
  };

  app.get(
    '/accounts/:accountNumber/device-sign-ins/:userCode',
    {
      ...access,
      schema: operation(
        {
          ...signInOperation,
          id: 'DeviceSignIn_GetAsync',
          description:
            "Answers the TV waiting to be signed in with this user code: its class, id and name (the TV's own words, to show as untrusted text), so the person can check it before approving. Wrong codes are 404 and are throttled per person and per address (429 with Retry-After).",
          summary:
            'The TV waiting to be signed in with this code: its class, id and name. For a device of the account or the assistant (devices:pair); wrong codes are throttled per person and per address.',
          errors: [USER_CODE_INVALID, USER_CODE_THROTTLED, accountErrors.ACCOUNT_NOT_FOUND],
        },
        { params: SignInParams, response: { 200: DeviceSignIn } },
      ),
    },
    async (request) => {
      const approver = await approverOf(request, request.principal);
      const grant = await deviceGrants.find(request.params.userCode, approver);
      return deviceGrants.view(grant, normalizeUserCode(request.params.userCode) ?? '');
    },
  );

  app.put(
    '/accounts/:accountNumber/device-sign-ins/:userCode/approved/:approved',
    {
      ...access,
      schema: operation(
        {
          ...signInOperation,
          id: 'DeviceSignIn_DecideAsync',
          description:
            'Approves (`true`) or refuses (`false`) the TV sign-in waiting with this code. On approval the TV becomes a device of the account, within MAX_DEVICES_PER_ACCOUNT, and its next poll of the token endpoint gets its tokens; on refusal it gets access_denied. Refusals are bounded per account (DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT).',
          summary:
            "Signs the TV with this code in to the account (true) or refuses it (false); the TV's next poll gets its tokens or access_denied. The device limit is checked here; refusals are bounded per account (DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT).",
          errors: [
            USER_CODE_INVALID,
            USER_CODE_THROTTLED,
            SIGN_IN_REFUSALS_LIMITED,
            accountErrors.ACCOUNT_NOT_FOUND,
            deviceErrors.DEVICE_LIMIT_REACHED,
            deviceErrors.DEVICE_DISABLED,
          ],
        },
        { params: DecisionParams, response: { 200: DeviceSignIn } },
      ),
    },
    async (request) => {
      const approver = await approverOf(request, request.principal);
      const grant = await deviceGrants.find(request.params.userCode, approver);
      const decided = await deviceGrants.decide(grant, approver, request.params.approved === 'true');
      return deviceGrants.view(decided, normalizeUserCode(request.params.userCode) ?? '');
    },
  );
}
