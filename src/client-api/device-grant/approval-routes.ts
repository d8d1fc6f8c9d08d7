import type { FastifyRequest } from 'fastify';
import { vouchedClientAddress } from '../../core/api-keys/vouched-address.ts';
import type { App } from '../../core/http/service-app.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { ClientApi } from '../composition.ts';
import { deviceErrors } from '../devices/errors.ts';
import { normalizeUserCode } from './codes.ts';
import { deviceGrantErrors } from './errors.ts';
import { DecisionParams, DeviceSignIn, SignInParams } from './schemas.ts';

const { USER_CODE_INVALID, USER_CODE_THROTTLED, SIGN_IN_REFUSALS_LIMITED } = deviceGrantErrors;

/**
 * A TV sign-in seen and decided by someone already signed in to the account: one of its devices (a phone
 * app, with its device token) or the assistant for its linked person (delegated scope `devices:pair`).
 */
export function deviceSignInRoutes(
  app: App,
  {
    access,
    deviceGrants,
    core,
  }: Pick<ClientApi, 'access' | 'deviceGrants'> & {
    core: Pick<ClientApi['core'], 'apiKeys'>;
  },
): void {
  /** Who decides: the device's user (counted at its address) or the assistant's person. */
  const approverOf = async (request: FastifyRequest) =>
    deviceGrants.approverOf(request.principal, await vouchedClientAddress(core.apiKeys, request));

  const signInOperation = {
    tag: 'tv sign-in',
    security: 'person',
    owner: 'accountNumber',
    delegated: 'devices:pair',
  } as const;

  app.get(
    '/accounts/:accountNumber/device-sign-ins/:userCode',
    access.route(
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
    async (request) => {
      const approver = await approverOf(request);
      const grant = await deviceGrants.find(request.params.userCode, approver);
      return deviceGrants.view(grant, normalizeUserCode(request.params.userCode) ?? '');
    },
  );

  app.put(
    '/accounts/:accountNumber/device-sign-ins/:userCode/approved/:approved',
    access.route(
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
    async (request) => {
      const approver = await approverOf(request);
      const grant = await deviceGrants.find(request.params.userCode, approver);
      const decided = await deviceGrants.decide(grant, approver, request.params.approved === 'true');
      return deviceGrants.view(decided, normalizeUserCode(request.params.userCode) ?? '');
    },
  );
}
