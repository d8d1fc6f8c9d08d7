import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/core/http/service-app.ts';
import { BASE } from './accounts-fixtures.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const PUBLIC_URL = 'http://tv.test';
/** A user code as the TV shows it: 8 letters of RFC 8628's 20-letter alphabet. */
export const USER_CODE_SHAPE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

/** A form-encoded POST, as an OAuth client sends it. */
export function postForm(
  app: App,
  path: string,
  form: Record<string, string>,
  options: { from?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `${BASE}${path}`,
    payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    ...(options.from ? { remoteAddress: options.from } : {}),
  });
}

export interface Codes {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

let asked = 0;
/** A client address of its own for each TV that does not say where it asks from (the limit is per address). */
const nextAddress = () => {
  asked++;
  return `10.250.${(asked >> 8) & 255}.${asked & 255}`;
};

/** A TV asks for codes; fails the test unless it gets them. */
export async function askCodes(
  app: App,
  deviceId: string,
  options: { clientId?: string; deviceName?: string; from?: string } = {},
): Promise<Codes> {
  const response = await postForm(
    app,
    '/oauth/device_authorization',
    {
      client_id: options.clientId ?? 'smarttv',
      device_id: deviceId,
      ...(options.deviceName ? { device_name: options.deviceName } : {}),
    },
    { from: options.from ?? nextAddress() },
  );
  if (response.statusCode !== 200) throw new Error(`codes refused: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** The TV's poll of the token endpoint. */
export const poll = (app: App, deviceCode: string, clientId = 'smarttv') =>
  postForm(app, '/oauth/token', {
    grant_type: DEVICE_CODE_GRANT,
    device_code: deviceCode,
    client_id: clientId,
  });

/** The OAuth `error` of a refusal, with its family `errors[].type` values. */
export function oauthError(response: LightMyRequestResponse): { error: string; types: string[] } {
  const body = response.json();
  return { error: body.error, types: (body.errors as Array<{ type: string }>).map((item) => item.type) };
}

/** A refusal's Retry-After: asserted to be from 1 to `most` seconds. */
export function assertRetryAfter(response: LightMyRequestResponse, most: number): void {
  const seconds = Number(response.headers['retry-after']);
  assert.ok(seconds >= 1 && seconds <= most, `retry-after ${seconds}`);
}

/** A request for codes refused while too many sign-ins wait: 429 temporarily_unavailable PENDING_SIGN_INS_LIMITED, Retry-After within 10 minutes. */
export function assertPendingLimited(refused: LightMyRequestResponse): void {
  assert.equal(refused.statusCode, 429);
  assert.deepEqual(oauthError(refused), {
    error: 'temporarily_unavailable',
    types: ['PENDING_SIGN_INS_LIMITED'],
  });
  assertRetryAfter(refused, 600);
}
