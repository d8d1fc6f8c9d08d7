import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What the verification page's second step carries between the person's sign-in and their decision:
 * which grant, for which user of which account, until when, signed with a server key. The page keeps no
 * session of its own; a ticket is good for one decision because the grant can be decided only once.
 */
export interface PageTicket {
  grantId: string;
  accountNumber: string;
  platformUserId: string;
  /** The user code's 8 letters, to show again. */
  letters: string;
  expiresAt: number;
}

/** How long a person may look at the confirmation before deciding. */
export const TICKET_TTL_MS = 5 * 60_000;

const sign = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export function issueTicket(key: Buffer, ticket: PageTicket): string {
  const payload = Buffer.from(JSON.stringify(ticket)).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

/** The ticket, if it is ours, whole and unexpired. */
export function readTicket(key: Buffer, text: string, now = Date.now()): PageTicket | undefined {
  const [payload, signature, extra] = text.split('.');
  if (payload === undefined || signature === undefined || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const ticket = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as PageTicket;
    return typeof ticket.expiresAt === 'number' && ticket.expiresAt > now ? ticket : undefined;
  } catch {
    return undefined;
  }
}
