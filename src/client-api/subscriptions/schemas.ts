import Type, { type Static } from 'typebox';
import { boundedString, PathDeviceClass } from '../common-schemas.ts';

/** One path segment `{codPersona};{codOferta}`: router parameters cannot split at `;`, the schema does. */
export const OFFER_PATTERN = '^[^;]{1,48};[^;]{1,48}$';

export const upgradeParams = Type.Object({
  deviceClass: PathDeviceClass,
  platformUserId: boundedString(64),
  offer: Type.String({
    pattern: OFFER_PATTERN,
    description: 'codPersona and codOferta joined by a semicolon (each at most 48 characters).',
  }),
});

/** `codPersona;codOferta` (as OFFER_PATTERN checked it) in its two parts. */
export function splitOffer(offer: string): { codPersona: string; codOferta: string } {
  const split = offer.indexOf(';');
  return { codPersona: offer.slice(0, split), codOferta: offer.slice(split + 1) };
}

/** The same parameters as the contract's path names them, for the API document. */
export const upgradeDocumentParams = Type.Object({
  deviceClass: upgradeParams.properties.deviceClass,
  platformUserId: upgradeParams.properties.platformUserId,
  codPersona: Type.String({
    minLength: 1,
    maxLength: 48,
    pattern: '^[^;]+$',
    description: 'Person code (no semicolon).',
  }),
  codOferta: Type.String({
    minLength: 1,
    maxLength: 48,
    pattern: '^[^;]+$',
    description: 'Offer code (no semicolon).',
  }),
});

export const homeZoneParams = Type.Object({ accountNumber: boundedString(48) });

export const subscriptionSchema = Type.Object(
  {
    platformUserId: Type.String(),
    accountNumber: Type.String(),
    codPersona: Type.String(),
    codOferta: Type.String(),
    product: Type.Literal('dth', { description: 'Direct-to-home satellite television.' }),
    enabled: Type.Boolean(),
    enabledAt: Type.String({ format: 'date-time' }),
  },
  {
    xml: { name: 'Subscription' },
    description: 'A subscription of a user to an offer.',
  },
);

export type Subscription = Static<typeof subscriptionSchema>;

/** What the subscription back end answers to an upgrade (SUBSCRIPTIONS_URL); extra fields are ignored. */
export const upstreamSubscriptionSchema = Type.Object({
  enabledAt: Type.Optional(Type.String({ format: 'date-time' })),
});
