import type { Config } from '../../core/config.ts';
import { formChallenge } from '../../core/http/challenges.ts';
import { deviceErrors } from '../devices/errors.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { DEVICE_NAME_MAX_LENGTH } from '../devices/schemas.ts';
import type { SessionRepository, SessionRow } from '../sessions/repository.ts';
import { decoyHash, verifyPassword } from '../users/passwords.ts';
import { publicUser, type UserRecord, type UserRepository } from '../users/repository.ts';
import { basicCredentials, basicRefusals, bearerRefusals } from './credentials.ts';
import { authenticationErrors } from './errors.ts';
import type { LoginThrottle } from './login-throttle.ts';
import type { CredentialValue, TokenOptions, TokensValue } from './schemas.ts';
import type { SigningKeys } from './signing-keys.ts';
import {
  bearer,
  newRefreshToken,
  newSessionId,
  parseRefreshToken,
  sameHash,
  signAccessToken,
} from './tokens.ts';

/** A wrong user name or password sent in a body: 401 naming the form as the way in (every 401 has a challenge). */
const wrongPassword = () =>
  authenticationErrors.CREDENTIALS_INVALID(undefined, { headers: { 'www-authenticate': formChallenge() } });

type Settings = Pick<
  Config,
  'ACCESS_TOKEN_TTL' | 'REFRESH_TOKEN_TTL' | 'SESSION_IDLE_TIMEOUT' | 'MAX_DEVICES_PER_ACCOUNT'
>;

export interface AuthDeps {
  config: Settings;
  users: UserRepository;
  devices: DeviceRepository;
  sessions: SessionRepository;
  signingKeys: SigningKeys;
  throttle: LoginThrottle;
}

