/**
 * Media types of the client API: every operation consumes and produces application/json,
 * application/bson, application/ubjson and application/xml.
 *
 * Register once in the base-path scope, before the routes:
 *   await app.register(mediaTypes, { bodyLimit: core.config.BODY_LIMIT, maxDepth: core.config.BODY_MAX_DEPTH });
 *
 * Contract for route authors:
 * - Handlers return plain objects, arrays, strings or null (or `reply.code(204).send(null)`); never encode
 *   (a bare string sent with `reply.send(id)` is a JSON string in JSON, `<string>` in XML…).
 *   Errors are thrown ProblemErrors; the core error handler's body comes out in the negotiated type too
 *   (an error status missing from the route's response map is still written as the `Error` body).
 *   406 (nothing acceptable in Accept) is always JSON.
 * - Every route declares its response schema per status: it is applied to the data first (same fields,
 *   same coercions as Fastify's JSON serialiser), then encoded. JSON keeps Fastify's fast serialisation.
 * - XML names come from the schema: objects `{ xml: { name: 'DeviceBase' } }`; lists
 *   `{ xml: { name: 'ArrayOfDeviceBase', wrapped: true } }` with `items` named (`DeviceBase`); a bare
 *   string is `<string>`. Unnamed fallbacks: `Object` (objects), `ArrayOf<item>` (lists), `int`, `long`
 *   (format int64), `double`, `boolean`, `anyType`; errors are `<Error>` with a wrapped
 *   `<errors><ErrorItem>…` list. `xml.name` names types (roots, list items); a property's element is
 *   always its key. Array properties follow Swagger: unwrapped unless `wrapped: true`. null is
 *   `xsi:nil="true"`; keys that are not XML names are escaped as XmlConvert.EncodeName does.
 * - BSON: top level always a document: scalars `{ "Value": … }`, arrays keyed "0","1"…, nothing (and
 *   null) an empty body. `format: 'int64'` fields are written as BSON int64; input int64 become numbers.
 * - Request bodies: decoded from any of the four types (Content-Type; anything else 415), depth-limited
 *   (maxDepth → 400 BODY_TOO_DEEP), size-limited (bodyLimit → 413), malformed → 400 MALFORMED_BODY,
 *   XML DTD/entities → 400 XML_DTD_FORBIDDEN, integers beyond 2^53-1 in BSON/UBJSON/XML → 400
 *   INTEGER_OUT_OF_RANGE (for JSON use `Int64Id` of ../common-schemas.ts, whose maximum refuses them).
 *   XML leaf text is typed through the route's body schema. A body sent to an operation that declares
 *   no body schema is ignored (never parsed). A body-taking route lists these errors (`mediaBodyErrors`;
 *   `operation()` of ../openapi.ts does it).
 * - `Vary: Accept` on every response of the scope; `request.negotiatedType` holds the negotiated type.
 * - Unknown paths under the scope's prefix answer 404 ROUTE_NOT_FOUND in the negotiated type; a known
 *   path asked with a method it does not have answers 405 METHOD_NOT_ALLOWED with `Allow`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { httpErrors, ProblemError } from '../../core/errors.ts';
import { sendProblem } from '../../core/http/error-handler.ts';
import { unmatchedRoute } from '../../core/http/route-methods.ts';
import { decodeBson } from './bson-codec.ts';
import { encodeBody, responseSchema } from './encode.ts';
import { decodeJson } from './json-codec.ts';
import { type MediaType, negotiate } from './negotiation.ts';
import type { JsonSchema, SchemaResolver } from './schema.ts';
import { decodeUbjson } from './ubjson-codec.ts';
import { decodeXml } from './xml-decode.ts';

export { mediaTypes as supportedMediaTypes } from './negotiation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The response media type negotiated from Accept (Fastify's own `mediaType` is the request's). */
    negotiatedType: MediaType;
  }
}

export interface MediaTypesOptions {
  bodyLimit: number;
  maxDepth: number;
}

const contentTypes: Record<Exclude<MediaType, 'application/json'>, string> = {
  'application/bson': 'application/bson',
  'application/ubjson': 'application/ubjson',
  'application/xml': 'application/xml; charset=utf-8',
};

type BodyDecoder = (body: Buffer, schema: JsonSchema) => unknown;

function malformedBody(type: string, cause: unknown): Error {
  return httpErrors.MALFORMED_BODY(`The ${type} body could not be read.`, { cause });
}

