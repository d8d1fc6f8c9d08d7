/** The addresses the embedded channel hands out, under the service's public address. */
export interface ChannelLinks {
  /** The websocket URL of a conversation's stream, with its ticket `t` and the watermark to resume after. */
  stream(conversationId: string, ticket: string, afterSeq: number | undefined): string;
  /** Where the conversation's uploaded files are served: every file link starts so. */
  filesOf(conversationId: string): string;
  /** An uploaded file's link: signed, so a browser's <img src> needs no Authorization header. */
  file(conversationId: string, fileId: string): string;
}

/** `address` is read per call: the service's own address is known only once it listens. */
export function createChannelLinks(
  address: () => string,
  fileSignature: (conversationId: string, fileId: string) => string,
): ChannelLinks {
  const base = () => address().replace(/\/+$/, '');
  const filesOf = (conversationId: string) =>
    `${base()}/v3/directline/conversations/${conversationId}/files/`;
  return {
    stream(conversationId, ticket, afterSeq) {
      const query = new URLSearchParams({ t: ticket });
      if (afterSeq !== undefined) query.set('watermark', String(afterSeq));
      return `${base().replace(/^http/, 'ws')}/v3/directline/conversations/${conversationId}/stream?${query}`;
    },
    filesOf,
    file: (conversationId, fileId) =>
      `${filesOf(conversationId)}${fileId}?t=${fileSignature(conversationId, fileId)}`,
  };
}
