import { defineErrors } from '../../core/errors.ts';

/** Subscriptions of platform users. */
export const subscriptionErrors = defineErrors('client-api/subscriptions', {
  HOMEZONE_NOT_SUBSCRIBED: [404, 'The account holds no home-zone subscription.'],
});
