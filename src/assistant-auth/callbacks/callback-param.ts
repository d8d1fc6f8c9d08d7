import { randomBytes } from 'node:crypto';
import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import type { Config } from '../../core/config.ts';
import { ProblemError } from '../../core/errors.ts';
import { decrypt, encrypt, keyedHash, parseKey } from '../../core/secrets.ts';
import { accountNumberField, E164_PATTERN, platformUserIdField } from '../users/schemas.ts';
import { callbackErrors } from './errors.ts';
import type { CallbackNonceRepository } from './nonce-repository.ts';

/** A parameter valid for longer than this is refused: it bounds how long nonces are kept. */
const CALLBACK_MAX_LIFETIME_SECONDS = 86_400;
/** What `callback-param` gives a parameter without `exp`. */
const CALLBACK_DEFAULT_LIFETIME_SECONDS = 300;

const callbackPayloadSchema = Type.Object(
  {
    identity: Type.String({ minLength: 1, maxLength: 256, description: 'The user’s id in the channel.' }),
    channel: Type.String({ pattern: '^[a-z0-9_-]{1,32}$' }),
    exp: Type.Integer({ description: 'Expiry, seconds since the epoch.' }),
    nonce: Type.String({ minLength: 16, maxLength: 128, description: 'Single use.' }),
    phoneNumber: Type.Optional(Type.String({ pattern: E164_PATTERN })),
    /** The pay-TV account the person proved in the gateway's authentication session: links the user. */
    accountNumber: Type.Optional(accountNumberField),
    platformUserId: Type.Optional(platformUserIdField),
  },
  { additionalProperties: false },
);
type CallbackPayload = Static<typeof callbackPayloadSchema>;

/** Where the gateway's key comes from: a process of the family (its core) is one. */
interface CallbackKeySource {
  readonly config: Pick<Config, 'GATEWAY_CALLBACK_KEY'>;
  key(purpose: string): Buffer;
}

/** The key shared with the gateway: GATEWAY_CALLBACK_KEY, else one derived from the master key. */
export function gatewayCallbackKey(source: CallbackKeySource): Buffer {
  const configured = source.config.GATEWAY_CALLBACK_KEY;
  return configured ? parseKey(configured) : source.key('gateway-callback');
}

/** Seals a payload as the gateway does: AES-256-GCM, `v1.<iv>.<ciphertext>.<tag>` in base64url. */
export function sealCallbackPayload(source: CallbackKeySource, payload: CallbackPayload): string {
  return encrypt(gatewayCallbackKey(source), JSON.stringify(payload));
}

/** Fills `exp` and `nonce` when absent, then seals: for `sintonia callback-param` and tests. */
export function makeCallbackParam(
  source: CallbackKeySource,
  partial: Omit<CallbackPayload, 'exp' | 'nonce'> & Partial<Pick<CallbackPayload, 'exp' | 'nonce'>>,
): { data: string; payload: CallbackPayload } {
  const payload: CallbackPayload = {
    ...partial,
    exp: partial.exp ?? Math.floor(Date.now() / 1000) + CALLBACK_DEFAULT_LIFETIME_SECONDS,
    nonce: partial.nonce ?? randomBytes(18).toString('base64url'),
  };
  if (!Value.Check(callbackPayloadSchema, payload)) {
    const problems = [...Value.Errors(callbackPayloadSchema, payload)].map(
      (error) => `${error.instancePath || '/'} ${error.message}`,
    );
    throw new RangeError(`invalid callback payload: ${problems.join('; ')}`);
  }
  return { data: sealCallbackPayload(source, payload), payload };
}

/**
 * Opens and checks callback parameters: tampered or malformed, expired, too long-lived or replayed is
 * 401. The nonce is spent (in the database, so every process sees it) only once all else holds, before
 * the callback's work; should the work fail on our side (a 5xx: the store busy or down), the nonce is
 * given back, so the gateway's retry of the same parameter is served rather than refused as a replay.
 * A refusal of the person's business (a 4xx, e.g. nothing to remove) keeps it spent: the parameter cannot
 * be brought back later, when it would act on something else.
 */
export function createCallbackParams(
  { key, nonceKey }: { key: Buffer; nonceKey: Buffer },
  nonces: CallbackNonceRepository,
) {
  function check(data: string, now: number): CallbackPayload {
    let payload: unknown;
    try {
      payload = JSON.parse(decrypt(key, data).toString('utf8'));
    } catch {
      throw callbackErrors.CALLBACK_PARAMETER_INVALID();
    }
    if (!Value.Check(callbackPayloadSchema, payload)) throw callbackErrors.CALLBACK_PARAMETER_INVALID();
    const expiresAt = payload.exp * 1000;
    if (expiresAt <= now) throw callbackErrors.CALLBACK_PARAMETER_EXPIRED();
    if (expiresAt > now + CALLBACK_MAX_LIFETIME_SECONDS * 1000) {
      throw callbackErrors.CALLBACK_PARAMETER_INVALID('The data parameter is valid for too long.');
    }
    return payload;
  }

  return {
    /** Checks `data`, spends its nonce and runs `work` with its payload (see above for a failed work). */
    async use<T>(data: string, work: (payload: CallbackPayload) => Promise<T>): Promise<T> {
      const now = Date.now();
      const payload = check(data, now);
      const nonceHash = keyedHash(nonceKey, payload.nonce);
      await nonces.forgetExpired(now);
      if (!(await nonces.spend(nonceHash, payload.exp * 1000))) {
        throw callbackErrors.CALLBACK_PARAMETER_REPLAYED();
      }
      try {
        return await work(payload);
      } catch (error) {
        const ours = !(error instanceof ProblemError) || error.status >= 500;
        // Given back at best: when the store is down this fails too, and the retry is refused as before.
        if (ours) await nonces.giveBack(nonceHash).catch(() => {});
        throw error;
      }
    },
  };
}
