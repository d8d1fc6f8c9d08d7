import Type, { type Static } from 'typebox';
import { PathDeviceClass } from '../common-schemas.ts';

export const registrationParams = Type.Object({
  deviceClass: PathDeviceClass,
});

export const registrationLanguages = ['es', 'en'] as const;

/** A greeting needs no more; whatever an anonymous sender writes here lands in someone else's inbox. */
export const REGISTRATION_NAME_MAX_LENGTH = 64;

export const registrationRequestSchema = Type.Object(
  {
    email: Type.String({
      format: 'email',
      minLength: 3,
      maxLength: 254,
      description: 'Address the registration e-mail is sent to.',
    }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: REGISTRATION_NAME_MAX_LENGTH,
        // No control characters or line separators: a name is one line of text.
        pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029]+$',
        description: `How the e-mail greets the person: at most ${REGISTRATION_NAME_MAX_LENGTH} characters, one line without control characters (else 400 VALIDATION_ERROR). Shown as plain text, and only when it is letters, spaces, apostrophes, hyphens and full stops before a space: anything else could become a link in a mail client, and the e-mail then greets without a name.`,
      }),
    ),
    language: Type.Optional(
      Type.Unsafe<(typeof registrationLanguages)[number]>({
        type: 'string',
        enum: [...registrationLanguages],
        description: 'Language of the e-mail (default es).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Asks for a registration e-mail (operation CORREO).',
  },
);

export const registrationAcceptedSchema = Type.Object(
  {
    requestId: Type.String({ description: 'Reference of the request; the e-mail quotes it.' }),
    status: Type.Literal('queued', { description: 'The e-mail is in the durable outbox.' }),
  },
  { xml: { name: 'RegistrationAccepted' } },
);

export type RegistrationRequest = Static<typeof registrationRequestSchema>;
export type RegistrationAccepted = Static<typeof registrationAcceptedSchema>;
