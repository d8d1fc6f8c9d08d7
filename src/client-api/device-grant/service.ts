import { randomBytes, randomUUID } from 'node:crypto';
import type { Config } from '../../core/config.ts';
import { ProblemError } from '../../core/errors.ts';
import { clientAddressGroup } from '../../core/limits/client-address.ts';
import { keyedHash } from '../../core/secrets.ts';
import { coarseAddress, untrustedName } from '../../core/untrusted-text.ts';
import type { AccountRepository } from '../accounts/repository.ts';
import type { LoginThrottle } from '../auth/login-throttle.ts';
import type { AuthService } from '../auth/service.ts';
import { deviceErrors } from '../devices/errors.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import type { SessionRepository } from '../sessions/repository.ts';
import type { UserRepository } from '../users/repository.ts';
import { type Approver, createApproverOf } from './approvers.ts';
import { deviceCodeHash, newDeviceCode, newUserCode, normalizeUserCode } from './codes.ts';
import { deviceGrantErrors } from './errors.ts';
import { createGrantBounds } from './grant-bounds.ts';
import type { DeviceGrantRepository } from './repository.ts';
import {
  DEVICE_CODE_GRANT_TYPE,
  type DeviceAuthorizationRequestValue,
  type TokenRequestValue,
} from './schemas.ts';
import { deviceNameOf, signInView } from './sign-in-view.ts';
import type { DeviceGrantRow } from './tables.ts';

type Settings = Pick<
  Config,
  | 'DEVICE_GRANT_CLIENT_IDS'
  | 'DEVICE_GRANT_TTL'
  | 'DEVICE_GRANT_INTERVAL'
  | 'DEVICE_GRANT_MAX_PENDING_PER_ADDRESS'
  | 'DEVICE_GRANT_MAX_PENDING'
  | 'DEVICE_GRANT_MAX_REFUSED_PER_ACCOUNT'
  | 'MAX_DEVICES_PER_ACCOUNT'
  | 'CLIENT_API_BASE_PATH'
>;

export interface DeviceGrantDeps {
  config: Settings;
  grants: DeviceGrantRepository;
  auth: Pick<AuthService, 'openSession'>;
  users: UserRepository;
  accounts: AccountRepository;
  devices: DeviceRepository;
  sessions: SessionRepository;
  /** Wrong user codes per person and per address. */
  guesses: LoginThrottle;
  /** Keys the user codes' and addresses' hashes. */
  key: Buffer;
  /** client-api's public origin, read per call (known once it listens). */
  issuer(): string;
  /** A request for codes refused at a bound: the address's, or the overall one (for /metrics). */
  onLimited?(limit: 'address' | 'overall' | 'account'): void;
}

/** A poll this close to the interval is still on time: a TV's timer and the network are not exact. */
const POLL_LEEWAY_MS = 250;
/** Attempts to draw a user code not in use before giving up (20^8 codes: a clash is already rare). */
const CODE_DRAWS = 5;
/** The longest device id (DeviceId in auth/schemas.ts). */
const DEVICE_ID_MAX_LENGTH = 48;
/** The QSP version of a TV's session: the contract's default. */
const TV_QSP_VERSION = 'V3';

/**
 * The TV sign-in with a code (OAuth 2.0 device authorization grant, RFC 8628): a TV asks for codes,
 * a person approves the user code (on the verification page, from a signed-in device or through the
 * assistant), and the TV's poll of the token endpoint then opens an ordinary session: the same tokens,
 * device registration and device limit as a password sign-in.
 */
