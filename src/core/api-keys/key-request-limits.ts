import type { Config } from '../config.ts';
import { requestLimiter } from '../http/request-limits.ts';
import type { ApiKeyStore, KeyClass } from './api-keys.ts';

const limitVariable = {
  runtime: 'RUNTIME_KEY_REQUEST_LIMIT',
  gateway: 'GATEWAY_KEY_REQUEST_LIMIT',
  client: 'CLIENT_KEY_REQUEST_LIMIT',
  backoffice: 'BACKOFFICE_KEY_REQUEST_LIMIT',
} as const satisfies Record<KeyClass, keyof Config>;

/**
 * The store whose `verify` also counts the verified key's request against its class's limit (429
 * RATE_LIMITED with Retry-After past it): every service checks a key through it, so one setting holds
 * everywhere. The store itself when no class has a limit.
 */
export function withRequestLimits(
  store: ApiKeyStore,
  config: Pick<Config, (typeof limitVariable)[KeyClass] | 'REQUEST_LIMIT_WINDOW'>,
  onLimited: (keyClass: KeyClass) => void = () => {},
): ApiKeyStore {
  const limiters = new Map(
    Object.entries(limitVariable).map(([keyClass, variable]) => [
      keyClass,
      requestLimiter(config[variable], config.REQUEST_LIMIT_WINDOW),
    ]),
  );
  if ([...limiters.values()].every((limiter) => limiter === undefined)) return store;
  return {
    ...store,
    async verify(presented) {
      const record = await store.verify(presented);
      if (record) {
        try {
          limiters.get(record.keyClass)?.hit(record.id);
        } catch (refusal) {
          onLimited(record.keyClass);
          throw refusal;
        }
      }
      return record;
    },
  };
}
