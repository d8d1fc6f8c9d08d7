import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyRequest } from 'fastify';
import type { App } from './app.ts';

/** Where every service with an API document serves its reference page (at the root, not under a base path). */
export const DOCS_PATH = '/docs';

/**
 * The page may load only its own assets and call only its own service: no CDN, no web font, no
 * validator badge, and try-it cannot be pointed at another host. Swagger UI sets inline styles, hence
 * 'unsafe-inline' for styles only; its icons are data: URIs.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

type Document = Record<string, unknown>;

/** Only the path of a server URL: try-it then calls the origin the reader opened the page on. */
function serverPath(url: unknown): string {
  if (typeof url !== 'string') return '/';
  try {
    return new URL(url, 'http://placeholder').pathname;
  } catch {
    return '/';
  }
}

/**
 * The page's copy of the document is the served one minus its absolute address, so try-it works from
 * whatever address the reader used (127.0.0.1, a host name, a proxy) and always hits this service.
 */
export function documentForPage(document: Readonly<Document>): Document {
  const copy: Document = { ...document };
  if (typeof copy.swagger === 'string') {
    delete copy.host;
    delete copy.schemes;
    return copy;
  }
  const servers = Array.isArray(copy.servers) ? (copy.servers as { url?: unknown }[]) : [];
  const paths = [...new Set(servers.map((server) => serverPath(server.url)))];
  copy.servers = (paths.length > 0 ? paths : ['/']).map((url) => ({ url }));
  return copy;
}

/**
 * Serves Swagger UI's packaged assets (from node_modules, nothing from the internet) at `/docs`, rendering
 * the service's own document with try-it-out on and authorisations (bearer token, X-API-Key) kept across
 * reloads. Needs @fastify/swagger registered first (see registerOpenApi).
 */
export async function registerDocs(app: App, serviceName: string): Promise<void> {
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: DOCS_CSP,
    // No badge that would send the document to validator.swagger.io.
    validatorUrl: false,
    theme: { title: `${serviceName} — Sintonia API reference` },
    uiConfig: {
      // BaseLayout: no top bar with its "explore any URL" box.
      layout: 'BaseLayout',
      // Off: Swagger UI logs a console error for every deep link holding `_`, as all of the client API's operation ids do.
      deepLinking: false,
      displayOperationId: true,
      displayRequestDuration: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      filter: true,
      persistAuthorization: true,
      tryItOutEnabled: true,
      showExtensions: true,
      showCommonExtensions: true,
    },
    transformSpecification: (document: Readonly<Document>, _request: FastifyRequest) =>
      documentForPage(document),
  });
}
