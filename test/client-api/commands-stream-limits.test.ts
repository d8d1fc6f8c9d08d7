import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestFamily } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { sample } from '../helpers/metrics-text.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';

/** COMMAND_STREAMS bounds the command streams one process holds; a device's own second stream still replaces its first. */
describe('client-api: command streams per process (COMMAND_STREAMS)', () => {
  let close: () => Promise<void>;
  let base: string;
  let metricsUrl: string;
  let operatorKey: string;
  let tokens: Record<string, string>;
  const open: SseStream[] = [];

  before(async () => {
    const started = await startTestFamily(['client-api'], { SINTONIA_DEMO: '0', COMMAND_STREAMS: '2' });
    close = started.close;
    base = `${started.family.url('client-api')}/api/v1`;
    metricsUrl = `${started.family.url('client-api')}/metrics`;
    operatorKey = (await started.core.apiKeys.create('backoffice', 'stream limits')).key;
    tokens = await signedInHousehold(started.core, base, {
      accountNumber: 'csl-1',
      email: 'csl-1@example.test',
      devices: [
        ['tv-1', 'One'],
        ['tv-2', 'Two'],
        ['tv-3', 'Three'],
      ],
    });
  });
  after(async () => {
    for (const stream of open) stream.close();
    await close();
  });

  const stream = async (device: string) => {
    const opened = await openSse(`${base}/smarttv/${device}/commands`, {
      authorization: `Bearer ${tokens[device]}`,
    });
    open.push(opened);
    return opened;
  };

  describe('errors', () => {
    it('one stream more than COMMAND_STREAMS is 503 COMMAND_STREAMS_FULL with Retry-After, counted in /metrics', async () => {
      for (const device of ['tv-1', 'tv-2']) {
        const held = await stream(device);
        assert.equal(held.status, 200, held.body);
        await held.comment('connected');
      }
      const refused = await stream('tv-3');
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.equal(JSON.parse(refused.body).errors[0].type, 'COMMAND_STREAMS_FULL');
      const metrics = await fetch(metricsUrl, { headers: { 'x-api-key': operatorKey } });
      const text = await metrics.text();
      assert.equal(sample(text, 'sintonia_limit_refusals_total', { limit: 'command_streams' }), 1);
      assert.equal(sample(text, 'sintonia_command_streams_open'), 2);
    });
  });

  describe('happy', () => {
    it("a held device's second stream replaces its first even when the process is full", async () => {
      const again = await stream('tv-1');
      assert.equal(again.status, 200, again.body);
      await again.comment('connected');
      const sent = await fetch(`${base}/accounts/csl-1/devices/tv-1/commands`, {
        method: 'POST',
        headers: { 'x-api-key': operatorKey, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ type: 'stop' }),
      });
      assert.equal(sent.status, 202);
      assert.equal(JSON.parse((await again.next()).data).type, 'stop');
    });
  });
});
