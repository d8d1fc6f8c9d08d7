import { randomUUID } from 'node:crypto';
import { decrypt, encrypt } from '../../core/secrets.ts';
import type { OutboxRepository, OutboxRow } from './outbox-repository.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Purpose of the derived key that seals outbox messages. */
export const OUTBOX_KEY_PURPOSE = 'mail-outbox';

/**
 * Writes a message into the outbox through the caller's repository, which may be bound to the
 * caller's transaction: the message then exists exactly when the request that caused it was committed.
 */
export async function enqueueMail(
  outbox: Pick<OutboxRepository, 'insert'>,
  key: Buffer,
  kind: string,
  message: MailMessage,
  now: number,
): Promise<string> {
  const id = randomUUID();
  await outbox.insert({
    id,
    kind,
    sealed_message: encrypt(key, JSON.stringify(message), id),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    created_at: now,
    sent_at: null,
    last_error: null,
  });
  return id;
}

export function openMessage(key: Buffer, row: Pick<OutboxRow, 'id' | 'sealed_message'>): MailMessage {
  return JSON.parse(decrypt(key, row.sealed_message, row.id).toString('utf8')) as MailMessage;
}
