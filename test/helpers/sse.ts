/**
 * A Server-Sent Events reader over real HTTP, parsing text/event-stream as the HTML standard's EventSource
 * does (fields `id`, `event`, `data`, `retry`; `:` comments; a blank line dispatches), since Node has no
 * EventSource. Used by the command stream tests; the TV page uses the browser's own.
 */
export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The response body when it is not a stream (an error), else ''. */
  body: string;
  events: SseEvent[];
  comments: string[];
  /** The next event not taken yet (waiting for it up to `ceilingMs`, a ceiling for a loaded machine). */
  next(ceilingMs?: number): Promise<SseEvent>;
  /** Resolves once a comment equal to `text` has arrived. */
  comment(text: string, ceilingMs?: number): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let waiters: Array<() => void> = [];
  const wake = () => {
    const current = waiters;
    waiters = [];
    for (const waiter of current) waiter();
  };
  const streaming =
    response.status === 200 && /^text\/event-stream/.test(response.headers.get('content-type') ?? '');
  let endedResolve: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    endedResolve = resolve;
  });
  let body = '';
  if (!streaming) {
    body = await response.text();
    endedResolve();
  } else {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      let lastId = '';
      let event = { type: '', data: [] as string[] };
      const line = (text: string) => {
        if (text === '') {
          if (event.data.length > 0) {
            events.push({ id: lastId, event: event.type || 'message', data: event.data.join('\n') });
          }
          event = { type: '', data: [] };
          return;
        }
        if (text.startsWith(':')) {
          comments.push(text.slice(1).trim());
          return;
        }
        const colon = text.indexOf(':');
        const field = colon === -1 ? text : text.slice(0, colon);
        let value = colon === -1 ? '' : text.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event.type = value;
        else if (field === 'data') event.data.push(value);
        else if (field === 'id' && !value.includes('\0')) lastId = value;
      };
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          const lines = buffer.split(/\r\n|\r|\n/);
          buffer = lines.pop() ?? '';
          for (const text of lines) line(text);
          wake();
        }
      } catch {
        // aborted by close()
      }
      endedResolve();
      wake();
    })();
  }
  let taken = 0;
  let done = false;
  void ended.then(() => {
    done = true;
  });
  const until = async (ready: () => boolean, what: string, ceilingMs: number) => {
    const deadline = Date.now() + ceilingMs;
    while (!ready()) {
      if (done) throw new Error(`the stream ended before ${what}`);
      if (Date.now() > deadline) throw new Error(`no ${what} within ${ceilingMs} ms`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return {
    status: response.status,
    headers: response.headers,
    body,
    events,
    comments,
    async next(ceilingMs = 20_000) {
      await until(() => events.length > taken, 'event', ceilingMs);
      const event = events[taken];
      taken += 1;
      if (!event) throw new Error('no event');
      return event;
    },
    async comment(text, ceilingMs = 20_000) {
      await until(() => comments.includes(text), `comment ${text}`, ceilingMs);
    },
    ended,
    close: () => controller.abort(),
  };
}
