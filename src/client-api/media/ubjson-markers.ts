/** UBJSON draft 12 markers (ubjson.org), shared by the encoder and the decoder. */
export const M = {
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

export const TWO_32 = 4294967296;
