import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { serveAgents } from '../helpers/processes.ts';

/** One export as a collector reads it, whichever encoding it came in. */
interface Received {
  contentType: string;
  resource: Record<string, string>;
  spans: Array<{ traceId: string; name: string }>;
}

/** A protobuf message's fields: number → values (length-delimited ones as bytes, varints as numbers). */
function protoFields(message: Buffer): Map<number, Array<Buffer | number>> {
  const fields = new Map<number, Array<Buffer | number>>();
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = message[at++] ?? 0;
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const tag = varint();
    const number = Math.floor(tag / 8);
    const wire = tag % 8;
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = varint();
      value = message.subarray(at, at + length);
      at += length;
    } else if (wire === 1 || wire === 5) {
      value = 0;
      at += wire === 1 ? 8 : 4;
    } else throw new Error(`protobuf wire type ${wire}`);
    fields.set(number, [...(fields.get(number) ?? []), value]);
  }
  return fields;
}
const messages = (fields: Map<number, Array<Buffer | number>>, number: number) =>
  (fields.get(number) ?? []).filter((value): value is Buffer => Buffer.isBuffer(value));
const text = (fields: Map<number, Array<Buffer | number>>, number: number) =>
  messages(fields, number)[0]?.toString('utf8') ?? '';

/** opentelemetry-proto's ExportTraceServiceRequest, as far as this test reads it. */
function fromProtobuf(body: Buffer): Omit<Received, 'contentType'>[] {
  return messages(protoFields(body), 1).map((resourceSpans) => {
    const fields = protoFields(resourceSpans);
    const resource: Record<string, string> = {};
    for (const resourceMessage of messages(fields, 1))
      for (const keyValue of messages(protoFields(resourceMessage), 1)) {
        const pair = protoFields(keyValue);
        resource[text(pair, 1)] = text(protoFields(messages(pair, 2)[0] ?? Buffer.alloc(0)), 1);
      }
    const spans = messages(fields, 2).flatMap((scopeSpans) =>
      messages(protoFields(scopeSpans), 2).map((span) => {
        const spanFields = protoFields(span);
        return { traceId: messages(spanFields, 1)[0]?.toString('hex') ?? '', name: text(spanFields, 5) };
      }),
    );
    return { resource, spans };
  });
}

type JsonAttribute = { key: string; value: { stringValue?: string } };
/** The OTLP/HTTP JSON encoding of the same request (ids in hex). */
function fromJson(body: Buffer): Omit<Received, 'contentType'>[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: Array<{
      resource: { attributes: JsonAttribute[] };
      scopeSpans: Array<{ spans: Array<{ traceId: string; name: string }> }>;
    }>;
  };
  return request.resourceSpans.map((resourceSpans) => ({
    resource: Object.fromEntries(
      resourceSpans.resource.attributes.map((attribute) => [
        attribute.key,
        attribute.value.stringValue ?? '',
      ]),
    ),
    spans: resourceSpans.scopeSpans.flatMap((scoped) =>
      scoped.spans.map(({ traceId, name }) => ({ traceId, name })),
    ),
  }));
}

/** A collector's OTLP/HTTP traces endpoint taking both encodings, as its content type says. */
function otlpReceiver() {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = String(request.headers['content-type'] ?? '');
      const body = Buffer.concat(chunks);
      if (request.url === '/v1/traces') {
        const json = contentType.startsWith('application/json');
        for (const part of json ? fromJson(body) : fromProtobuf(body))
          received.push({ contentType, ...part });
        if (json) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else response.writeHead(404).end();
    });
  });
  return { received, server };
}

/**
 * The OpenTelemetry specification's variables, as an operator sets them for `serve`: the protocol for every
 * signal and the traces-specific one above it, OTEL_SERVICE_NAME above OTEL_RESOURCE_ATTRIBUTES above the
 * family's default name, and the sampler. Each case is one agents process exporting to a receiver that reads
 * OTLP/HTTP in JSON and in protobuf.
 */
describe('tracing honours the OpenTelemetry environment variables', { timeout: 240_000 }, () => {
  let core: TestCore;
  let receiver: ReturnType<typeof otlpReceiver>;
  let collector: string;
  before(async () => {
    core = await createTestCore();
    receiver = otlpReceiver();
    await new Promise<void>((resolve) => (receiver.server as Server).listen(0, '127.0.0.1', resolve));
    const address = receiver.server.address();
    collector = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    receiver.server.close();
    await core.dispose();
  });

  /** Serves the agents with `env`, sends `requests` (headers of each GET), and answers what reached the receiver for them. */
  async function traced(env: Record<string, string>, requests: Array<Record<string, string>>) {
    const served = await serveAgents(core.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env,
    });
    const mark = receiver.received.length;
    try {
      for (const headers of requests) await (await fetch(`${served.url}/agents`, { headers })).arrayBuffer();
    } finally {
      // The SDK's shutdown sends what it still holds.
      served.child.kill('SIGTERM');
      assert.equal(await served.exited, 0, served.output());
    }
    return receiver.received.slice(mark);
  }

  it('OTEL_EXPORTER_OTLP_PROTOCOL=http/json: JSON; OTEL_SERVICE_NAME above OTEL_RESOURCE_ATTRIBUTES', async () => {
    const got = await traced(
      {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'tv-agents',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=not-this,deployment.environment=staging',
      },
      [{}],
    );
    assert.ok(got.length > 0, 'spans exported');
    for (const part of got) {
      assert.match(part.contentType, /^application\/json/);
      assert.equal(part.resource['service.name'], 'tv-agents');
      assert.equal(part.resource['deployment.environment'], 'staging');
    }
    assert.ok(got.some((part) => part.spans.length > 0));
  });

  it('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL above it: protobuf; service.name from OTEL_RESOURCE_ATTRIBUTES', async () => {
    const got = await traced(
      {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=tv-assistant,deployment.environment=staging',
      },
      [{}],
    );
    assert.ok(
      got.some((part) => part.spans.length > 0),
      'spans exported',
    );
    for (const part of got) {
      assert.equal(part.contentType, 'application/x-protobuf');
      assert.equal(part.resource['service.name'], 'tv-assistant');
      assert.equal(part.resource['deployment.environment'], 'staging');
    }
  });

  it('no variable naming it: protobuf, service.name sintonia-<service>; the sampler as OTEL_TRACES_SAMPLER says', async () => {
    const traceId = randomBytes(16).toString('hex');
    const got = await traced(
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
      // A request of its own (ratio 0: not sampled), then one in a caller's sampled trace (parent-based: sampled).
      [{}, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` }],
    );
    const spans = got.flatMap((part) => part.spans);
    assert.ok(spans.length > 0, 'the sampled request exported');
    assert.deepEqual([...new Set(spans.map((span) => span.traceId))], [traceId]);
    for (const part of got) {
      assert.equal(part.contentType, 'application/x-protobuf');
      assert.equal(part.resource['service.name'], 'sintonia-agents');
    }
  });
});
