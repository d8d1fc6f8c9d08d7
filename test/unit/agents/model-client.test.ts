import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerFor } from '../../../src/agents/assistant/assistant-agent.ts';
import { retryAfterFrom } from '../../../src/agents/chat/model-failures.ts';
import { readServerSentData } from '../../../src/agents/chat/sse-reader.ts';

describe('retry-after from the upstream', () => {
  it('prefers retry-after-ms, rounded up to whole seconds', () => {
    assert.equal(retryAfterFrom(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' })), '2');
    assert.equal(retryAfterFrom(new Headers({ 'retry-after-ms': '20' })), '1');
  });
  it('takes retry-after in seconds or as an HTTP date', () => {
    assert.equal(retryAfterFrom(new Headers({ 'retry-after': '7' })), '7');
    const now = Date.parse('2026-11-22T08:00:00Z');
    assert.equal(retryAfterFrom(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 08:00:30 GMT' }), now), '30');
  });
  it('falls back to one second when the upstream says nothing usable', () => {
    assert.equal(retryAfterFrom(new Headers()), '1');
    assert.equal(retryAfterFrom(new Headers({ 'retry-after': 'soon' })), '1');
  });
});

describe('server-sent data reader', () => {
  it('reads data across chunk boundaries, CRLF, multi-line data and comments', async () => {
    const parts = [
      ': keep-alive\n\ndata: {"a"',
      ':1}\r\n\r\ndata: line1\ndata: line2\n\nevent: x\ndata: [DONE]\n\n',
    ];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    const seen: string[] = [];
    for await (const data of readServerSentData(body)) seen.push(data);
    assert.deepEqual(seen, ['{"a":1}', 'line1\nline2', '[DONE]']);
  });
});

describe('assistant intents', () => {
  const facts = { maxDevicesPerAccount: 4, deviceDeleteCooldownSeconds: 7200 };
  it('answers what it was asked, in the language it was asked in', () => {
    assert.equal(answerFor('Hola, ¿qué echan esta noche?', facts).intent, 'guide');
    assert.match(answerFor('Hola, ¿qué echan esta noche?', facts).output, /GUÍA/);
    assert.equal(answerFor('How do I record a series?', facts).intent, 'recordings');
    assert.equal(answerFor('hello', facts).intent, 'greeting');
    assert.equal(answerFor('gracias', facts).intent, 'thanks');
  });
  it('quotes this deployment’s device limits', () => {
    const { intent, output } = answerFor('I have too many devices', facts);
    assert.equal(intent, 'devices');
    assert.match(output, /up to 4 enabled devices/);
    assert.match(output, /for 2 hours/);
  });
  it('falls back when nothing matches', () => {
    assert.equal(answerFor('qwerty', facts).intent, 'fallback');
  });
});
