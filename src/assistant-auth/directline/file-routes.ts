import fastifyMultipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteSchema } from '../../core/http/route-errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { Operation } from '../operation.ts';
import type { ConversationService } from './conversation-service.ts';
import type { Credential } from './credentials.ts';
import { activityLimitErrors, directLineErrors } from './errors.ts';
import type { StoredFile } from './next-activity.ts';
import {
  conversationParams,
  fileParams,
  fileQuery,
  resourceResponseSchema,
  uploadForm,
  uploadQuery,
} from './schemas.ts';
import { readUpload } from './upload.ts';
import type { UploadQuota } from './upload-quota.ts';

/** What the conversation routes share with these: the bearer check and the operation describer. */
interface BearerRoutes {
  onRequest: (request: FastifyRequest) => Promise<void>;
  who: (request: FastifyRequest) => Credential;
  described: <S extends RouteSchema>(options: Omit<Operation, 'tag' | 'access'>, schema: S) => S;
}

interface Limits {
  uploadBytes: number;
  activityBytes: number;
  /** What conversations, tokens and the store may hold beyond one upload. */
  quota: UploadQuota;
}

/** Most files one upload may carry (the README's figure). */
const MAX_FILES = 10;
/** Types a browser may show in place: raster images, PDF, audio, video, plain text. Others download. */
const INLINE =
  /^(image\/(png|jpeg|gif|webp|bmp|avif)|application\/pdf|audio\/[\w.+-]+|video\/[\w.+-]+|text\/plain)$/;

/**
 * Serves a stored file under headers that keep an uploaded page or script inert on our origin: the
 * stored type, never sniffed, sandboxed, downloaded unless it is a type browsers only display.
 */
function sendFile(reply: FastifyReply, file: StoredFile): FastifyReply {
  const disposition = INLINE.test(file.contentType) ? 'inline' : 'attachment';
  return reply
    .headers({
      'content-type': file.contentType,
      'content-disposition': `${disposition}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cross-origin-resource-policy': 'cross-origin',
      'cache-control': 'private, max-age=3600',
    })
    .send(file.content);
}

/** Uploads (`POST …/upload`, as DirectLineJS sends attachments) and the files they stored. */
export async function fileRoutes(
  app: App,
  conversations: ConversationService,
  { onRequest, who, described }: BearerRoutes,
  limits: Limits,
): Promise<void> {
  await app.register(fastifyMultipart, { throwFileSizeLimit: true });
  const ofConversation = [
    directLineErrors.DIRECTLINE_CONVERSATION_MISMATCH,
    directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND,
  ];

  app.post(
    '/conversations/:conversationId/upload',
    {
      onRequest,
      schema: described(
        {
          id: 'uploadFiles',
          summary: 'Direct Line: send files, with the message they belong to.',
          description: `multipart/form-data: an optional \`activity\` part (one activity as JSON, type \`application/vnd.microsoft.activity\`) and up to ${MAX_FILES} file parts, each with its file name and type, ${limits.uploadBytes} bytes in all (DIRECTLINE_UPLOAD_LIMIT). Beyond one upload: what a conversation may hold (DIRECTLINE_CONVERSATION_UPLOAD_FILES, …_BYTES; 413), what a token may upload within REQUEST_LIMIT_WINDOW (DIRECTLINE_TOKEN_UPLOAD_FILES, …_BYTES; 429) and what the store keeps of every conversation (DIRECTLINE_UPLOAD_STORE_BYTES; 429). The message is stored with one attachment per file, whose \`contentUrl\` serves it, and answered by the assistant agent. \`userId\` is ignored: the token’s user sends it.`,
          errors: [
            ...ofConversation,
            directLineErrors.DIRECTLINE_UPLOAD_INVALID,
            directLineErrors.DIRECTLINE_UPLOAD_NOT_MULTIPART,
            directLineErrors.DIRECTLINE_UPLOAD_TOO_LARGE,
            directLineErrors.DIRECTLINE_CONVERSATION_UPLOADS_FULL,
            directLineErrors.DIRECTLINE_UPLOAD_RATE_LIMITED,
            directLineErrors.DIRECTLINE_UPLOAD_STORE_FULL,
            ...activityLimitErrors,
          ],
        },
        {
          consumes: ['multipart/form-data'],
          // Documented, not validated: the handler reads the parts as they stream (upload.ts).
          documentedBody: uploadForm,
          params: conversationParams,
          querystring: uploadQuery,
          response: { 200: resourceResponseSchema },
        },
      ),
    },
    async (request) => {
      const credential = who(request);
      const { conversationId } = request.params;
      // The conversation and its room are checked before the body is read: a refused upload costs little.
      await conversations.authorize(credential, conversationId);
      await limits.quota.checkRoom(conversationId, Date.now());
      const upload = await readUpload(request, {
        bytes: limits.uploadBytes,
        activityBytes: limits.activityBytes,
        files: MAX_FILES,
      });
      return conversations.upload(credential, conversationId, upload, request.id);
    },
  );

  app.get(
    '/conversations/:conversationId/files/:fileId',
    {
      // With the contentUrl's signature no Authorization header is needed (a browser's <img> sends none).
      onRequest: async (request: FastifyRequest) => {
        const { t } = request.query as { t?: string };
        if (t === undefined) await onRequest(request);
      },
      schema: described(
        {
          id: 'getFile',
          summary: 'Direct Line: a file uploaded to the conversation (an attachment’s contentUrl).',
          description:
            'The contentUrl carries `t`, a signature binding the file to its conversation, so browsers fetch it without a token; without `t`, the conversation’s token (or the secret). Served with its stored type, `nosniff`, sandboxed; types browsers only display are inline, others download. Removed with the conversation after CHANNEL_RETENTION.',
          errors: [
            ...ofConversation,
            directLineErrors.DIRECTLINE_FILE_LINK_INVALID,
            directLineErrors.DIRECTLINE_FILE_NOT_FOUND,
          ],
        },
        {
          // The contentUrl's signature stands in for the bearer (the onRequest hook above).
          security: [{ directLineBearer: [] }, { fileSignature: [] }] as Array<Record<string, string[]>>,
          params: fileParams,
          querystring: fileQuery,
          response: {
            200: {
              description:
                'The file as uploaded, under the media type its part was sent with (application/octet-stream when that was missing or malformed); Content-Disposition inline for types browsers only display, attachment otherwise, with the file name.',
              headers: {
                'Content-Disposition': {
                  type: 'string',
                  description: "`inline` or `attachment`, with `filename*=UTF-8''<name>`.",
                },
                'X-Content-Type-Options': { type: 'string', description: '`nosniff`.' },
                'Content-Security-Policy': { type: 'string', description: "`default-src 'none'; sandbox`." },
              },
              content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
            },
          },
        },
      ),
    },
    async (request, reply) => {
      const { conversationId, fileId } = request.params;
      const { t } = request.query;
      const file = await conversations.file(
        conversationId,
        fileId,
        t === undefined ? { credential: who(request) } : { signature: t },
      );
      return sendFile(reply, file);
    },
  );
}
