import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from '../../core/config.ts';
import type { MailMessage } from './outbox.ts';

export interface MailTransport {
  /** Delivers one message; `id` makes a repeated delivery recognisable (Message-ID, file name). */
  deliver(id: string, message: MailMessage): Promise<void>;
  close(): void;
}

type MailConfig = Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'MAIL_DROP_DIR' | 'SINTONIA_DATA_DIR'> &
  Partial<Pick<Config, 'SMTP_PASSWORD'>>;

export function mailDropDir(config: MailConfig): string {
  return config.MAIL_DROP_DIR ?? join(config.SINTONIA_DATA_DIR, 'mail-drop');
}

/** SMTP through nodemailer when SMTP_URL is set; otherwise `.eml` files in the mail drop. */
export function createMailTransport(config: MailConfig): MailTransport {
  return config.SMTP_URL
    ? smtpTransport(smtpConnection(config.SMTP_URL, config.SMTP_PASSWORD), config.MAIL_FROM)
    : dropTransport(config);
}

/**
 * SMTP_URL as is; with SMTP_PASSWORD, the URL without its credentials and the user name and that
 * password given apart (no escaping of the password into the URL).
 */
function smtpConnection(smtpUrl: string, password: string | undefined) {
  if (password === undefined) return { url: smtpUrl };
  const url = new URL(smtpUrl);
  const user = decodeURIComponent(url.username);
  url.username = '';
  url.password = '';
  return { url: url.toString(), auth: { user, pass: password } };
}

function envelope(id: string, from: string, message: MailMessage) {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    messageId: `<${id}@sintonia.outbox>`,
  };
}

function smtpTransport(
  connection: { url: string; auth?: { user: string; pass: string } },
  from: string,
): MailTransport {
  // The transport itself, not createTransport({ url, … }): given a url, createTransport drops every
  // other option (the timeouts and the separate credentials), where SMTPTransport merges them.
  const transporter = nodemailer.createTransport(
    new SMTPTransport({
      ...connection,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    } as SMTPTransport.Options),
  );
  return {
    async deliver(id, message) {
      await transporter.sendMail(envelope(id, from, message));
    },
    close: () => transporter.close(),
  };
}

function dropTransport(config: MailConfig): MailTransport {
  const folder = mailDropDir(config);
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async deliver(id, message) {
      const info = await composer.sendMail(envelope(id, config.MAIL_FROM, message));
      await mkdir(folder, { recursive: true });
      // Written aside and renamed: a reader of the drop never sees half a message; a repeat overwrites.
      const temporary = join(folder, `.${id}.eml.tmp`);
      await writeFile(temporary, info.message as Buffer, { mode: 0o600 });
      await rename(temporary, join(folder, `${id}.eml`));
    },
    close: () => composer.close(),
  };
}
