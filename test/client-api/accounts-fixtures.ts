import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { type ClientApi, composeClientApi } from '../../src/client-api/composition.ts';
import { ProblemError } from '../../src/core/errors.ts';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp, type Env, type TestCore } from '../helpers/harness.ts';

export const BASE = '/api/v1';
export const PASSWORD = 'correct horse battery';

export interface SignedIn {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  userHash: string;
  platformUserId: string;
}

/** One operation of the served Swagger document, in the fields the tests read. */
export interface SwaggerOperation {
  operationId: string;
  security?: unknown;
  parameters?: Array<{ in: string; name?: string; description?: string }>;
  responses: Record<string, unknown>;
  'x-error-types'?: Record<string, string[]>;
  'x-delegated-scope'?: string;
}

/** The served Swagger document: its default security and its operations by path and method. */
export interface SwaggerDocument {
  security?: unknown;
  paths: Record<string, Record<string, SwaggerOperation>>;
}

export interface AccountsFixture {
  app: App;
  core: TestCore;
  /** The client API's services over the same core, for what operators do outside HTTP. */
  api: ClientApi;
  operatorKey: string;
  close(): Promise<void>;
  /** An account with one user (`<account>@example.test`, PASSWORD). */
  account(accountNumber: string): Promise<{ accountNumber: string; email: string; userHash: string }>;
  signIn(
    email: string,
    deviceId: string,
    options?: { deviceClass?: string; qspVersion?: string; deviceName?: string },
  ): Promise<SignedIn>;
  /** The served Swagger document, parsed (its answer asserted 200). */
  document(): Promise<SwaggerDocument>;
  call(
    method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD',
    path: string,
    auth?: { token?: string; key?: string; accept?: string },
    body?: unknown,
  ): Promise<LightMyRequestResponse>;
}

export async function accountsFixture(env: Env = {}): Promise<AccountsFixture> {
  const { app, core, close } = await createTestApp('client-api', env);
  const operatorKey = (await core.apiKeys.create('backoffice', 'test operator')).key;
  const api = composeClientApi(core);
  const fixture: AccountsFixture = {
    app,
    core,
    api,
    operatorKey,
    close,
    async account(accountNumber) {
      const account = await api.accounts.create(accountNumber);
      const email = `${accountNumber}@example.test`;
      await api.users.create({ accountNumber, email, password: PASSWORD, profiles: ['adult'] });
      return { accountNumber, email, userHash: account.userHash };
    },
    async signIn(email, deviceId, options = {}) {
      const query = options.qspVersion ? `?qspVersion=${options.qspVersion}` : '';
      const response = await app.inject({
        method: 'POST',
        url: `${BASE}/auth/${options.deviceClass ?? 'smarttv'}/users/authenticate${query}`,
        payload: {
          username: email,
          password: PASSWORD,
          deviceId,
          ...(options.deviceName ? { deviceName: options.deviceName } : {}),
        },
      });
      if (response.statusCode !== 200)
        throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
      const body = response.json();
      return {
        accessToken: body.tokens.accessToken,
        refreshToken: body.tokens.refreshToken,
        sessionId: body.tokens.sessionId,
        userHash: body.user.userHash,
        platformUserId: body.user.platformUserId,
      };
    },
    async document() {
      const response = await app.inject({ method: 'GET', url: `${BASE}/swagger.json` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as SwaggerDocument;
    },
    call(method, path, auth = {}, body) {
      const headers: Record<string, string> = {};
      if (auth.token) headers.authorization = `Bearer ${auth.token}`;
      if (auth.key) headers['x-api-key'] = auth.key;
      if (auth.accept) headers.accept = auth.accept;
      return app.inject({
        method,
        url: `${BASE}${path}`,
        headers,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } }),
      });
    },
  };
  return fixture;
}

/** The `errors[].type` values of an error body. */
export function errorTypes(response: LightMyRequestResponse): string[] {
  return (response.json().errors as Array<{ type: string }>).map((error) => error.type);
}

/** A bookmark row as device `tv-a` (a smart TV) saves it, for the hot-path repository tests. */
export function bookmarkRow(
  owner: { userHash: string; accountNumber: string; version: string | null },
  contentId: number,
  positionAt: number,
  offset: number,
) {
  return {
    user_hash: owner.userHash,
    content_id: contentId,
    account_number: owner.accountNumber,
    version: owner.version,
    offset_seconds: offset,
    position_at: positionAt,
    device_id: 'tv-a',
    device_class: 'smarttv',
    updated_at: positionAt,
  };
}

/** A repository's refusal of a device session: 401 TOKEN_INVALID. */
export const isTokenRefusal = (error: unknown) =>
  error instanceof ProblemError && error.status === 401 && error.type === 'TOKEN_INVALID';

/** An account as AccountsFixture.account answers it. */
export type AccountHolder = Awaited<ReturnType<AccountsFixture['account']>>;

/** The cast of the playback and bookmark tests: two accounts, three devices. */
export interface PlaybackCast {
  alice: AccountHolder;
  bob: AccountHolder;
  /** alice's TV, `tv-1` (smarttv). */
  tv: SignedIn;
  /** alice's phone, `phone-1` (android). */
  phone: SignedIn;
  /** bob's TV, `tv-b` (smarttv). */
  bobTv: SignedIn;
}

/** The cast made on `fx`: accounts `accounts.alice` and `accounts.bob`, the TVs and the phone named as told. */
export async function playbackCast(
  fx: AccountsFixture,
  accounts: { alice: string; bob: string },
  names: { tv?: string; phone?: string } = {},
): Promise<PlaybackCast> {
  const alice = await fx.account(accounts.alice);
  const bob = await fx.account(accounts.bob);
  return {
    alice,
    bob,
    tv: await fx.signIn(alice.email, 'tv-1', { deviceName: names.tv }),
    phone: await fx.signIn(alice.email, 'phone-1', { deviceClass: 'android', deviceName: names.phone }),
    bobTv: await fx.signIn(bob.email, 'tv-b'),
  };
}
