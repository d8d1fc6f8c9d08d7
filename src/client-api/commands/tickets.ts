import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { DevicePrincipal } from '../auth/principal.ts';
import { commandErrors } from './errors.ts';

/** The master-key purpose of the command stream tickets' key (core/keys/purposes.ts). */
export const COMMAND_STREAM_KEY_PURPOSE = 'client-api:command-stream';
const AUDIENCE = 'sintonia-command-stream';
/** As Direct Line's stream URLs: a client connects within a minute of getting one. */
export const STREAM_TICKET_TTL = 60;

/** What a ticket binds: the device and the session it was asked in (still checked when the stream opens). */
export type TicketHolder = Pick<DevicePrincipal, 'accountNumber' | 'deviceId' | 'deviceClass' | 'sessionId'>;

/**
 * The `t` of a command stream URL, for a browser's EventSource, which cannot send Authorization: an HS256
 * JWT under a key of its own derived from the master key (every process checks it), for one device.
 */
export function createStreamTickets(key: Buffer) {
  return {
    issue(holder: TicketHolder): Promise<string> {
      return new SignJWT({ acc: holder.accountNumber, did: holder.deviceId, dcl: holder.deviceClass })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(holder.sessionId)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setJti(randomBytes(9).toString('base64url'))
        .setExpirationTime(Math.floor(Date.now() / 1000) + STREAM_TICKET_TTL)
        .sign(key);
    },
    /** The ticket's holder when it is ours, unexpired and for this device; else 401 COMMAND_STREAM_TICKET_INVALID. */
    async verify(ticket: string, device: { deviceClass: string; deviceId: string }): Promise<TicketHolder> {
      const payload = await jwtVerify(ticket, key, { audience: AUDIENCE, algorithms: ['HS256'] }).then(
        (verified) => verified.payload,
        () => undefined,
      );
      const { acc, did, dcl, sub } = payload ?? {};
      if (
        typeof acc !== 'string' ||
        typeof sub !== 'string' ||
        did !== device.deviceId ||
        dcl !== device.deviceClass
      ) {
        throw commandErrors.COMMAND_STREAM_TICKET_INVALID();
      }
      return { accountNumber: acc, deviceId: did, deviceClass: dcl, sessionId: sub };
    },
  };
}

export type StreamTickets = ReturnType<typeof createStreamTickets>;
