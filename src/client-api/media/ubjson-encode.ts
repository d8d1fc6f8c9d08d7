import { M, TWO_32 } from './ubjson-markers.ts';

/**
 * UBJSON writer: the plain form (markers on every value, no `$`/`#`), integers in the smallest of
 * i/U/I/l/L, other numbers as D (float64, exact), strings as S. One growing scratch buffer is reused
 * across calls (encoding is synchronous, so it is never shared).
 */
let scratch = Buffer.allocUnsafe(16 * 1024);
let pos = 0;

function ensure(bytes: number): void {
  if (pos + bytes <= scratch.length) return;
  let size = scratch.length * 2;
  while (size < pos + bytes) size *= 2;
  const bigger = Buffer.allocUnsafe(size);
  scratch.copy(bigger, 0, 0, pos);
  scratch = bigger;
}

function writeInteger(value: number): void {
  ensure(9);
  if (value >= -128 && value <= 127) {
    scratch[pos++] = M.int8;
    scratch.writeInt8(value, pos);
    pos += 1;
  } else if (value >= 0 && value <= 255) {
    scratch[pos++] = M.uint8;
    scratch[pos++] = value;
  } else if (value >= -32768 && value <= 32767) {
    scratch[pos++] = M.int16;
    scratch.writeInt16BE(value, pos);
    pos += 2;
  } else if (value >= -2147483648 && value <= 2147483647) {
    scratch[pos++] = M.int32;
    scratch.writeInt32BE(value, pos);
    pos += 4;
  } else {
    scratch[pos++] = M.int64;
    const high = Math.floor(value / TWO_32);
    scratch.writeInt32BE(high, pos);
    scratch.writeUInt32BE(value - high * TWO_32, pos + 4);
    pos += 8;
  }
}

/**
 * Length-prefixed UTF-8 (the S payload and object keys). Short strings are encoded by hand straight
 * into the scratch buffer (a native call per string costs more than the loop); a lone surrogate
 * becomes U+FFFD, as Buffer.write does.
 */
function writeText(text: string): void {
  const length = text.length;
  if (length >= 64) {
    const bytes = Buffer.byteLength(text, 'utf8');
    writeInteger(bytes);
    ensure(bytes);
    pos += scratch.write(text, pos, 'utf8');
    return;
  }
  // At most 3 bytes per UTF-16 unit; the length marker goes first, patched once the size is known.
  ensure(length * 3 + 2);
  // Locals, not the module's variables, inside the loop: V8 keeps them in registers.
  const buffer = scratch;
  const markerAt = pos;
  let at = pos + 2;
  for (let index = 0; index < length; index++) {
    let code = text.charCodeAt(index);
    if (code < 0x80) {
      buffer[at++] = code;
      continue;
    }
    if (code < 0x800) {
      buffer[at++] = 0xc0 | (code >> 6);
      buffer[at++] = 0x80 | (code & 0x3f);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(index + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        index++;
        buffer[at++] = 0xf0 | (code >> 18);
        buffer[at++] = 0x80 | ((code >> 12) & 0x3f);
        buffer[at++] = 0x80 | ((code >> 6) & 0x3f);
        buffer[at++] = 0x80 | (code & 0x3f);
        continue;
      }
      code = 0xfffd;
    }
    buffer[at++] = 0xe0 | (code >> 12);
    buffer[at++] = 0x80 | ((code >> 6) & 0x3f);
    buffer[at++] = 0x80 | (code & 0x3f);
  }
  const bytes = at - markerAt - 2;
  // Up to 127 bytes an int8 length, up to 192 (64 units × 3) a uint8 one: both fit the two bytes kept.
  buffer[markerAt] = bytes <= 127 ? M.int8 : M.uint8;
  buffer[markerAt + 1] = bytes;
  pos = at;
}

function writeValue(value: unknown): void {
  if (value === null || value === undefined) {
    ensure(1);
    scratch[pos++] = M.null;
    return;
  }
  switch (typeof value) {
    case 'boolean':
      ensure(1);
      scratch[pos++] = value ? M.true : M.false;
      return;
    case 'number':
      if (Number.isSafeInteger(value)) writeInteger(value);
      else if (Number.isFinite(value)) {
        ensure(9);
        scratch[pos++] = M.float64;
        scratch.writeDoubleBE(value, pos);
        pos += 8;
      } else {
        ensure(1);
        scratch[pos++] = M.null;
      }
      return;
    case 'string':
      ensure(1);
      scratch[pos++] = M.string;
      writeText(value);
      return;
    case 'object':
      if (Array.isArray(value)) {
        ensure(1);
        scratch[pos++] = M.arrayStart;
        for (const item of value) writeValue(item);
        ensure(1);
        scratch[pos++] = M.arrayEnd;
        return;
      }
      ensure(1);
      scratch[pos++] = M.objectStart;
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        writeText(key);
        writeValue(item);
      }
      ensure(1);
      scratch[pos++] = M.objectEnd;
      return;
    default:
      ensure(1);
      scratch[pos++] = M.null;
  }
}

/** Encodes a JSON value; `undefined` (nothing to send) is an empty body. */
export function encodeUbjson(value: unknown): Buffer {
  if (value === undefined) return Buffer.alloc(0);
  pos = 0;
  writeValue(value);
  const out = Buffer.allocUnsafe(pos);
  scratch.copy(out, 0, 0, pos);
  // One unusually large answer should not pin its buffer for the life of the process.
  if (scratch.length > 1024 * 1024) scratch = Buffer.allocUnsafe(16 * 1024);
  return out;
}
