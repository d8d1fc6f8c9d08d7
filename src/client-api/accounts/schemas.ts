import Type from 'typebox';

export const UserHashResponse = Type.Object(
  {
    userHash: Type.String({
      maxLength: 48,
      description: "The account's user code, keyed-hashed with a server key: stable and opaque.",
    }),
  },
  { xml: { name: 'UserHash' }, description: 'The userHash of an account (bookmarks are addressed by it).' },
);
