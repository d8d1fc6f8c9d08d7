import Type, { type Static } from 'typebox';

export const User = Type.Object(
  {
    platformUserId: Type.String({ description: 'Id of the user on the platform.' }),
    accountNumber: Type.String({ description: 'Account the user belongs to.' }),
    email: Type.String({ description: 'E-mail address (lower case); the user name at sign-in.' }),
    userHash: Type.String({ maxLength: 48, description: "The account's userHash." }),
    profiles: Type.Array(Type.String({ xml: { name: 'string' } }), {
      xml: { wrapped: true },
      description: 'Profiles of the user.',
    }),
    subscriptions: Type.Array(Type.String({ xml: { name: 'string' } }), {
      xml: { wrapped: true },
      description: 'Subscription codes of the user.',
    }),
  },
  { xml: { name: 'User' }, description: 'A user of an account.' },
);
export type UserValue = Static<typeof User>;

export const UserList = Type.Array(User, { xml: { name: 'ArrayOfUser', wrapped: true } });

export const EmailParams = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254, description: 'E-mail address (case-insensitive).' }),
});
