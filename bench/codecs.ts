/**
 * Micro-benchmark of the client API's media types: encode + decode of a 20-device list (the real
 * `DeviceList` response schema) in each format, next to JSON as Fastify does it (fast-json-stringify
 * compiled from the schema, then JSON.parse with our depth check). Encoding includes applying the
 * schema to the data, as the plugin does per response.
 *
 *   node --import tsx bench/codecs.ts [--quick]
 *
 * `runCodecBench()` returns the rows so `npm run bench` can print them with the HTTP figures.
 */
import { decode as referenceUbjsonDecode, encode as referenceUbjsonEncode } from '@shelacek/ubjson';
import fastJson from 'fast-json-stringify';
import { DeviceList } from '../src/client-api/devices/schemas.ts';
import { decodeBson } from '../src/client-api/media/bson-codec.ts';
import { encodeBody } from '../src/client-api/media/encode.ts';
import { decodeJson } from '../src/client-api/media/json-codec.ts';
import type { JsonSchema } from '../src/client-api/media/schema.ts';
import { decodeUbjson } from '../src/client-api/media/ubjson-codec.ts';
import { decodeXml } from '../src/client-api/media/xml-decode.ts';

export interface CodecBenchRow {
  [column: string]: string | number;
  format: string;
  bytes: number;
  'encode µs': number;
  'decode µs': number;
  'total µs': number;
  'round trips/s': number;
  'vs JSON': string;
}

const schema = DeviceList as unknown as JsonSchema;
const noRefs = () => undefined;
const MAX_DEPTH = 32;

function devices(): Record<string, unknown>[] {
  return Array.from({ length: 20 }, (_, index) => ({
    mediaPlayerId: `mp-${String(index).padStart(4, '0')}-living-room`,
    name: `Living room TV ${index} – Señal & más`,
    deviceClass: ['smarttv', 'android', 'ios', 'web'][index % 4],
    enabled: index % 3 !== 0,
    registeredAt: new Date(Date.UTC(2026, 0, 1, 12, 0, index)).toISOString(),
    lastSeenAt: new Date(Date.UTC(2026, 10, 20, 8, 30, index)).toISOString(),
    playing: index % 5 === 0,
  }));
}

interface Codec {
  format: string;
  encode(value: unknown): Buffer | string;
  decode(encoded: Buffer | string): unknown;
}

const asBuffer = (encoded: Buffer | string) => (typeof encoded === 'string' ? Buffer.from(encoded) : encoded);

function codecs(): Codec[] {
  const stringify = fastJson(schema as Parameters<typeof fastJson>[0]);
  return [
    {
      format: 'application/json',
      encode: (value) => stringify(value),
      decode: (encoded) => decodeJson(String(encoded), MAX_DEPTH),
    },
    {
      format: 'application/bson',
      encode: (value) => encodeBody('application/bson', schema, value, noRefs),
      decode: (encoded) => decodeBson(asBuffer(encoded), schema, noRefs, MAX_DEPTH),
    },
    {
      format: 'application/ubjson',
      encode: (value) => encodeBody('application/ubjson', schema, value, noRefs),
      decode: (encoded) => decodeUbjson(asBuffer(encoded), MAX_DEPTH),
    },
    {
      format: 'application/xml',
      encode: (value) => encodeBody('application/xml', schema, value, noRefs),
      decode: (encoded) => decodeXml(String(encoded), schema, noRefs, MAX_DEPTH),
    },
    {
      // For comparison only: the common npm UBJSON package, not used by the service.
      format: 'ubjson (@shelacek, reference)',
      encode: (value) => Buffer.from(referenceUbjsonEncode(value)),
      decode: (encoded) => {
        const bytes = asBuffer(encoded);
        return referenceUbjsonDecode(
          bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
        );
      },
    },
  ];
}

/** CPU time (not wall time) per call: on a shared machine, time spent descheduled is not the codec's. */
function timePerCall(iterations: number, run: () => void): number {
  for (let index = 0; index < Math.min(iterations, 500); index++) run();
  const started = process.cpuUsage();
  for (let index = 0; index < iterations; index++) run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / iterations;
}

const round = (value: number) => Math.round(value * 100) / 100;

export async function runCodecBench(options: { quick?: boolean } = {}): Promise<CodecBenchRow[]> {
  const iterations = options.quick ? 1_000 : 20_000;
  const data = devices();
  const measured = codecs().map((codec) => {
    const encoded = codec.encode(data);
    const decoded = codec.decode(encoded);
    if (JSON.stringify(decoded) !== JSON.stringify(data))
      throw new Error(`${codec.format} does not round-trip`);
    const encodeMicros = timePerCall(iterations, () => codec.encode(data));
    const decodeMicros = timePerCall(iterations, () => codec.decode(encoded));
    return { codec, bytes: asBuffer(encoded).length, encodeMicros, decodeMicros };
  });
  const json = measured[0];
  const jsonTotal = json === undefined ? 0 : json.encodeMicros + json.decodeMicros;
  return measured.map(({ codec, bytes, encodeMicros, decodeMicros }) => {
    const total = encodeMicros + decodeMicros;
    return {
      format: codec.format,
      bytes,
      'encode µs': round(encodeMicros),
      'decode µs': round(decodeMicros),
      'total µs': round(total),
      'round trips/s': Math.round(1_000_000 / total),
      // Throughput relative to JSON: 1.00× is as fast as JSON, 0.50× twice as slow.
      'vs JSON': `${(jsonTotal / total).toFixed(2)}×`,
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runCodecBench({ quick: process.argv.includes('--quick') });
  console.table(rows);
}