function bodySchema(request: FastifyRequest): JsonSchema | undefined {
  return request.routeOptions.schema?.body as JsonSchema | undefined;
}

function installParsers(app: FastifyInstance, options: MediaTypesOptions, resolve: SchemaResolver): void {
  const { bodyLimit, maxDepth } = options;
  const decoders: Record<MediaType, BodyDecoder> = {
    'application/json': (body) => decodeJson(body.toString('utf8'), maxDepth),
    'application/bson': (body, schema) => decodeBson(body, schema, resolve, maxDepth),
    'application/ubjson': (body) => decodeUbjson(body, maxDepth),
    'application/xml': (body, schema) => decodeXml(body.toString('utf8'), schema, resolve, maxDepth),
  };
  app.removeAllContentTypeParsers();
  for (const [type, decode] of Object.entries(decoders)) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
      const schema = bodySchema(request);
      if (schema === undefined) return done(null, undefined);
      let value: unknown;
      try {
        value = decode(body as Buffer, schema);
      } catch (error) {
        if (error instanceof ProblemError) return done(error, undefined);
        // Anything else thrown on these bytes is the body's fault, not a 500; logged, as a decoder gap.
        request.log.warn({ err: error }, `the ${type} decoder threw on a body`);
        return done(malformedBody(type, error), undefined);
      }
      done(null, value);
    });
  }
  // Any other type (or none, with a body): refused where a body is expected, ignored where it is not.
  app.addContentTypeParser('*', (request, _payload, done) => {
    if (bodySchema(request) === undefined) return done(null, undefined);
    const given = request.headers['content-type'];
    done(
      httpErrors.UNSUPPORTED_MEDIA_TYPE(
        `${given === undefined ? 'A body without Content-Type' : `The Content-Type ${given}`} is not supported; use application/json, application/bson, application/ubjson or application/xml.`,
      ),
      undefined,
    );
  });
}

function negotiateReply(
  request: FastifyRequest,
  reply: FastifyReply,
  resolve: SchemaResolver,
): Error | undefined {
  reply.header('vary', 'Accept');
  const type = negotiate(request.headers.accept);
  if (type === undefined) {
    return httpErrors.NOT_ACCEPTABLE(
      'None of the media types in Accept can be produced: application/json, application/bson, application/ubjson, application/xml.',
    );
  }
  request.negotiatedType = type;
  if (type !== 'application/json') {
    reply.type(contentTypes[type]);
    const serialize = (payload: unknown): Buffer | string => {
      if (reply.statusCode === 204 || reply.statusCode === 304) return '';
      // The error handler clears Content-Type before it sends; the encoder puts it back.
      reply.type(contentTypes[type]);
      const schema = responseSchema(request.routeOptions.schema?.response, reply.statusCode);
      return encodeBody(type, schema, payload, resolve);
    };
    // Fastify types the serializer as returning a string; a Buffer payload is sent as is all the same.
    reply.serializer(serialize as (payload: unknown) => string);
  }
  return undefined;
}

async function mediaTypesPlugin(app: FastifyInstance, options: MediaTypesOptions): Promise<void> {
  const resolve: SchemaResolver = (id) => app.getSchema(id) as JsonSchema | undefined;
  app.decorateRequest('negotiatedType', 'application/json');
  installParsers(app, options, resolve);

  app.addHook('onRequest', (request, reply, done) => {
    const refused = negotiateReply(request, reply, resolve);
    if (refused === undefined) done();
    else done(refused);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    // A bare string from a handler leaves Fastify as text/plain; in JSON it is a JSON string.
    if (request.negotiatedType === 'application/json' && typeof payload === 'string') {
      const type = reply.getHeader('content-type');
      if (typeof type === 'string' && type.startsWith('text/plain')) {
        reply.type('application/json; charset=utf-8');
        return done(null, JSON.stringify(payload));
      }
    }
    const empty =
      payload === undefined ||
      payload === null ||
      payload === '' ||
      (Buffer.isBuffer(payload) && payload.length === 0);
    if (empty) reply.removeHeader('content-type');
    done(null, payload);
  });

  if (app.prefix !== '') {
    // Answered here so the body comes out in the negotiated type: 405 on a known path, else 404.
    app.setNotFoundHandler((request, reply) => sendProblem(reply, unmatchedRoute(request)));
  }
}

export const mediaTypes = fp(mediaTypesPlugin, { name: 'client-api-media-types', fastify: '5.x' });
