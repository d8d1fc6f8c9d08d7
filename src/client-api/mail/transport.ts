import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../../core/config.ts';
import type { MailMessage } from './outbox.ts';

export interface MailTransport {
  /** Delivers one message; `id` makes a repeated delivery recognisable (Message-ID, file name). */
  deliver(id: string, message: MailMessage): Promise<void>;
  close(): void;
}

type MailConfig = Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'MAIL_DROP_DIR' | 'SINTONIA_DATA_DIR'>;

export function mailDropDir(config: MailConfig): string {
  return config.MAIL_DROP_DIR ?? join(config.SINTONIA_DATA_DIR, 'mail-drop');
}

/** SMTP through nodemailer when SMTP_URL is set; otherwise `.eml` files in the mail drop. */
export function createMailTransport(config: MailConfig): MailTransport {
  return config.SMTP_URL ? smtpTransport(config.SMTP_URL, config.MAIL_FROM) : dropTransport(config);
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

function smtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
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
