import { type ErrorSpec, httpErrors } from '../core/errors.ts';
import { operationSchema } from '../core/http/operation.ts';
import type { RouteSchema } from '../core/http/route-errors.ts';

/** What an assistant-auth operation says of itself besides its request and success responses. */
export interface Operation {
  id: string;
  summary: string;
  /** What the caller should know beyond the summary; the access line follows it. */
  description?: string;
  tag: string;
  /** Who may call it: the document's security, the refusals of its credentials and a line saying so. */
  access: {
    security: Array<Record<string, string[]>>;
    errors: readonly ErrorSpec[];
    description: string;
  };
  /** The catalogue entries the operation's own rules raise, e.g. `[userErrors.USER_NOT_FOUND]`. */
  errors?: readonly ErrorSpec[];
}

/**
 * An assistant-auth route schema: operation id, summary, description, tag and security around the
 * schema's own parts. Its error responses derive from the entries it raises, the refusals of its
 * credentials, its input and the unexpected fault every operation may answer.
 */
export function operation<S extends RouteSchema>(options: Operation, schema: S): S {
  const { access } = options;
  return operationSchema(
    {
      id: options.id,
      summary: options.summary,
      description: options.description ? `${options.description} ${access.description}` : access.description,
      tags: [options.tag],
      security: access.security,
      errors: [...access.errors, ...(options.errors ?? []), httpErrors.INTERNAL_ERROR],
    },
    schema,
  );
}
