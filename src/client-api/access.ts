import type { RouteSchema } from '../core/http/route-errors.ts';
import type { CredentialKind } from './auth/credentials.ts';
import type { Guard, Guards, SyncGuard } from './auth/guards.ts';
import { operation } from './openapi.ts';

/** What a client API operation says of itself, its access included (openapi.ts's `operation()`). */
export type Declaration = Parameters<typeof operation>[0] & {
  /**
   * The path parameter naming whose resource this is, which a token may only be on its own:
   * `accountNumber` (a device token of that account, or the assistant's delegated one for it) or
   * `userHash` (a device token of that user). Operator keys pass. Else 403 ACCESS_DENIED.
   */
  owner?: 'accountNumber' | 'userHash';
};

/** A route's guards and document, as its options: `app.get(url, route(…), handler)` or `{ ...route(…) }`. */
export interface AccessRoute<S> {
  /** Who calls: their credentials, and their kind (operator, person). */
  onRequest: Array<Guard | SyncGuard>;
  /** Whose resource it is: the owner path parameter, once validated. */
  preHandler: SyncGuard[];
  schema: S;
}

/** The kinds of credentials the guards check; the others are the handler's own (the auth service's). */
const guarded = new Set<CredentialKind>(['deviceOrOperator', 'person', 'operator']);

/** A declaration the guards could not enforce as documented: a programming error, found at start. */
function checked(declaration: Declaration, schema: RouteSchema): void {
  const { id, security, owner, delegated } = declaration;
  const fail = (why: string) => {
    throw new Error(`Operation ${id}: ${why}.`);
  };
  if ((owner || delegated) && !guarded.has(security)) fail(`${security} credentials have no owner or scope`);
  if (owner && security === 'operator') fail('an operator-only operation has no owner');
  // Without an owner a delegated token would act on any account, not its linked one only.
  if (delegated && owner !== 'accountNumber') fail('a delegated scope needs the owner accountNumber');
  const params = (schema.params as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (owner && !params?.[owner]) fail(`no path parameter ${owner}`);
}

/**
 * The one place where a client API operation's access is turned into both its API document entry and
 * its guards, so the access a route documents is the access it checks. The credentials are checked at
 * onRequest, before anything else about the request is looked at (401, or 403 for the wrong kind); the
 * owner once the path is validated, so a malformed path is 400 whoever calls (then 403 for another's).
 */
export function createAccess(guards: Guards) {
  const byKind: Record<CredentialKind, Array<Guard | SyncGuard>> = {
    deviceOrOperator: [guards.authenticate],
    person: [guards.authenticate, guards.requirePerson],
    operator: [guards.authenticate, guards.requireOperator],
    // The token operations check their credentials themselves (the refresh token, HTTP Basic).
    refreshToken: [],
    basic: [],
    none: [],
  };
  const ownedBy = {
    accountNumber: guards.requireAccount('accountNumber'),
    userHash: guards.requireUserHash('userHash'),
  };
  return {
    /** The route's guards and its schema, from one declaration. */
    route<S extends RouteSchema>({ owner, ...header }: Declaration, schema: S): AccessRoute<S> {
      checked({ owner, ...header }, schema);
      return {
        onRequest: [...byKind[header.security]],
        preHandler: owner ? [ownedBy[owner]] : [],
        schema: operation(header, schema),
      };
    },
  };
}

export type Access = ReturnType<typeof createAccess>;
