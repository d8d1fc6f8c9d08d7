import { defineErrors } from '../../core/errors.ts';

/**
 * Error types of the embedded Direct Line channel. Bad credentials are 403, as Direct Line answers them:
 * clients (botframework-directlinejs) read 403 as "get a new token".
 */
export const directLineErrors = defineErrors('assistant-auth/directline', {
  DIRECTLINE_CREDENTIALS_MISSING: [401, 'Send the channel secret or a token as `Authorization: Bearer …`.'],
  DIRECTLINE_CREDENTIALS_INVALID: [403, 'The token or secret is not valid.'],
  DIRECTLINE_TOKEN_EXPIRED: [403, 'The token has expired; get a new one.'],
  DIRECTLINE_SECRET_REQUIRED: [403, 'Only the channel secret may generate tokens.'],
  DIRECTLINE_TOKEN_REQUIRED: [403, 'Only a token can be refreshed.'],
  DIRECTLINE_CONVERSATION_MISMATCH: [403, 'This token belongs to another conversation.'],
  DIRECTLINE_CONVERSATION_NOT_FOUND: [
    404,
    'No such conversation (never started, or removed after retention).',
  ],
  DIRECTLINE_UPLOAD_INVALID: [
    400,
    'An upload is multipart/form-data: at least one file part, and optionally an `activity` part holding one activity as JSON.',
  ],
  DIRECTLINE_UPLOAD_NOT_MULTIPART: [415, 'An upload is sent as multipart/form-data.'],
  DIRECTLINE_UPLOAD_TOO_LARGE: [413, 'The upload is larger than this channel accepts.'],
  DIRECTLINE_CONVERSATION_UPLOADS_FULL: [
    413,
    'This conversation holds as many uploaded files as it may; start a new conversation.',
  ],
  DIRECTLINE_UPLOAD_RATE_LIMITED: [
    429,
    'This token uploaded as many files as it may for now; retry later.',
    ['retry-after'],
  ],
  DIRECTLINE_UPLOAD_STORE_FULL: [
    429,
    'The channel holds as many uploaded files as it may; retry later.',
    ['retry-after'],
  ],
  DIRECTLINE_CONVERSATION_FULL: [
    413,
    'This conversation holds as many activities as it may; start a new conversation.',
  ],
  DIRECTLINE_RATE_LIMITED: [
    429,
    'This conversation takes no more activities for now; retry later.',
    ['retry-after'],
  ],
  DIRECTLINE_CHANNEL_BUSY: [429, 'The channel takes no more for now; retry later.', ['retry-after']],
  DIRECTLINE_STREAMS_FULL: [
    503,
    'This channel holds as many streams as it may; retry later or poll.',
    ['retry-after'],
  ],
  DIRECTLINE_ORIGIN_NOT_ALLOWED: [403, 'Pages of this origin may not open the conversation’s stream.'],
  DIRECTLINE_FILE_NOT_FOUND: [404, 'No such file in this conversation (or removed after retention).'],
  DIRECTLINE_FILE_LINK_INVALID: [403, 'This file link is not valid for this conversation.'],
});

/** What a client's activity may be refused at, beyond its conversation's access (docs/limits.md). */
export const activityLimitErrors = [
  directLineErrors.DIRECTLINE_CONVERSATION_FULL,
  directLineErrors.DIRECTLINE_RATE_LIMITED,
  directLineErrors.DIRECTLINE_CHANNEL_BUSY,
];
