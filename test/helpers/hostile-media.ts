import { encode as ubjsonEncode } from '@shelacek/ubjson';
import { Long, serialize } from 'bson';
import { Builder } from 'xml2js';
import type { FormatName } from '../client-api/media-formats.ts';
import { isRawNumber, jsonText } from './hostile-inputs.ts';

/** A copy of `value` with each RawNumber replaced by `number(raw)`. */
function withNumbers(value: unknown, number: (raw: { raw: string; approx: number }) => unknown): unknown {
  if (isRawNumber(value)) return number(value);
  if (Array.isArray(value)) return value.map((item) => withNumbers(item, number));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withNumbers(item, number)]));
  }
  return value;
}

/** BSON holds only documents: a scalar goes in { Value }, an array keyed "0","1"… (as ASP.NET writes). */
function bsonDocument(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return Object.fromEntries(value.map((item, index) => [String(index), item]));
  if (typeof value === 'object' && value !== null && !isRawNumber(value))
    return value as Record<string, unknown>;
  return { Value: value };
}

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * XML as xml2js writes it, except that text xml2js refuses (NUL, a lone surrogate) and exact numbers go in
 * as placeholders, then raw: a hostile client is not bound by what a builder allows.
 */
function xmlText(value: unknown): string {
  const raws: string[] = [];
  const placeholder = (text: string) => {
    raws.push(text);
    return `HOSTILE${raws.length - 1}X`;
  };
  const substitute = (item: unknown): unknown => {
    if (isRawNumber(item)) return placeholder(item.raw);
    if (typeof item === 'string') return placeholder(item);
    if (item === null) return '';
    if (Array.isArray(item)) return item.map(substitute);
    if (typeof item === 'object') {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, substitute(inner)]));
    }
    return item;
  };
  const built = new Builder({ headless: true, rootName: 'Body' }).buildObject({ Body: substitute(value) });
  return raws.reduce((text, raw, index) => text.replaceAll(`HOSTILE${index}X`, escapeXml(raw)), built);
}

/** The bytes of a hostile body in one media type. */
export function hostileBody(type: FormatName, body: unknown): Buffer {
  switch (type) {
    case 'application/json':
      return Buffer.from(jsonText(body));
    case 'application/bson':
      return Buffer.from(
        serialize(
          withNumbers(bsonDocument(body), ({ raw }) => Long.fromString(raw)) as Record<string, unknown>,
        ),
      );
    case 'application/ubjson':
      return Buffer.from(ubjsonEncode(withNumbers(body, ({ approx }) => approx)));
    case 'application/xml':
      return Buffer.from(xmlText(body));
  }
}
