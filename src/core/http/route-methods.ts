import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpErrors, type ProblemError } from '../errors.ts';

/** A route path as Fastify writes it (`/accounts/:accountNumber/devices`, `/v3/directline/*`) as a matcher. */
function pathMatcher(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * The methods registered for each path, recorded as routes are added: what a path answers when it is
 * asked with another method (405 and `Allow`, not 404).
 */
export class RouteMethods {
  readonly #paths = new Map<string, { matcher: RegExp; methods: Set<string> }>();

  add(url: string, method: string | string[]): void {
    let entry = this.#paths.get(url);
    if (entry === undefined) {
      entry = { matcher: pathMatcher(url), methods: new Set() };
      this.#paths.set(url, entry);
    }
    for (const one of Array.isArray(method) ? method : [method]) {
      entry.methods.add(one.toUpperCase());
      // Fastify answers HEAD wherever it answers GET.
      if (one.toUpperCase() === 'GET') entry.methods.add('HEAD');
    }
  }

  /** The methods a concrete path answers, in a stable order; empty when no route has the path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const { matcher, methods: registered } of this.#paths.values()) {
      if (matcher.test(path)) for (const method of registered) methods.add(method);
    }
    return [...methods].sort();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route's path and methods, shared by the whole app (see RouteMethods). */
    routeMethods: RouteMethods;
  }
}

/** Records every route added to the app from now on (call on the root instance, before any route). */
export function recordRouteMethods(app: FastifyInstance): void {
  const routes = new RouteMethods();
  app.decorate('routeMethods', routes);
  app.addHook('onRoute', (route) => routes.add(route.url, route.method));
}

/** Why no route answered: the path exists with other methods (405 with `Allow`) or does not (404). */
export function unmatchedRoute(request: FastifyRequest): ProblemError {
  const path = request.url.split('?')[0] ?? request.url;
  const allowed = request.server.routeMethods?.allowed(path) ?? [];
  if (allowed.length > 0) {
    const allow = allowed.join(', ');
    return httpErrors.METHOD_NOT_ALLOWED(`${request.method} is not allowed on ${path}; allowed: ${allow}.`, {
      headers: { allow },
    });
  }
  return httpErrors.ROUTE_NOT_FOUND(`No operation at ${request.method} ${path}.`);
}
