/** One Server-Sent Event: its `event` name (`message` when unnamed) and its data lines joined. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/** The events of a Server-Sent Events body; comments and other fields are skipped. */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = 'message';
  // Node's web streams are async iterable; the DOM typing of fetch's body does not say so.
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let end = buffer.search(/\r?\n/);
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(buffer[end] === '\r' ? end + 2 : end + 1);
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n') };
        data = [];
        event = 'message';
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      } else if (line.startsWith('event:')) {
        event = line.slice(6).trim();
      }
      end = buffer.search(/\r?\n/);
    }
  }
  if (data.length > 0) yield { event, data: data.join('\n') };
}
