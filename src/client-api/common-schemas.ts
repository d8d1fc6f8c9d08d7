import Type, { type Static } from 'typebox';

/**
 * Shared TypeBox schemas for client API route authors (path/query/body pieces that many routes repeat).
 *
 * - `Int64Id`: an int64 identifier (content ids). Accepted as an integer in 0..2^53-1: a larger value
 *   cannot be carried exactly by a JS number, so it is refused with 400 VALIDATION_ERROR instead of
 *   being silently rounded (path params are coerced from text by ajv, then checked against maximum).
 *   `format: 'int64'` lands in the Swagger document (ajv-formats knows it).
 * - `QspVersion`: the qspVersion query parameter (the contract: All, V2, V3, Asfe, Ssp, SspV2, Trivial;
 *   default V3). Use as `Type.Object({ qspVersion: QspVersion })` in a querystring schema; ajv fills
 *   the default, so the handler always sees a value.
 * - `boundedString(max)`: a string of 1..max characters (the contract's "string, at most N").
 */
export const Int64Id = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  format: 'int64',
  description: 'int64 identifier; values above 2^53-1 are refused (400) rather than rounded.',
});

export const qspVersions = ['All', 'V2', 'V3', 'Asfe', 'Ssp', 'SspV2', 'Trivial'] as const;
export type QspVersionValue = (typeof qspVersions)[number];

/** `type: 'string'` is spelled out so Swagger 2 query parameters are valid. */
export const QspVersion = Type.Unsafe<QspVersionValue>({
  type: 'string',
  enum: [...qspVersions],
  default: 'V3',
  description: 'Which QSP version the operation addresses; All addresses every version.',
});

export function boundedString(max: number, options: { minLength?: number; description?: string } = {}) {
  return Type.String({ minLength: options.minLength ?? 1, maxLength: max, description: options.description });
}

export type Int64IdValue = Static<typeof Int64Id>;

/**
 * The device class in an operation's path: any class, as the caller names it (a device token's own class is
 * the stricter DeviceClass of auth/schemas.ts, checked where a token acts for its device).
 */
export const PathDeviceClass = boundedString(24, { description: 'Class of the client device (at most 24).' });

/** A `true`/`false` path segment (…/enabled/{enabled}, …/approved/{approved}): a string, as paths are. */
export const pathBoolean = (description: string) =>
  Type.Unsafe<'true' | 'false'>({ type: 'string', enum: ['true', 'false'], description });