export function createAuthService({ config, users, devices, sessions, signingKeys, throttle }: AuthDeps) {
  async function tokensFor(
    session: SessionRow,
    user: UserRecord,
    refreshToken: string,
    now: number,
  ): Promise<TokensValue> {
    const accessToken = await signAccessToken(
      signingKeys,
      {
        sub: user.platformUserId,
        acc: session.account_number,
        uh: user.userHash,
        did: session.device_id,
        dcl: session.device_class,
        sid: session.id,
        qsp: session.qsp_version,
        ...(session.scope === null ? {} : { scope: session.scope }),
        ...(session.tier === null ? {} : { tier: session.tier }),
        ...(session.user_profile === null ? {} : { prf: session.user_profile }),
      },
      config.ACCESS_TOKEN_TTL,
      now,
    );
    return {
      accessToken,
      tokenType: 'Bearer',
      expiresIn: config.ACCESS_TOKEN_TTL,
      refreshToken,
      refreshExpiresIn: Math.max(0, Math.floor((session.refresh_expires_at - now) / 1000)),
      sessionId: session.id,
      qspVersion: session.qsp_version,
      ...(session.tier === null ? {} : { tier: session.tier }),
      ...(session.scope === null ? {} : { scope: session.scope }),
      ...(session.user_profile === null ? {} : { sessionUserProfile: session.user_profile }),
    };
  }

  /**
   * The user whose e-mail and password these are, if any, in about the same time either way; counted by
   * the sign-in throttle, which refuses with 429 over its limits before the password is checked.
   */
  async function userWith(
    username: string,
    password: string,
    clientAddress: string,
  ): Promise<UserRecord | undefined> {
    const attempt = await throttle.admit(username, clientAddress);
    const user = await passwordOwner(username, password);
    if (user) await attempt.succeeded();
    return user;
  }

  async function passwordOwner(username: string, password: string): Promise<UserRecord | undefined> {
    const candidates = await users.findByEmail(username.trim());
    for (const candidate of candidates) {
      if (await verifyPassword(password, candidate.passwordHash)) return publicUser(candidate);
    }
    if (candidates.length === 0) await verifyPassword(password, await decoyHash());
    return undefined;
  }

  /** Registers the device on first sight (enabled, within the account's limit); a disabled one is refused. */
  async function admitDevice(
    user: UserRecord,
    deviceClass: string,
    credential: Pick<CredentialValue, 'deviceId' | 'deviceName'>,
    now: number,
    onlyNew: boolean,
  ) {
    const taken = () =>
      deviceErrors.DEVICE_ID_TAKEN(`The account already holds a device ${credential.deviceId}.`);
    const existing = await devices.find(user.accountNumber, credential.deviceId);
    if (existing && onlyNew) throw taken();
    if (existing) {
      if (existing.enabled !== 1) throw deviceErrors.DEVICE_DISABLED();
      await devices.update(user.accountNumber, credential.deviceId, { last_seen_at: now });
      return existing;
    }
    if ((await devices.countEnabled(user.accountNumber)) >= config.MAX_DEVICES_PER_ACCOUNT) {
      throw deviceErrors.DEVICE_LIMIT_REACHED(
        `The account already holds ${config.MAX_DEVICES_PER_ACCOUNT} enabled devices.`,
      );
    }
    const name = (credential.deviceName?.trim() || `${deviceClass} ${credential.deviceId}`).slice(
      0,
      DEVICE_NAME_MAX_LENGTH,
    );
    const row = {
      account_number: user.accountNumber,
      device_id: credential.deviceId,
      name,
      device_class: deviceClass,
      enabled: 1,
      registered_at: now,
      activated_at: now,
      last_seen_at: now,
      last_playback_at: null,
    };
    // A concurrent first sign-in of the same device may have inserted it: use that one (unless only new will do).
    if (!(await devices.insert(row))) {
      if (onlyNew) throw taken();
      return (await devices.find(user.accountNumber, credential.deviceId)) ?? row;
    }
    return row;
  }

  /**
   * A new session of (account, device, qspVersion) and its tokens, the device registered on first sight
   * (the device limit applies): what a password sign-in ends with, and an approved TV sign-in too.
   */
  async function openSession(
    user: UserRecord,
    deviceClass: string,
    credential: Pick<CredentialValue, 'deviceId' | 'deviceName'>,
    qspVersion: string,
    options: { onlyNew?: boolean } = {},
  ): Promise<TokensValue> {
    // Taken after the (deliberately slow) password check, so the new session starts fresh.
    const now = Date.now();
    const device = await admitDevice(user, deviceClass, credential, now, options.onlyNew === true);
    const id = newSessionId();
    const refresh = newRefreshToken(id);
    const session: SessionRow = {
      id,
      account_number: user.accountNumber,
      device_id: device.device_id,
      device_class: device.device_class,
      platform_user_id: user.platformUserId,
      qsp_version: qspVersion,
      refresh_hash: refresh.hash,
      refresh_expires_at: now + config.REFRESH_TOKEN_TTL * 1000,
      tier: null,
      scope: null,
      user_profile: null,
      created_at: now,
      last_used_at: now,
      closed_at: null,
    };
    await sessions.insert(session);
    return tokensFor(session, user, refresh.token, now);
  }

  const refused = () => authenticationErrors.REFRESH_TOKEN_INVALID();

  return {
    /** GET/HEAD …/users/authenticate: the user of an `Authorization: Basic` header; else 401 with the challenge. */
    async checkBasic(authorization: string | undefined, clientAddress: string): Promise<UserRecord> {
      const credentials = basicCredentials(authorization);
      if (!credentials) {
        throw basicRefusals.CREDENTIALS_MISSING('HTTP Basic credentials (e-mail and password) are required.');
      }
      const user = await userWith(credentials.username, credentials.password, clientAddress);
      if (!user) throw basicRefusals.CREDENTIALS_INVALID();
      return user;
    },

    /** POST …/users/authenticate: a new session of (account, device, qspVersion) and its tokens. */
    async authenticate(
      deviceClass: string,
      credential: CredentialValue,
      qspVersion: string,
      authOnly: boolean,
      clientAddress: string,
    ) {
      const user = await userWith(credential.username, credential.password, clientAddress);
      if (!user) throw wrongPassword();
      if (authOnly) return { user };
      return { user, tokens: await openSession(user, deviceClass, credential, qspVersion) };
    },

    /**
     * The user of an e-mail and password, counted and refused (429) by the sign-in throttle as a sign-in
     * is; else 401 CREDENTIALS_INVALID. For other ways in that check a person first (the TV sign-in page).
     */
    async checkCredentials(username: string, password: string, clientAddress: string): Promise<UserRecord> {
      const user = await userWith(username, password, clientAddress);
      if (!user) throw wrongPassword();
      return user;
    },

    openSession,

    /**
     * GET …/tokens and …/userInfo: the session's refresh token (as a bearer) for fresh tokens; the
     * refresh token rotates, so each one works once, and a replayed one closes its session. tier, scope
     * and sessionUserProfile, when given, replace the session's and go into the access token.
     */
    async refresh(
      { deviceClass, deviceId }: { deviceClass: string; deviceId: string },
      authorization: string | undefined,
      options: TokenOptions,
      now = Date.now(),
    ) {
      const presented = bearer(authorization);
      if (!presented) {
        throw bearerRefusals.CREDENTIALS_MISSING('The refresh token is required as Authorization: Bearer.');
      }
      const parsed = parseRefreshToken(presented);
      const session = parsed ? await sessions.find(parsed.sessionId) : undefined;
      if (!parsed || !session || session.closed_at !== null) throw refused();
      if (!sameHash(session.refresh_hash, parsed.hash)) {
        // A refresh token of this session that is no longer its current one: it was rotated, so someone
        // replays it (a thief or the robbed device). The session ends, with the tokens issued after it.
        await sessions.close({ accountNumber: session.account_number, sessionId: session.id }, now);
        throw refused();
      }
      if (session.device_class !== deviceClass || session.device_id !== deviceId) throw refused();
      if (
        session.refresh_expires_at <= now ||
        now - session.last_used_at > config.SESSION_IDLE_TIMEOUT * 1000
      ) {
        await sessions.close({ accountNumber: session.account_number, sessionId: session.id }, now);
        throw refused();
      }
      const user = await users.findByPlatformUserId(session.platform_user_id);
      if (!user) throw refused();
      const next = newRefreshToken(session.id);
      const changes = {
        refresh_hash: next.hash,
        refresh_expires_at: now + config.REFRESH_TOKEN_TTL * 1000,
        last_used_at: now,
        tier: options.tier ?? session.tier,
        scope: options.scope ?? session.scope,
        user_profile: options.sessionUserProfile ?? session.user_profile,
      };
      if (!(await sessions.rotate(session.id, session.refresh_hash, changes))) throw refused();
      await devices.update(session.account_number, session.device_id, { last_seen_at: now });
      const record = publicUser(user);
      return { user: record, tokens: await tokensFor({ ...session, ...changes }, record, next.token, now) };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
