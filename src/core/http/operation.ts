import type { ErrorSpec } from '../errors.ts';
import { type RouteSchema, withErrors } from './route-errors.ts';

/** What an operation of any service says of itself besides its request and success responses. */
export interface OperationHeader {
  id: string;
  /** The service's own vendor keywords (`x-…`), written right after the operation id. */
  extensions?: Record<string, unknown>;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** Alternatives, each a set of the document's security schemes. */
  security: ReadonlyArray<Record<string, readonly string[]>>;
  /** Every catalogue entry the operation may answer besides those its input implies (route-errors.ts). */
  errors: readonly ErrorSpec[];
}

/**
 * A route schema with its operation id, vendor keywords, summary, description, tags and security (in
 * that order, the document's) around the schema's own parts, and its error responses derived.
 */
export function operationSchema<S extends RouteSchema>(header: OperationHeader, schema: S): S {
  return withErrors(
    {
      operationId: header.id,
      ...header.extensions,
      summary: header.summary,
      ...(header.description === undefined ? {} : { description: header.description }),
      tags: [...header.tags],
      security: header.security.map((requirement) => ({ ...requirement })),
      ...schema,
    },
    header.errors,
  );
}
