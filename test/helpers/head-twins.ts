/**
 * Whether a documented operation is the HEAD Fastify answers beside a GET (documented from it by
 * core/http/openapi-head.ts, id `<GET id>Head`), not a HEAD operation declared on its own.
 */
export function isHeadTwin(operations: Record<string, unknown>, method: string): boolean {
  const id = (operation: unknown) => (operation as { operationId?: unknown } | undefined)?.operationId;
  const get = id(operations.get);
  return method.toLowerCase() === 'head' && typeof get === 'string' && id(operations.head) === `${get}Head`;
}
