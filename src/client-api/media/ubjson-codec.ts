/**
 * UBJSON, draft 12 (ubjson.org). Encoding writes the plain form (markers on every value, no `$`/`#`):
 * integers in the smallest of i/U/I/l/L, other numbers as D (float64, exact), strings as S.
 * Decoding reads everything the draft defines, optimised containers (`#` count, `$` type + `#` count)
 * and N no-ops included; int64 (L) and high-precision (H) integers beyond 2^53-1 are refused, never rounded.
 */

export { decodeUbjson } from './ubjson-decode.ts';
export { encodeUbjson } from './ubjson-encode.ts';
