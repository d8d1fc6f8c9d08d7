import { commonErrors } from '../../core/errors.ts';
import { mediaErrors } from './errors.ts';

/**
 * UBJSON, draft 12 (ubjson.org). Encoding writes the plain form (markers on every value, no `$`/`#`):
 * integers in the smallest of i/U/I/l/L, other numbers as D (float64, exact), strings as S.
 * Decoding reads everything the draft defines, optimised containers (`#` count, `$` type + `#` count)
 * and N no-ops included; int64 (L) and high-precision (H) integers beyond 2^53-1 are refused, never rounded.
 */

const M = {
  null: 0x5a, // Z
  noop: 0x4e, // N
  true: 0x54, // T
  false: 0x46, // F
  int8: 0x69, // i
  uint8: 0x55, // U
  int16: 0x49, // I
  int32: 0x6c, // l
  int64: 0x4c, // L
  float32: 0x64, // d
  float64: 0x44, // D
  high: 0x48, // H
  char: 0x43, // C
  string: 0x53, // S
  arrayStart: 0x5b, // [
  arrayEnd: 0x5d, // ]
  objectStart: 0x7b, // {
  objectEnd: 0x7d, // }
  type: 0x24, // $
  count: 0x23, // #
} as const;

const TWO_32 = 4294967296;

// ---------------------------------------------------------------------------------------------------------
// Encoding: one growing scratch buffer reused across calls (encoding is synchronous, so never shared).

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
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Decoding.

const utf8 = new TextDecoder('utf-8', { fatal: true });
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function malformed(detail: string): Error {
  return commonErrors.MALFORMED_BODY(`The UBJSON body could not be read: ${detail}.`);
}

class Reader {
  private offset = 0;
  constructor(
    private readonly bytes: Buffer,
    private readonly maxDepth: number,
  ) {}

  atEnd(): boolean {
    while (this.offset < this.bytes.length && this.bytes[this.offset] === M.noop) this.offset++;
    return this.offset >= this.bytes.length;
  }

  private need(count: number): void {
    if (this.offset + count > this.bytes.length) throw malformed('unexpected end of body');
  }

  private byte(): number {
    this.need(1);
    return this.bytes[this.offset++] as number;
  }

  private integerOf(marker: number): number {
    const bytes = this.bytes;
    switch (marker) {
      case M.int8:
        this.need(1);
        return bytes.readInt8(this.offset++);
      case M.uint8:
        this.need(1);
        return bytes[this.offset++] as number;
      case M.int16:
        this.need(2);
        this.offset += 2;
        return bytes.readInt16BE(this.offset - 2);
      case M.int32:
        this.need(4);
        this.offset += 4;
        return bytes.readInt32BE(this.offset - 4);
      case M.int64: {
        this.need(8);
        const value = bytes.readInt32BE(this.offset) * TWO_32 + bytes.readUInt32BE(this.offset + 4);
        this.offset += 8;
        if (!Number.isSafeInteger(value)) throw mediaErrors.INTEGER_OUT_OF_RANGE();
        return value;
      }
      default:
        throw malformed(`0x${marker.toString(16)} is not an integer type`);
    }
  }

  /** A length or count: an integer marker and a non-negative value that fits in what is left. */
  private size(): number {
    const size = this.integerOf(this.byte());
    if (size < 0) throw malformed('negative length');
    return size;
  }

  private text(): string {
    const length = this.size();
    this.need(length);
    const start = this.offset;
    this.offset += length;
    return length < 64 ? this.shortUtf8(start, start + length) : this.utf8(start, length);
  }

  /**
   * Short strings decoded (and validated) by hand: a TextDecoder call costs more than the whole loop.
   * Overlong forms, surrogates and code points past U+10FFFF are refused like the fatal decoder does.
   */
  private shortUtf8(start: number, end: number): string {
    const bytes = this.bytes;
    let out = '';
    let index = start;
    while (index < end) {
      const first = bytes[index++] as number;
      if (first < 0x80) {
        out += String.fromCharCode(first);
        continue;
      }
      let code: number;
      let needed: number;
      let minimum: number;
      if (first >= 0xc2 && first <= 0xdf) {
        code = first & 0x1f;
        needed = 1;
        minimum = 0x80;
      } else if (first >= 0xe0 && first <= 0xef) {
        code = first & 0x0f;
        needed = 2;
        minimum = 0x800;
      } else if (first >= 0xf0 && first <= 0xf4) {
        code = first & 0x07;
        needed = 3;
        minimum = 0x10000;
      } else {
        throw malformed('a string is not valid UTF-8');
      }
      if (index + needed > end) throw malformed('a string is not valid UTF-8');
      for (let count = 0; count < needed; count++) {
        const next = bytes[index++] as number;
        if ((next & 0xc0) !== 0x80) throw malformed('a string is not valid UTF-8');
        code = (code << 6) | (next & 0x3f);
      }
      if (code < minimum || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        throw malformed('a string is not valid UTF-8');
      }
      out += String.fromCodePoint(code);
    }
    return out;
  }

