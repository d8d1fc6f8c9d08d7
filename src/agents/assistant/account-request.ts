/**
 * What a person asks about their own account, in Spanish or English, as a call of the account tools
 * (account-answers.ts says the results back), and the shape of a pattern that hears one. The intent
 * files (account-intents.ts, watching-intents.ts, tv-sign-in-intents.ts) all make these.
 */
export type AccountRequest =
  | { kind: 'tool'; tool: string; args: Record<string, unknown> }
  | { kind: 'yes' }
  | { kind: 'no' };

/** A pattern of what people say, and the request its match makes. */
export interface RequestPattern {
  pattern: RegExp;
  request(match: RegExpExecArray): AccountRequest;
}
