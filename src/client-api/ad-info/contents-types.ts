/** The kinds of content ad-info answers for (a module of its own: the CLI checks them without TypeBox). */
export const contentsTypes = [
  'Voditems',
  'Events',
  'Channels',
  'Commercials',
  'U7d',
  'Npvr',
  'Ltcu',
] as const;
export type ContentsType = (typeof contentsTypes)[number];