export function createDeviceGrantService(deps: DeviceGrantDeps) {
  const { config, grants, key } = deps;
  const clientIds = new Set(config.DEVICE_GRANT_CLIENT_IDS.split(','));
  const e = deviceGrantErrors;
  const { mayRefuse, withinBounds } = createGrantBounds(config, grants, deps.onLimited);
  const base = () => `${deps.issuer()}${config.CLIENT_API_BASE_PATH}`;
  const userCodeHash = (letters: string) => keyedHash(key, `user-code:${letters}`);

  const knownClient = (clientId: string) => {
    if (!clientIds.has(clientId)) throw e.OAUTH_CLIENT_UNKNOWN(`The client_id ${clientId} is not known.`);
  };

  /**
   * The device a grant becomes when approved in an account: always a new one, never a device the account
   * holds (whose id, class and sessions the TV would take over), so under the device limit. The TV keeps
   * the id it asked for when that one is free, else gets it with a random suffix.
   */
  async function newDeviceFor(grant: DeviceGrantRow, accountNumber: string): Promise<string> {
    if ((await deps.devices.countEnabled(accountNumber)) >= config.MAX_DEVICES_PER_ACCOUNT) {
      throw deviceErrors.DEVICE_LIMIT_REACHED(
        `The account already holds ${config.MAX_DEVICES_PER_ACCOUNT} enabled devices: remove one first.`,
      );
    }
    let deviceId = grant.device_id;
    for (let draw = 0; await deps.devices.find(accountNumber, deviceId); draw++) {
      if (draw === CODE_DRAWS) throw new Error('No free device id after several draws.');
      deviceId = `${grant.device_id.slice(0, DEVICE_ID_MAX_LENGTH - 9)}-${randomBytes(4).toString('hex')}`;
    }
    return deviceId;
  }

  async function redeem(grant: DeviceGrantRow) {
    if (!(await grants.redeem(grant.id)) || grant.platform_user_id === null) {
      throw e.DEVICE_CODE_INVALID('This device_code was used already.');
    }
    const user = await deps.users.findByPlatformUserId(grant.platform_user_id);
    if (!user) throw e.SIGN_IN_DENIED('The person who approved this sign-in no longer exists.');
    try {
      const device = { deviceId: grant.device_id, deviceName: deviceNameOf(grant) };
      // A new device only: one that took this id since the approval is not the TV's to take over.
      return await deps.auth.openSession(user, grant.client_id, device, TV_QSP_VERSION, { onlyNew: true });
    } catch (error) {
      // Between the approval and this poll the account may have filled up or disabled the TV.
      if (error instanceof ProblemError && error.status < 500) {
        throw e.SIGN_IN_DENIED(`The sign-in was refused: ${error.message}`, { errors: error.errors });
      }
      throw error;
    }
  }

  return {
    /** The metadata of RFC 8414 naming the endpoints. */
    metadata() {
      const issuer = deps.issuer();
      return {
        issuer,
        device_authorization_endpoint: `${base()}/oauth/device_authorization`,
        token_endpoint: `${base()}/oauth/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        grant_types_supported: [DEVICE_CODE_GRANT_TYPE, 'refresh_token'],
        response_types_supported: [],
        token_endpoint_auth_methods_supported: ['none'],
      };
    },

    verificationUri: () => `${base()}/device`,

    /** POST …/oauth/device_authorization: new codes for a TV, within the pending limit of its address. */
    async authorize(request: DeviceAuthorizationRequestValue, clientAddress: string, now = Date.now()) {
      knownClient(request.client_id);
      // IPv6 by its /64, as every per-address limit: one line holds a whole /64.
      const addressHash = keyedHash(key, `address:${clientAddressGroup(clientAddress)}`);
      await withinBounds(addressHash, now);
      const deviceCode = newDeviceCode();
      for (let draw = 0; draw < CODE_DRAWS; draw++) {
        const userCode = newUserCode();
        const inserted = await grants.insert({
          id: randomUUID(),
          device_code_hash: deviceCodeHash(deviceCode),
          user_code_hash: userCodeHash(userCode.replace('-', '')),
          client_id: request.client_id,
          device_id: request.device_id,
          device_name: untrustedName(request.device_name) || null,
          address_hash: addressHash,
          requested_from: coarseAddress(clientAddress),
          status: 'pending',
          poll_interval: config.DEVICE_GRANT_INTERVAL,
          last_polled_at: null,
          account_number: null,
          platform_user_id: null,
          decided_by: null,
          decided_at: null,
          created_at: now,
          expires_at: now + config.DEVICE_GRANT_TTL * 1000,
        });
        if (!inserted) continue;
        const page = `${base()}/device`;
        return {
          device_code: deviceCode,
          user_code: userCode,
          verification_uri: page,
          verification_uri_complete: `${page}?user_code=${userCode}`,
          expires_in: config.DEVICE_GRANT_TTL,
          interval: config.DEVICE_GRANT_INTERVAL,
        };
      }
      throw new Error('No free user code after several draws.');
    },

    /** POST …/oauth/token with the device_code grant: the RFC's answers until the TV gets its tokens. */
    async poll(request: TokenRequestValue, now = Date.now()) {
      if (request.grant_type !== DEVICE_CODE_GRANT_TYPE) {
        throw e.OAUTH_GRANT_TYPE_UNSUPPORTED(`The grant_type must be ${DEVICE_CODE_GRANT_TYPE}.`);
      }
      knownClient(request.client_id);
      if (request.device_code === undefined || request.device_code === '') {
        throw e.OAUTH_REQUEST_INVALID('The device_code parameter is required.');
      }
      const grant = await grants.byDeviceCode(deviceCodeHash(request.device_code));
      if (!grant || grant.client_id !== request.client_id) throw e.DEVICE_CODE_INVALID();
      if (grant.status === 'redeemed') throw e.DEVICE_CODE_INVALID('This device_code was used already.');
      if (grant.expires_at <= now) throw e.DEVICE_CODE_EXPIRED();
      if (!(await grants.recordPoll(grant.id, now, POLL_LEEWAY_MS))) {
        throw e.POLLING_TOO_FAST(
          `Polling too fast: wait at least ${grant.poll_interval + 5} seconds between polls from now on.`,
        );
      }
      if (grant.status === 'pending') throw e.AUTHORIZATION_PENDING();
      if (grant.status === 'denied') throw e.SIGN_IN_DENIED('The person refused this sign-in.');
      const tokens = await redeem(grant);
      return {
        access_token: tokens.accessToken,
        token_type: 'Bearer' as const,
        expires_in: tokens.expiresIn,
        refresh_token: tokens.refreshToken,
        session_id: tokens.sessionId,
        // The device the TV became, for its refreshes: another id than it asked for when that was taken.
        device_class: grant.client_id,
        device_id: grant.device_id,
      };
    },

    /**
     * The pending sign-in of a code a person typed, counted against their wrong guesses (per person and
     * per address, 429 USER_CODE_THROTTLED past either); unknown, expired or decided: 404 USER_CODE_INVALID.
     */
    async find(typed: string, approver: Pick<Approver, 'person' | 'address'>, now = Date.now()) {
      const attempt = await deps.guesses.admit(approver.person, approver.address, now);
      const letters = normalizeUserCode(typed);
      const grant =
        letters === undefined ? undefined : await grants.pendingByUserCode(userCodeHash(letters), now);
      if (!grant) throw e.USER_CODE_INVALID();
      // Only time clears wrong codes: a right one (one's own TV's) must not wipe the guesses before it.
      await attempt.notWrong();
      return grant;
    },

    /** A grant still waiting for a decision, by id (the page's ticket names it). */
    async pendingById(id: string, now = Date.now()) {
      const grant = await grants.byId(id);
      return grant?.status === 'pending' && grant.expires_at > now ? grant : undefined;
    },

    /** Approves (the device limit checked first) or denies a pending sign-in; decided already: 404. */
    async decide(grant: DeviceGrantRow, approver: Approver, approved: boolean, now = Date.now()) {
      if (!approved) await mayRefuse(approver.accountNumber, now);
      const deviceId = approved ? await newDeviceFor(grant, approver.accountNumber) : grant.device_id;
      const decided = await grants.decide(
        grant.id,
        {
          status: approved ? 'approved' : 'denied',
          deviceId,
          accountNumber: approver.accountNumber,
          platformUserId: approver.platformUserId,
          decidedBy: approver.via,
        },
        now,
      );
      if (!decided) throw e.USER_CODE_INVALID('This sign-in was decided already or has expired.');
      return {
        ...grant,
        device_id: deviceId,
        status: approved ? ('approved' as const) : ('denied' as const),
      };
    },

    /** Who decides a sign-in through the client API: a device's user or the assistant's person (approvers.ts). */
    approverOf: createApproverOf(deps),

    /** What a person is shown of a sign-in before deciding it (sign-in-view.ts). */
    view: signInView,
  };
}

export type DeviceGrantService = ReturnType<typeof createDeviceGrantService>;
