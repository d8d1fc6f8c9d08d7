import Type, { type Static } from 'typebox';
import { boundedString, PathDeviceClass } from '../common-schemas.ts';

export const registrationParams = Type.Object({
  deviceClass: PathDeviceClass,
});

export const registrationLanguages = ['es', 'en'] as const;

export const registrationRequestSchema = Type.Object(
  {
    email: Type.String({
      format: 'email',
      minLength: 3,
      maxLength: 254,
      description: 'Address the registration e-mail is sent to.',
    }),
    name: Type.Optional(boundedString(100, { description: 'How the e-mail addresses the person.' })),
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
