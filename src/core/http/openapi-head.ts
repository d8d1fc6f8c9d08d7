type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A response as a HEAD answers it: the same status and headers, no body (Swagger 2 `schema`, OpenAPI 3 `content`). */
function withoutBody(response: unknown): unknown {
  if (!isObject(response)) return response;
  const { schema: _schema, content: _content, examples: _examples, ...headersOnly } = response;
  return headersOnly;
}

/**
 * Fastify answers HEAD wherever it answers GET, with the GET's hooks and handler and the body left out;
 * @fastify/swagger lists such a HEAD (`exposeHeadRoutes`) as a copy of the GET whose id ends in `-head`,
 * or without an id when the GET got its own in a transform. Each is rewritten from its GET here: the same
 * parameters, access and statuses, no bodies, an id of its own. A HEAD route declared on its own (the
 * client API's two contract HEAD operations) is left as declared.
 */
export function documentHeadTwins(document: Json): Json {
  for (const operations of Object.values(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(operations)) continue;
    const { get, head } = operations;
    if (!isObject(get) || !isObject(head) || typeof get.operationId !== 'string') continue;
    if (head.operationId !== undefined && head.operationId !== `${get.operationId}-head`) continue;
    const responses = isObject(get.responses) ? get.responses : {};
    operations.head = {
      ...structuredClone(get),
      operationId: `${get.operationId}Head`,
      summary: `${String(get.summary ?? get.operationId)} (headers only)`,
      description:
        `HEAD: what GET answers, status and headers, without the body. ${String(get.description ?? '')}`.trim(),
      responses: Object.fromEntries(
        Object.entries(responses).map(([status, response]) => [
          status,
          withoutBody(structuredClone(response)),
        ]),
      ),
    };
  }
  return document;
}
