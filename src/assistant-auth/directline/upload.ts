import { basename } from 'node:path';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import Value from 'typebox/value';
import { ProblemError } from '../../core/errors.ts';
import { nulFailures } from '../../core/http/validation.ts';
import { directLineErrors } from './errors.ts';
import { type ActivityInput, activityInput } from './schemas.ts';

/** One file of an upload, as read from its part. */
interface UploadedFile {
  name: string;
  contentType: string;
  content: Buffer;
}

export interface Upload {
  /** The `activity` part: the message the files belong to (its own attachments are replaced). */
  activity?: ActivityInput;
  files: UploadedFile[];
}

interface UploadLimits {
  /** All files of one upload together, in bytes. */
  bytes: number;
  /** The `activity` part, in bytes (the JSON body limit). */
  activityBytes: number;
  /** Files of one upload; the `activity` part is not one. */
  files: number;
}

/** The multipart errors that mean "too much": more bytes, files or parts than allowed. */
const TOO_LARGE = new Set([
  'FST_REQ_FILE_TOO_LARGE',
  'FST_FILES_LIMIT',
  'FST_PARTS_LIMIT',
  'FST_FIELDS_LIMIT',
]);
const CONTENT_TYPE = /^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}$/;

/** A file name to show and store: no path, no control characters, at most 200 characters. */
function fileName(given: string | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  const cleaned = basename((given ?? '').replaceAll('\\', '/')).replace(/[\u0000-\u001f\u007f]/g, '');
  return cleaned.slice(0, 200) || 'file';
}

/** The part's media type without parameters; anything malformed is served as opaque bytes. */
function mediaType(given: string | undefined): string {
  const type = (given ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return CONTENT_TYPE.test(type) ? type : 'application/octet-stream';
}

const tooLarge = (limits: UploadLimits) =>
  directLineErrors.DIRECTLINE_UPLOAD_TOO_LARGE(
    `The upload is larger than this channel accepts: ${limits.bytes} bytes of files, ${limits.files} files, ${limits.activityBytes} bytes of activity.`,
  );

function parseActivity(json: string): ActivityInput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw directLineErrors.DIRECTLINE_UPLOAD_INVALID('The `activity` part is not JSON.');
  }
  if (!Value.Check(activityInput, parsed)) {
    const first = Value.Errors(activityInput, parsed)[0];
    throw directLineErrors.DIRECTLINE_UPLOAD_INVALID(
      `The \`activity\` part is not a valid activity${first ? `: ${first.instancePath || '/'} ${first.message}` : ''}.`,
    );
  }
  // The family's rule on text (core/http/validation.ts), which this part, read here, does not pass through.
  const [nul] = nulFailures(parsed, 1);
  if (nul) {
    throw directLineErrors.DIRECTLINE_UPLOAD_INVALID(
      `The \`activity\` part is not a valid activity: ${nul.instancePath || '/'} ${nul.message}.`,
    );
  }
  return parsed;
}

async function readPart(part: Multipart, limits: UploadLimits, upload: Upload, total: number) {
  if (part.type === 'field') {
    if (part.fieldname !== 'activity') return total;
    const value = String(part.value);
    if (Buffer.byteLength(value) > limits.activityBytes) throw tooLarge(limits);
    upload.activity = parseActivity(value);
    return total;
  }
  const content = await part.toBuffer();
  if (part.fieldname === 'activity') {
    if (content.length > limits.activityBytes) throw tooLarge(limits);
    upload.activity = parseActivity(content.toString('utf8'));
    return total;
  }
  const sum = total + content.length;
  if (sum > limits.bytes || upload.files.length >= limits.files) throw tooLarge(limits);
  upload.files.push({ name: fileName(part.filename), contentType: mediaType(part.mimetype), content });
  return sum;
}

/**
 * Reads an upload as DirectLineJS sends it: FormData with an `activity` part (a JSON blob of type
 * `application/vnd.microsoft.activity`) and one `file` part per attachment, each with its file name
 * and type. Any part name other than `activity` is taken as a file.
 */
export async function readUpload(request: FastifyRequest, limits: UploadLimits): Promise<Upload> {
  if (!request.isMultipart()) throw directLineErrors.DIRECTLINE_UPLOAD_NOT_MULTIPART();
  const upload: Upload = { files: [] };
  let total = 0;
  try {
    // One more file part than `files`: DirectLineJS sends the `activity` part as a file (a Blob).
    const parts = request.parts({
      limits: { fileSize: limits.bytes, files: limits.files + 1, parts: limits.files + 4 },
    });
    for await (const part of parts) total = await readPart(part, limits, upload, total);
  } catch (error) {
    if (error instanceof ProblemError) throw error;
    // Anything else the multipart reader refuses is a malformed or oversized body, never our fault.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && TOO_LARGE.has(code)) throw tooLarge(limits);
    throw directLineErrors.DIRECTLINE_UPLOAD_INVALID(undefined, { cause: error });
  }
  if (upload.files.length === 0)
    throw directLineErrors.DIRECTLINE_UPLOAD_INVALID('The upload holds no file.');
  return upload;
}
