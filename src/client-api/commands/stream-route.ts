import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpErrors } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import { authenticationErrors } from '../auth/errors.ts';
import type { Guard, SyncGuard } from '../auth/guards.ts';
import type { ClientApi } from '../composition.ts';
import { commandErrors } from './errors.ts';
import { DeviceStreamParams, StreamQuery } from './schemas.ts';

const hasTicket = (request: FastifyRequest) =>
  (request.query as { t?: unknown } | undefined)?.t !== undefined;

/** A guard skipped for a request with a stream ticket, which the handler checks instead. */
const unlessTicket =
  (guard: Guard | SyncGuard): SyncGuard =>
  (request, reply, done) => {
    if (hasTicket(request)) return done();
    if (guard.length >= 3) return (guard as SyncGuard)(request, reply, done);
    (guard as Guard)(request, reply).then(() => done(), done);
  };

/** What EventSource sends: `Accept: text/event-stream`. A client asking for anything else is not a stream's. */
const acceptsEventStream = (accept: string | undefined) =>
  accept !== undefined && /(^|,)\s*text\/(event-stream|\*)|(^|,)\s*\*\/\*/i.test(accept);

const streamDescription =
  'Server-Sent Events as a browser EventSource reads them: each command as `id: <id>`, `event: command`, `data: <JSON on one line>` (id, type, contentId, offset, sentAt, expiresAt); a `: keep-alive` comment every COMMAND_STREAM_KEEPALIVE seconds.';

/**
 * A signed-in device's command stream, under the base path in a scope of its own: it answers
 * text/event-stream, not the client API's media types, and lives until the device or the process goes.
 */
export async function commandStreamRoutes(
  app: App,
  { access, commands, commandStreams }: Pick<ClientApi, 'access' | 'commands' | 'commandStreams'>,
): Promise<void> {
  const { hub, tickets, gate } = commandStreams;
  const declared = access.route(
    {
      id: 'Commands_GetCommandStreamAsync',
      summary: "The device's command stream (Server-Sent Events): what it is told to do, as it is sent.",
      description: `${streamDescription} Sent on connect: with \`Last-Event-ID\` (or \`lastEventId\` with a ticket URL), the commands after it not expired nor acknowledged; then every command not sent yet. Needs \`Accept: text/event-stream\` (406 otherwise). Authorized by the device's own token as a bearer, or by a ticket \`t\` (POST …/commands/ticket; 401 COMMAND_STREAM_TICKET_INVALID). One stream per device per process: a second one ends the first. 503 COMMAND_STREAMS_FULL with Retry-After beyond COMMAND_STREAMS in the process.`,
      tag: 'commands',
      security: 'person',
      errors: [
        authenticationErrors.DEVICE_MISMATCH,
        commandErrors.COMMAND_STREAM_TICKET_INVALID,
        commandErrors.COMMAND_STREAMS_FULL,
      ],
    },
    {
      params: DeviceStreamParams,
      querystring: StreamQuery,
      response: { 200: { type: 'string', description: streamDescription } },
    },
  );

  // Swagger 2's per-operation media type: the stream is text/event-stream, not the document's four.
  Object.assign(declared.schema, { produces: ['text/event-stream'] });
  app.get(
    '/:deviceClass/:deviceId/commands',
    {
      exposeHeadRoute: false,
      onRequest: declared.onRequest.map(unlessTicket),
      schema: declared.schema,
    },
    async (request, reply: FastifyReply) => {
      const { params, query } = request;
      let holder: { accountNumber: string; deviceId: string; sessionId: string };
      if (query.t !== undefined) {
        holder = await tickets.verify(query.t, params);
        await gate.check(holder);
      } else {
        holder = commands.ownDevice(request.principal, params);
      }
      const device = { accountNumber: holder.accountNumber, deviceId: holder.deviceId };
      if (!acceptsEventStream(request.headers.accept)) {
        throw httpErrors.NOT_ACCEPTABLE(
          'A command stream is text/event-stream: send Accept: text/event-stream.',
        );
      }
      hub.checkRoom(device);
      const header = request.headers['last-event-id'];
      const lastEventId = (typeof header === 'string' && header !== '' ? header : query.lastEventId)?.slice(
        0,
        40,
      );
      reply.hijack();
      try {
        await hub.open(reply.raw, { device, sessionId: holder.sessionId, lastEventId });
      } catch (error) {
        request.log.warn({ err: error }, 'a command stream could not be opened');
        reply.raw.destroy();
      }
    },
  );
}
