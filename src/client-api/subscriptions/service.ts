import Value from 'typebox/value';
import type { Config } from '../../core/config.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { Principal } from '../auth/principal.ts';
import { userErrors } from '../users/errors.ts';
import type { UserRepository } from '../users/repository.ts';
import { subscriptionErrors } from './errors.ts';
import type { SubscriptionRepository } from './repository.ts';
import { type Subscription, upstreamSubscriptionSchema } from './schemas.ts';

export interface SubscriptionService {
  /**
   * Enables the dth offer `codPersona;codOferta` for the user and answers the resulting subscription.
   * A device may upgrade its own user only; an operator any user.
   */
  enableDth(
    principal: Principal | undefined,
    input: { platformUserId: string; codPersona: string; codOferta: string },
  ): Promise<Subscription>;
  /** Passes when the account holds a home-zone offer (HOMEZONE_OFFERS); HOMEZONE_NOT_SUBSCRIBED otherwise. */
  requireHomeZone(accountNumber: string): Promise<void>;
}

type SubscriptionConfig = Pick<Config, 'SUBSCRIPTIONS_URL' | 'SUBSYSTEM_TIMEOUT_MS' | 'HOMEZONE_OFFERS'>;

/**
 * The local subscriptions table by default; with SUBSCRIPTIONS_URL the subscription back end is the
 * store: POST {url}/users/{platformUserId}/subscriptions to enable, GET
 * {url}/accounts/{accountNumber}/subscriptions/homezone (2xx yes, 404 no) to check.
 */
export function createSubscriptionService(
  repository: SubscriptionRepository,
  users: Pick<UserRepository, 'findByPlatformUserId' | 'setSubscriptions'>,
  config: SubscriptionConfig,
  now: () => number = Date.now,
): SubscriptionService {
  const remote = config.SUBSCRIPTIONS_URL?.replace(/\/$/, '');
  const homeZoneOffers = config.HOMEZONE_OFFERS.split(',').map((offer) => offer.trim());
  return {
    async enableDth(principal, { platformUserId, codPersona, codOferta }) {
      if (principal?.kind === 'device' && principal.platformUserId !== platformUserId) {
        throw authenticationErrors.USER_MISMATCH('A device may upgrade its own user only.');
      }
      const user = await users.findByPlatformUserId(platformUserId);
      if (!user) throw userErrors.USER_NOT_FOUND('No user has this platformUserId.');
      const at = now();
      let enabledAt = at;
      if (remote) {
        const answer = await callSubsystem<unknown>({
          subsystem: 'subscriptions',
          url: `${remote}/users/${encodeURIComponent(platformUserId)}/subscriptions`,
          method: 'POST',
          body: { accountNumber: user.accountNumber, codPersona, codOferta, product: 'dth', enabled: true },
          timeoutMs: config.SUBSYSTEM_TIMEOUT_MS,
        });
        const upstream = Value.Check(upstreamSubscriptionSchema, answer.body)
          ? answer.body.enabledAt
          : undefined;
        if (upstream !== undefined) enabledAt = Date.parse(upstream);
      } else {
        const row = await repository.enable({
          platform_user_id: platformUserId,
          cod_persona: codPersona,
          cod_oferta: codOferta,
          account_number: user.accountNumber,
          product: 'dth',
          enabled: 1,
          enabled_at: at,
          updated_at: at,
        });
        enabledAt = row.enabled_at;
      }
      // The User record lists its offers; keep it in step with the store.
      if (!user.subscriptions.includes(codOferta)) {
        await users.setSubscriptions(platformUserId, [...user.subscriptions, codOferta]);
      }
      return {
        platformUserId,
        accountNumber: user.accountNumber,
        codPersona,
        codOferta,
        product: 'dth',
        enabled: true,
        enabledAt: new Date(enabledAt).toISOString(),
      };
    },

    async requireHomeZone(accountNumber) {
      if (!(await hasHomeZone(accountNumber))) throw subscriptionErrors.HOMEZONE_NOT_SUBSCRIBED();
    },
  };

  async function hasHomeZone(accountNumber: string): Promise<boolean> {
    if (remote) {
      const answer = await callSubsystem<unknown>(
        {
          subsystem: 'subscriptions',
          url: `${remote}/accounts/${encodeURIComponent(accountNumber)}/subscriptions/homezone`,
          method: 'GET',
          timeoutMs: config.SUBSYSTEM_TIMEOUT_MS,
        },
        [404],
      );
      return answer.status !== 404;
    }
    return repository.accountHoldsOffer(accountNumber, homeZoneOffers);
  }
}