  private utf8(start: number, length: number): string {
    try {
      return utf8.decode(this.bytes.subarray(start, start + length));
    } catch {
      throw malformed('a string is not valid UTF-8');
    }
  }

  value(depth: number, marker = this.markerSkippingNoops()): unknown {
    switch (marker) {
      case M.null:
        return null;
      case M.true:
        return true;
      case M.false:
        return false;
      case M.int8:
      case M.uint8:
      case M.int16:
      case M.int32:
      case M.int64:
        return this.integerOf(marker);
      case M.float32:
        this.need(4);
        this.offset += 4;
        return this.bytes.readFloatBE(this.offset - 4);
      case M.float64:
        this.need(8);
        this.offset += 8;
        return this.bytes.readDoubleBE(this.offset - 8);
      case M.high:
        return this.highPrecision();
      case M.char: {
        const code = this.byte();
        if (code > 0x7f) throw malformed('a char is not ASCII');
        return String.fromCharCode(code);
      }
      case M.string:
        return this.text();
      case M.arrayStart:
        return this.array(depth + 1);
      case M.objectStart:
        return this.object(depth + 1);
      default:
        throw malformed(`unknown marker 0x${marker.toString(16)}`);
    }
  }

  private markerSkippingNoops(): number {
    let marker = this.byte();
    while (marker === M.noop) marker = this.byte();
    return marker;
  }

  private highPrecision(): number {
    const text = this.text();
    if (!NUMBER.test(text)) throw malformed('a high-precision number is not a number');
    const value = Number(text);
    if (!Number.isFinite(value)) throw malformed('a high-precision number is out of range');
    if (Number.isInteger(value) && !Number.isSafeInteger(value) && /^[+-]?\d+$/.test(text)) {
      throw mediaErrors.INTEGER_OUT_OF_RANGE();
    }
    return value;
  }

  /** Reads the optional `$type` / `#count` header of a container. */
  private header(): { type: number | undefined; count: number | undefined } {
    let type: number | undefined;
    let count: number | undefined;
    if (this.bytes[this.offset] === M.type) {
      this.offset++;
      type = this.byte();
      if (type === M.noop || type === M.arrayEnd || type === M.objectEnd)
        throw malformed('invalid container type');
      if (this.bytes[this.offset] !== M.count) throw malformed('a typed container needs a count');
    }
    if (this.bytes[this.offset] === M.count) {
      this.offset++;
      count = this.size();
      // Zero-size elements (Z, T, F) would let a few bytes declare millions of values.
      const zeroSize = type === M.null || type === M.true || type === M.false;
      if (count > this.bytes.length - (zeroSize ? 0 : this.offset)) throw malformed('count beyond the body');
    }
    return { type, count };
  }

  private array(depth: number): unknown[] {
    if (depth > this.maxDepth) throw mediaErrors.BODY_TOO_DEEP();
    const { type, count } = this.header();
    const out: unknown[] = [];
    if (count !== undefined) {
      for (let index = 0; index < count; index++)
        out.push(this.value(depth, type ?? this.markerSkippingNoops()));
      return out;
    }
    for (;;) {
      const marker = this.markerSkippingNoops();
      if (marker === M.arrayEnd) return out;
      out.push(this.value(depth, marker));
    }
  }

  private object(depth: number): Record<string, unknown> {
    if (depth > this.maxDepth) throw mediaErrors.BODY_TOO_DEEP();
    const { type, count } = this.header();
    const out: Record<string, unknown> = {};
    // No closure per object here: the loader's keep-names helper would run on every call.
    for (let index = 0; count === undefined || index < count; index++) {
      if (count === undefined) {
        while (this.bytes[this.offset] === M.noop) this.offset++;
        if (this.bytes[this.offset] === M.objectEnd) {
          this.offset++;
          return out;
        }
      }
      const key = this.text();
      if (key === '__proto__') throw malformed('the key __proto__ is not allowed');
      out[key] = this.value(depth, type ?? this.markerSkippingNoops());
    }
    return out;
  }
}

/** Decodes a UBJSON body; an empty body is `undefined` (nothing sent). */
export function decodeUbjson(bytes: Buffer, maxDepth: number): unknown {
  const reader = new Reader(bytes, maxDepth);
  if (reader.atEnd()) return undefined;
  const value = reader.value(0);
  if (!reader.atEnd()) throw malformed('bytes after the value');
  return value;
}
