import type { MailMessage } from '../mail/outbox.ts';
import type { RegistrationRequest } from './schemas.ts';

/**
 * Letters, combining marks, spaces, apostrophes and hyphens, with a full stop only before a space or at
 * the end ("J. Smith"): nothing a mail client can take for an address, a host, an e-mail or a phone
 * number, each of which needs a digit, a `:`, a `/`, an `@` or a dot between letters.
 */
const PLAIN_WORDS = /^(?:[\p{L}\p{M}' ’-]|\.(?= |$))+$/u;

/**
 * What the sender wrote, with its spaces collapsed, when it can only be read as words; undefined
 * otherwise. The e-mail goes to any address, and mail clients make links of what looks like one, each by
 * its own rules: leaving such text out is the only way that holds in all of them.
 */
export function plainWords(text: string | undefined): string | undefined {
  const collapsed = text?.replace(/\s+/g, ' ').trim();
  return collapsed && PLAIN_WORDS.test(collapsed) ? collapsed : undefined;
}

/**
 * The registration e-mail, in the language asked for (Spanish by default), as plain text. The sender's
 * name and device class appear only as plain words (plainWords), so no link of theirs reaches the inbox.
 */
export function registrationMail(
  body: RegistrationRequest,
  deviceClass: string,
  requestId: string,
): MailMessage {
  const to = body.email.trim();
  const name = plainWords(body.name);
  const device = plainWords(deviceClass);
  if (body.language === 'en') {
    return {
      to,
      subject: 'Your Sintonia registration',
      text: [
        `Hello${name ? ` ${name}` : ''},`,
        '',
        `We received a request to register this address with Sintonia from a ${device ? `${device} ` : ''}device.`,
        'To finish, sign in on that device with the account your operator gave you.',
        'If you did not ask for this, you can ignore this message.',
        '',
        `Reference: ${requestId}`,
      ].join('\n'),
    };
  }
  return {
    to,
    subject: 'Tu registro en Sintonia',
    text: [
      `Hola${name ? ` ${name}` : ''}:`,
      '',
      `Hemos recibido una solicitud para registrar esta dirección en Sintonia desde un dispositivo${device ? ` ${device}` : ''}.`,
      'Para terminar, inicia sesión en ese dispositivo con la cuenta que te ha dado tu operador.',
      'Si no lo has pedido tú, puedes ignorar este mensaje.',
      '',
      `Referencia: ${requestId}`,
    ].join('\n'),
  };
}
