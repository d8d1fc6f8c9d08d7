import Type from 'typebox';
import { boundedString, PathDeviceClass } from '../common-schemas.ts';

export const campaignParams = Type.Object({
  deviceClass: PathDeviceClass,
  accountNumber: boundedString(48),
  campaign: boundedString(24, { description: 'Advertising campaign (at most 24, as in ad-info).' }),
});

export const campaignQuery = Type.Object({
  mediaPlayerId: Type.Optional(
    boundedString(48, { description: 'Device of the account the contact came from.' }),
  ),
});

/** 201: the id of the stored (or forwarded) contact, a bare string (`<string>` in XML). */
export const contactIdSchema = Type.String({
  description: 'Id of the advertising contact.',
  xml: { name: 'string' },
});

/** What the campaigns subsystem answers (CAMPAIGNS_URL, POST /contacts). */
export const forwardedContactSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
