import { errorBodySchema } from '../../core/errors.ts';
import { bsonInt64, encodeBson } from './bson-codec.ts';
import type { MediaType } from './negotiation.ts';
import { project } from './project.ts';
import type { JsonSchema, SchemaResolver } from './schema.ts';
import { encodeUbjson } from './ubjson-codec.ts';
import { encodeXml } from './xml-encode.ts';

type ResponseSchemas = Record<string, JsonSchema | undefined>;

/**
 * The response schema of a status, looked up as Fastify does (exact, then `4xx`-style, then `default`).
 * An error status the route does not list still carries the family error body, so it falls back to it.
 */
export function responseSchema(responses: unknown, status: number): JsonSchema | undefined {
  const map = (responses ?? {}) as ResponseSchemas;
  const found = map[status] ?? map[`${String(status)[0]}xx`] ?? map.default;
  if (found !== undefined) return found;
  return status >= 400 ? (errorBodySchema as JsonSchema) : undefined;
}

/** Encodes a response payload (object, array, scalar, null) in one of the three non-JSON types. */
export function encodeBody(
  type: Exclude<MediaType, 'application/json'>,
  schema: JsonSchema | undefined,
  payload: unknown,
  resolve: SchemaResolver,
): Buffer | string {
  switch (type) {
    case 'application/bson':
      return encodeBson(project(schema, payload, { resolve, int64: bsonInt64 }));
    case 'application/ubjson':
      return encodeUbjson(project(schema, payload, { resolve }));
    case 'application/xml':
      return encodeXml(schema, project(schema, payload, { resolve }), resolve);
  }
}
