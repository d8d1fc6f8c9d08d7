import { LRUCache } from 'lru-cache';

/**
 * Element names and text escaping for XML. Keys that are not XML names are escaped the way .NET's
 * XmlConvert.EncodeName does it (`_xHHHH_` per offending character, `_` escaped when it would start such
 * a sequence), so any JSON key survives the trip; an empty key is written `_x_`.
 */

const NAME_START =
  /[A-Za-z_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/;
/** Besides NAME_START: digits, '-', '.', middle dot, combining marks and tie characters. */
const NAME_EXTRA = /[-.0-9\u00B7\u203F\u2040]/;
const COMBINING = /^[\u0300-\u036F]$/;
/**
 * XML 1.0 (5th edition) allows some space characters in names (U+1680 OGHAM SPACE MARK, U+2000…U+200A
 * are within its name ranges), but parsers split tag names at them: escaped like any other.
 */
const SPACE = /\s/u;
const SIMPLE_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const ESCAPE_LIKE = /^_x([0-9A-Fa-f]{4,6})?_/;
const ESCAPED = /_x([0-9A-Fa-f]{4,6})_/g;

/** Keys repeat (a schema's few field names): each is escaped once. */
const nameCache = new LRUCache<string, string>({ max: 1024 });

function hex(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, '0');
}

function escapeName(key: string): string {
  if (key === '') return '_x_';
  let out = '';
  let index = 0;
  for (const char of key) {
    const code = char.codePointAt(0) ?? 0;
    const allowed =
      !SPACE.test(char) &&
      (NAME_START.test(char) || (index > 0 && (NAME_EXTRA.test(char) || COMBINING.test(char))));
    const startsEscape = char === '_' && ESCAPE_LIKE.test(key.slice(index));
    out += allowed && !startsEscape && char !== ':' ? char : `_x${hex(code)}_`;
    index += char.length;
  }
  return out;
}

export function encodeName(key: string): string {
  const cached = nameCache.get(key);
  if (cached !== undefined) return cached;
  const name = SIMPLE_NAME.test(key) && !key.includes('_x') ? key : escapeName(key);
  nameCache.set(key, name);
  return name;
}

export function decodeName(name: string): string {
  if (name === '_x_') return '';
  if (!name.includes('_x')) return name;
  // Six hex digits can name a code point past U+10FFFF, which no encoder writes: kept as it came.
  return name.replace(ESCAPED, (match, code: string) => {
    const point = Number.parseInt(code, 16);
    return point <= 0x10ffff ? String.fromCodePoint(point) : match;
  });
}

/** Characters XML 1.0 cannot carry at all; they are replaced by U+FFFD. */
const INVALID_XML_CHARS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const NEEDS_ESCAPE = /[&<>\r]/;

/** True when no character needs escaping or replacing (the common case, checked without a regex). */
function plainText(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (
      code < 0x20 ||
      code === 0x26 ||
      code === 0x3c ||
      code === 0x3e ||
      (code >= 0xd800 && code <= 0xdfff) ||
      code >= 0xfffe
    ) {
      return false;
    }
  }
  return true;
}

export function escapeText(text: string): string {
  if (plainText(text)) return text;
  let safe = text.replace(INVALID_XML_CHARS, '\uFFFD');
  if (!NEEDS_ESCAPE.test(safe)) return safe;
  safe = safe.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  // A raw CR would be folded into LF by XML line-end handling; the reference keeps it.
  return safe.replace(/\r/g, '&#xD;');
}

const ENTITY = /&(#x[0-9A-Fa-f]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*)?(;?)/g;
const predefined: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Resolves the predefined entities and character references; anything else is an error (we own no DTD). */
export function decodeText(text: string, fail: (detail: string) => Error): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (_match, body: string | undefined, semicolon: string) => {
    if (body === undefined || semicolon !== ';') throw fail('a bare & in text');
    if (body.startsWith('#')) {
      const code = body[1] === 'x' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      const valid =
        code === 0x9 ||
        code === 0xa ||
        code === 0xd ||
        (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) ||
        (code >= 0x10000 && code <= 0x10ffff);
      if (!valid) throw fail(`the character reference &${body}; is not an XML character`);
      return String.fromCodePoint(code);
    }
    const resolved = predefined[body];
    if (resolved === undefined) throw fail(`the entity &${body}; is not defined`);
    return resolved;
  });
}
