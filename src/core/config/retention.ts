import Type from 'typebox';
import { seconds } from './kinds.ts';

/**
 * The retention job's variables: how often it runs, how it removes (small batches with a pause between
 * them), and how long each kind of row that only grows is kept (docs/retention.md). 0 keeps forever.
 */
export const retentionVariables = {
  RETENTION_INTERVAL: Type.Integer({
    minimum: 60,
    maximum: 86400,
    default: 3600,
    description:
      'How often each service removes the rows past their retention (docs/retention.md); the first pass starts with the service.',
  }),
  RETENTION_BATCH_SIZE: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 500,
    description:
      'Rows the retention job removes per statement: each batch is one short DELETE, so no lock is held for long.',
  }),
  RETENTION_BATCH_PAUSE_MS: Type.Integer({
    minimum: 0,
    maximum: 60000,
    default: 50,
    description: 'Pause of the retention job between two batches, leaving the tables to the requests.',
  }),
  AUDIT_RETENTION: seconds(
    365 * 86400,
    'Audit log entries are kept this long, then removed by the retention job; 0 keeps them forever.',
  ),
  SESSION_RETENTION: seconds(
    7 * 86400,
    'A device session is kept this long after it was closed or its refresh token expired (an idle session’s expires too), then removed; 0 keeps them forever.',
  ),
  OUTBOX_RETENTION: seconds(
    7 * 86400,
    'Sent and failed e-mails in the outbox are kept this long after they were queued, then removed; pending ones always stay. 0 keeps them forever.',
  ),
  REGISTRATION_RETENTION: seconds(
    30 * 86400,
    'Records of registration e-mail requests are kept this long, then removed; 0 keeps them forever.',
  ),
  CHAT_HISTORY_RETENTION: seconds(
    7 * 86400,
    'What the chat agent remembers of a conversation is kept this long after each turn, then removed by the agents server; 0 keeps it forever.',
  ),
  AD_CONTACT_RETENTION: seconds(
    90 * 86400,
    'Advertising contacts (POST /{deviceClass}/accounts/{accountNumber}/campaigns/{campaign}) are kept this long, then removed; 0 keeps them forever.',
  ),
  COMMAND_RETENTION: seconds(
    7 * 86400,
    'Commands sent to devices (POST /accounts/{accountNumber}/devices/{mediaPlayerId}/commands) are kept this long after they were sent, then removed; 0 keeps them forever.',
  ),
};
