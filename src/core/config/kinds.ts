import Type from 'typebox';

/** The kinds of value several variables share. */
export const port = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 65535, default: fallback, description });
export const seconds = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 10 * 365 * 86400, default: fallback, description });
export const optionalUrl = (description: string) =>
  Type.Optional(Type.String({ pattern: '^https?://', description }));
/**
 * A secret: the variable can also be given as the path of a file that holds it, `NAME_FILE` (a mounted
 * secret), and its value is never printed in a configuration error. src/core/config.ts reads the files.
 */
export const secret = (options: { description: string; pattern?: string; minLength?: number }) =>
  Type.Optional(Type.String({ ...options, secret: true }));
/** 32 random bytes, base64 or hex: a key shared with a peer or kept by the operator. A secret. */
export const optionalKey = (description: string) =>
  secret({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$', description });
