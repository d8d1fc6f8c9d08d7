import { httpErrors } from '../../core/errors.ts';
import { mediaErrors } from './errors.ts';
import { M, TWO_32 } from './ubjson-markers.ts';

/** UBJSON reader: everything draft 12 defines, optimised containers and no-ops included (ubjson-codec.ts). */

const utf8 = new TextDecoder('utf-8', { fatal: true });
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function malformed(detail: string): Error {
  return httpErrors.MALFORMED_BODY(`The UBJSON body could not be read: ${detail}.`);
}

class Reader {
  private offset = 0;
  /**
   * Values a body may declare without bytes (`$Z`, `$T`, `$F` containers), all containers together: a
   * budget per container alone let nested ones multiply it (12 KB declaring 24 million nulls).
   */
  private freeValues: number;
  constructor(
    private readonly bytes: Buffer,
    private readonly maxDepth: number,
  ) {
    this.freeValues = bytes.length;
  }

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
      if (zeroSize) this.freeValues -= count;
      if (count > this.bytes.length - this.offset && !zeroSize) throw malformed('count beyond the body');
      if (this.freeValues < 0) throw malformed('more values than the body has bytes');
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
