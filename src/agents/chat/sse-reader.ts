/**
 * The `data` of each event of a Server-Sent Events body (multi-line data joined with newlines), as the
 * OpenAI-compatible streaming API sends it; comments and other fields are skipped.
 */
export async function* readServerSentData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  // Node's web streams are async iterable; the DOM typing of fetch's body does not say so.
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let end = buffer.search(/\r?\n/);
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(buffer[end] === '\r' ? end + 2 : end + 1);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
      end = buffer.search(/\r?\n/);
    }
  }
  if (data.length > 0) yield data.join('\n');
}
