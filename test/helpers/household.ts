import assert from 'node:assert/strict';
import { composeClientApi } from '../../src/client-api/composition.ts';
import type { Core } from '../../src/core/core.ts';

/** The password of every household's user. */
export const HOUSEHOLD_PASSWORD = 'correct horse battery';

/** An account with one user (`email`, HOUSEHOLD_PASSWORD, adult unless told): answers the account's user hash. */
export async function householdAccount(
  core: Core,
  household: { accountNumber: string; email: string; profiles?: string[] },
): Promise<string> {
  const { accountNumber, email, profiles = ['adult'] } = household;
  const api = composeClientApi(core);
  const { userHash } = await api.accounts.create(accountNumber);
  await api.users.create({ accountNumber, email, password: HOUSEHOLD_PASSWORD, profiles });
  return userHash;
}

/**
 * An account with one adult user (`email`, HOUSEHOLD_PASSWORD), its devices signed in through client-api's
 * real sign-in route at `clientApiUrl` (e.g. `http://127.0.0.1:3000/api/v1`), so each has a session as a
 * set-top box would: answers each device's access token by device id.
 */
export async function signedInHousehold(
  core: Core,
  clientApiUrl: string,
  household: { accountNumber: string; email: string; devices: ReadonlyArray<readonly [string, string]> },
): Promise<Record<string, string>> {
  const { email } = household;
  await householdAccount(core, household);
  const tokens: Record<string, string> = {};
  for (const [deviceId, deviceName] of household.devices) {
    tokens[deviceId] = await deviceToken(clientApiUrl, email, deviceId, { deviceName });
  }
  return tokens;
}

/**
 * A device (a smarttv unless `deviceClass` says otherwise) signed in as `email` through client-api's real
 * sign-in route at `clientApiUrl` (e.g. `http://127.0.0.1:3000/api/v1`), with HOUSEHOLD_PASSWORD unless told:
 * answers its access token, asserting the 200.
 */
export async function deviceToken(
  clientApiUrl: string,
  email: string,
  deviceId: string,
  options: { deviceName?: string; password?: string; deviceClass?: string } = {},
): Promise<string> {
  const { deviceName, password = HOUSEHOLD_PASSWORD, deviceClass = 'smarttv' } = options;
  const response = await fetch(`${clientApiUrl}/auth/${deviceClass}/users/authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password, deviceId, deviceName }),
  });
  const body = (await response.json()) as { tokens?: { accessToken: string } };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.tokens?.accessToken ?? '';
}
