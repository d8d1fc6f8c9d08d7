import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Logger, pino } from 'pino';
import { createLogger } from '../../src/core/core.ts';
import { ACCESS_MESSAGE, type AccessFields, accessLineWriter } from '../../src/core/http/request-logger.ts';

/** A logger as a service's (the family's createLogger, a `service` binding) writing its lines as strings. */
function serviceLogger(options: { mixin?: () => Record<string, string> } = {}) {
  const lines: string[] = [];
  const stream = { write: (line: string) => lines.push(line) };
  const base = options.mixin
    ? pino({ level: 'info', mixin: options.mixin }, stream)
    : createLogger({ LOG_LEVEL: 'info' }, stream as never);
  const logger = base.child({ service: 'client-api' }).child({}, { redact: [] as string[] }) as Logger;
  return { logger, lines };
}

const withoutTime = (line: string) => {
  const parsed = JSON.parse(line) as Record<string, unknown>;
  assert.equal(typeof parsed.time, 'number');
  delete parsed.time;
  return parsed;
};

const fields = fc.record({
  requestId: fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
  method: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
  // Any text at all: quotes, backslashes, control characters, lone surrogates, other scripts.
  url: fc.string({ unit: 'binary', maxLength: 80 }),
  statusCode: fc.integer({ min: 100, max: 599 }),
  responseTime: fc.double({ min: 0, max: 60_000, noNaN: true }),
}) satisfies fc.Arbitrary<AccessFields>;

describe('the access line', () => {
  it('is the line pino writes for the same fields, one JSON line, for any URL', () => {
    const fast = serviceLogger();
    const slow = serviceLogger();
    const write = accessLineWriter(fast.logger);
    fc.assert(
      fc.property(fields, (input) => {
        fast.lines.length = 0;
        slow.lines.length = 0;
        write(input);
        slow.logger.info(input, ACCESS_MESSAGE);
        assert.equal(fast.lines.length, 1);
        const [line = ''] = fast.lines;
        assert.ok(line.endsWith('}\n') && !line.slice(0, -1).includes('\n'), line);
        assert.deepEqual(withoutTime(line), withoutTime(slow.lines[0] ?? ''));
        assert.equal(withoutTime(line).msg, ACCESS_MESSAGE);
      }),
      { numRuns: 500 },
    );
  });

  /** One access line for `requestId` through a logger's writer, parsed. */
  const writeOne = ({ logger, lines }: ReturnType<typeof serviceLogger>, requestId: string) => {
    accessLineWriter(logger)({ requestId, method: 'GET', url: '/a?b=…', statusCode: 200, responseTime: 1.5 });
    return JSON.parse(lines[0] ?? '') as Record<string, unknown>;
  };

  it('holds the logger’s bindings and the time of writing', () => {
    const before = Date.now();
    const line = writeOne(serviceLogger(), 'r-1');
    assert.equal(line.service, 'client-api');
    assert.equal(line.pid, process.pid);
    assert.equal(line.level, 30);
    assert.ok((line.time as number) >= before && (line.time as number) <= Date.now());
  });

  it('goes through pino while a mixin adds fields to every line (tracing on)', () => {
    const line = writeOne(serviceLogger({ mixin: () => ({ trace_id: 'abc' }) }), 'r-2');
    assert.equal(line.trace_id, 'abc');
    assert.equal(line.requestId, 'r-2');
  });
});
