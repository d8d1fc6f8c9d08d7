/**
 * The codecs alone (docs/benchmarks.md): encode + decode of a 20-device list in each media type, CPU time
 * (time descheduled on a shared machine is not the codec's). `node --import tsx bench/codecs.ts` runs it.
 */
import { decode as referenceDecode, encode as referenceEncode } from '@shelacek/ubjson';
import fastJson from 'fast-json-stringify';
import { DeviceList } from '../src/client-api/devices/schemas.ts';
import { decodeBson } from '../src/client-api/media/bson-codec.ts';
import { encodeBody } from '../src/client-api/media/encode.ts';
import { decodeJson } from '../src/client-api/media/json-codec.ts';
import type { JsonSchema } from '../src/client-api/media/schema.ts';
import { decodeUbjson } from '../src/client-api/media/ubjson-codec.ts';
import { decodeXml } from '../src/client-api/media/xml-decode.ts';

const schema = DeviceList as unknown as JsonSchema;
const noRefs = () => undefined;
const DEPTH = 32;
const bytes = (encoded: Buffer | string) => (typeof encoded === 'string' ? Buffer.from(encoded) : encoded);

const devices = Array.from({ length: 20 }, (_, index) => ({
  mediaPlayerId: `mp-${String(index).padStart(4, '0')}-living-room`,
  name: `Living room TV ${index} – Señal & más`,
  deviceClass: ['smarttv', 'android', 'ios', 'web'][index % 4],
  enabled: index % 3 !== 0,
  registeredAt: new Date(Date.UTC(2026, 0, 1, 12, 0, index)).toISOString(),
  lastSeenAt: new Date(Date.UTC(2026, 10, 20, 8, 30, index)).toISOString(),
  playing: index % 5 === 0,
}));

type Codec = [string, (value: unknown) => Buffer | string, (encoded: Buffer | string) => unknown];
/** One of the service's own codecs: its encoder of the media type, and `decode`. */
const ours = (type: Parameters<typeof encodeBody>[0], decode: Codec[2]): Codec => [
  type,
  (value) => encodeBody(type, schema, value, noRefs),
  decode,
];
const stringify = fastJson(schema as Parameters<typeof fastJson>[0]);
const codecs: Codec[] = [
  ['application/json', (value) => stringify(value), (encoded) => decodeJson(String(encoded), DEPTH)],
  ours('application/bson', (encoded) => decodeBson(bytes(encoded), schema, noRefs, DEPTH)),
  ours('application/ubjson', (encoded) => decodeUbjson(bytes(encoded), DEPTH)),
  ours('application/xml', (encoded) => decodeXml(String(encoded), schema, noRefs, DEPTH)),
  [
    'ubjson (@shelacek, reference)',
    (value) => Buffer.from(referenceEncode(value)),
    // It takes an ArrayBuffer of its own: the copy is part of using it.
    (encoded) => referenceDecode(Uint8Array.from(bytes(encoded)).buffer),
  ],
];

/** CPU µs per call, after a warm-up. */
function timePerCall(iterations: number, run: () => void): number {
  for (let index = 0; index < Math.min(iterations, 500); index++) run();
  const started = process.cpuUsage();
  for (let index = 0; index < iterations; index++) run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / iterations;
}

export async function runCodecBench({ quick = false } = {}): Promise<Array<Record<string, string | number>>> {
  const iterations = quick ? 1_000 : 20_000;
  const measured = codecs.map(([format, encodeOne, decodeOne]) => {
    const encoded = encodeOne(devices);
    if (JSON.stringify(decodeOne(encoded)) !== JSON.stringify(devices))
      throw new Error(`${format} does not round-trip`);
    const total =
      timePerCall(iterations, () => encodeOne(devices)) + timePerCall(iterations, () => decodeOne(encoded));
    return { format, bytes: bytes(encoded).length, total };
  });
  const json = measured[0]?.total ?? Number.NaN;
  return measured.map(({ format, bytes, total }) => ({
    format,
    bytes,
    'encode + decode µs': Math.round(total * 100) / 100,
    // Throughput over JSON's: 1.00× is as fast as JSON, 0.50× twice as slow.
    'vs JSON': `${(json / total).toFixed(2)}×`,
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await runCodecBench());
