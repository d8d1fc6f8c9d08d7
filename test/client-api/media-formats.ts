import { decode as ubjsonDecode, encode as ubjsonEncode } from '@shelacek/ubjson';
import { deserialize, serialize } from 'bson';
import type { LightMyRequestResponse } from 'fastify';
import { Builder, parseStringPromise } from 'xml2js';

/**
 * Independent implementations of the four media types, for tests: what a client would use to write
 * requests and read answers (never our own codecs).
 */
export type FormatName = 'application/json' | 'application/bson' | 'application/ubjson' | 'application/xml';
export const formatNames: FormatName[] = [
  'application/json',
  'application/bson',
  'application/ubjson',
  'application/xml',
];

function ubjsonRead(bytes: Buffer): unknown {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return ubjsonDecode(buffer, {
    int64Handling: (storage, offset) => Number(storage.view.getBigInt64(offset)),
  });
}

/** Reads an answer body: JSON.parse, bson's deserialize, @shelacek/ubjson, xml2js (strings, explicitArray off). */
export async function readBody(response: LightMyRequestResponse): Promise<unknown> {
  const type = String(response.headers['content-type'] ?? '');
  if (response.rawPayload.length === 0) return undefined;
  if (type.startsWith('application/json')) return JSON.parse(response.body);
  if (type.startsWith('application/bson')) return deserialize(response.rawPayload);
  if (type.startsWith('application/ubjson')) return ubjsonRead(response.rawPayload);
  if (type.startsWith('application/xml')) return parseStringPromise(response.body, { explicitArray: false });
  throw new Error(`unexpected content type ${type}`);
}

/** BSON bodies as ASP.NET's formatter writes them: scalars in { Value }, arrays keyed "0","1"… */
function bsonDocument(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return Object.fromEntries(value.map((item, index) => [String(index), item]));
  if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  return { Value: value };
}

/** Writes a request body; XML takes an xml2js object tree and a root name. */
export function writeBody(type: FormatName, value: unknown, xmlRoot = 'Body'): Buffer {
  switch (type) {
    case 'application/json':
      return Buffer.from(JSON.stringify(value));
    case 'application/bson':
      return Buffer.from(serialize(bsonDocument(value)));
    case 'application/ubjson':
      return Buffer.from(ubjsonEncode(value, { optimizeArrays: true, optimizeObjects: true }));
    case 'application/xml':
      return Buffer.from(new Builder({ rootName: xmlRoot }).buildObject(value));
  }
}

/** The error body in each format as the independent readers see it. */
export function errorOf(type: FormatName, body: unknown): { code: string; type: string } {
  const record = body as Record<string, unknown>;
  if (type === 'application/xml') {
    const error = record.Error as {
      code: string;
      errors: { ErrorItem: { type: string } | { type: string }[] };
    };
    const items = error.errors.ErrorItem;
    return { code: error.code, type: Array.isArray(items) ? (items[0]?.type ?? '') : items.type };
  }
  const errors = record.errors as { type: string }[];
  return { code: String(record.code), type: errors[0]?.type ?? '' };
}

/** An answer over real HTTP, its body read in its media type (XML unwrapped from its root; `{}` when empty). */
export type FetchedAnswer = { status: number; headers: Headers; body: Record<string, unknown> };

/**
 * A request over real HTTP to `url` in media type `type` (accepted, and the body's type when there is one,
 * written with `xmlRoot` as XML's root) with a device token or an API key: answers the status, the headers and
 * the body as readBody reads it.
 */
export async function fetchInFormat(
  url: string,
  method: string,
  auth: { token?: string; key?: string },
  options: { body?: unknown; type?: FormatName; xmlRoot?: string } = {},
): Promise<FetchedAnswer> {
  const { body, type = 'application/json', xmlRoot } = options;
  const headers: Record<string, string> = { accept: type };
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  if (auth.key) headers['x-api-key'] = auth.key;
  if (body !== undefined) headers['content-type'] = type;
  const response = await fetch(url, {
    method,
    headers,
    ...(body === undefined ? {} : { body: new Uint8Array(writeBody(type, body, xmlRoot)) }),
  });
  const raw = Buffer.from(await response.arrayBuffer());
  const read = (await readBody({
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
    rawPayload: raw,
    body: raw.toString('utf8'),
  } as unknown as LightMyRequestResponse)) as Record<string, unknown> | undefined;
  const unwrapped =
    type === 'application/xml' && read ? (Object.values(read)[0] as Record<string, unknown>) : read;
  return { status: response.status, headers: response.headers, body: unwrapped ?? {} };
}

/**
 * fetchInFormat as the tests of one resource call it: `call(method, path, auth, body?, type?)` on
 * `baseOf()` (read at each call, so a suite's base URL known only once its servers run), with `xmlRoot`.
 */
export function callerInFormat(baseOf: () => string, xmlRoot: string) {
  return (
    method: string,
    path: string,
    auth: { token?: string; key?: string },
    body?: unknown,
    type?: FormatName,
  ): Promise<FetchedAnswer> => fetchInFormat(`${baseOf()}${path}`, method, auth, { body, type, xmlRoot });
}
