import { readServerSentEvents } from '../../core/http/server-sent-events.ts';

/**
 * The `data` of each event of a Server-Sent Events body (multi-line data joined with newlines), as the
 * OpenAI-compatible streaming API sends it.
 */
export async function* readServerSentData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  for await (const { data } of readServerSentEvents(body)) yield data;
}
