import Type from 'typebox';

/** The kinds of value several variables share. */
export const port = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 65535, default: fallback, description });
export const seconds = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 10 * 365 * 86400, default: fallback, description });
export const optionalUrl = (description: string) =>
  Type.Optional(Type.String({ pattern: '^https?://', description }));
/** 32 random bytes, base64 or hex: a key shared with a peer or kept by the operator. */
export const optionalKey = (description: string) =>
  Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$', description }));
