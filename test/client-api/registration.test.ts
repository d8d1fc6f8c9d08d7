import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serialize } from 'bson';
import { plainWords } from '../../src/client-api/registration/registration-mail.ts';
import { REGISTRATION_NAME_MAX_LENGTH } from '../../src/client-api/registration/schemas.ts';
import { type App, buildServiceApp } from '../../src/core/http/service-app.ts';
import { services } from '../../src/family.ts';
import { until } from '../helpers/until.ts';
import { type AccountsFixture, accountsFixture, errorTypes } from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';
import { header, type SmtpSink, startSmtpSink, textBody } from './mail-smtp-fixture.ts';

/** The text of the e-mail in the mail drop that quotes `requestId`, once the worker has written it. */
function droppedMail(folder: string, requestId: string): Promise<string> {
  return until(
    () => {
      let files: string[];
      try {
        files = readdirSync(folder).filter((name) => name.endsWith('.eml'));
      } catch {
        return undefined;
      }
      return files
        .map((file) => textBody(readFileSync(join(folder, file), 'utf8')))
        .find((text) => text.includes(requestId));
    },
    `the e-mail of request ${requestId} in the mail drop`,
    10_000,
  );
}

/** What a mail client could make a link of: a scheme, `www.`, a host or an address. */
const LINKABLE = /:\/\/|www\.|[\p{L}\d]\.[\p{L}\d]|@|evil/iu;

const request = (fx: AccountsFixture, body: unknown, options: { deviceClass?: string; ip?: string } = {}) =>
  fx.app.inject({
    method: 'POST',
    url: `/api/v1/${options.deviceClass ?? 'smarttv'}/registration/request`,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    remoteAddress: options.ip ?? '127.0.0.1',
  });

describe('registration e-mail over SMTP', () => {
  let smtp: SmtpSink;
  let fx: AccountsFixture;

  before(async () => {
    smtp = await startSmtpSink();
    fx = await accountsFixture({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Sintonia <no-reply@sintonia.test>',
      REGISTRATION_RATE_LIMIT: '2',
      MAIL_POLL_INTERVAL_MS: '50',
    });
  });
  after(async () => {
    await fx.close();
    await smtp.close();
  });

  describe('happy', () => {
    it('queues the request and the e-mail arrives at the SMTP server', async () => {
      const response = await request(fx, { email: 'Ana@Example.test', name: 'Ana', language: 'en' });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'queued');
      assert.match(body.requestId, /^[0-9a-f-]{36}$/);

      const [mail] = await smtp.waitFor(1);
      assert.ok(mail);
      // The domain is normalised (lower case); the local part is kept.
      assert.deepEqual(mail.to, ['Ana@example.test']);
      assert.equal(mail.from, 'no-reply@sintonia.test');
      assert.equal(header(mail.raw, 'Subject'), 'Your Sintonia registration');
      assert.match(header(mail.raw, 'Message-ID') ?? '', /@sintonia\.outbox>$/);
      const text = textBody(mail.raw);
      assert.match(text, /^Hello Ana,/);
      assert.ok(text.includes('from a smarttv device'), text);
      assert.ok(text.includes(`Reference: ${body.requestId}`), text);
    });
  });

  describe('errors', () => {
    it('400 for a bad body or path, 415 for another media type, 413 past BODY_LIMIT', async () => {
      for (const [name, body, deviceClass] of [
        ['not an e-mail', { email: 'not-an-address' }, undefined],
        ['no e-mail', { name: 'Ana' }, undefined],
        ['unknown field', { email: 'a@example.test', admin: true }, undefined],
        ['unknown language', { email: 'a@example.test', language: 'fr' }, undefined],
        ['name too long', { email: 'a@example.test', name: 'n'.repeat(101) }, undefined],
        [
          'name one past its limit',
          { email: 'a@example.test', name: 'n'.repeat(REGISTRATION_NAME_MAX_LENGTH + 1) },
          undefined,
        ],
        ['name with a line break', { email: 'a@example.test', name: 'Ana\n\nVisit our site' }, undefined],
        ['name with a tab', { email: 'a@example.test', name: 'Ana\tB' }, undefined],
        ['deviceClass 25', { email: 'a@example.test' }, 'd'.repeat(25)],
      ] as const) {
        const response = await request(fx, body, { deviceClass, ip: '10.1.1.1' });
        assert.equal(response.statusCode, 400, name);
        assert.deepEqual([...new Set(errorTypes(response))], ['VALIDATION_ERROR'], name);
      }
      const text = await fx.app.inject({
        method: 'POST',
        url: '/api/v1/smarttv/registration/request',
        payload: 'email=a@example.test',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(text.statusCode, 415);
      const huge = await request(
        fx,
        { email: 'big@example.test', name: 'n'.repeat(70_000) },
        { ip: '10.1.1.2' },
      );
      assert.equal(huge.statusCode, 413);
      assert.deepEqual(errorTypes(huge), ['BODY_TOO_LARGE']);
      assert.equal(text.json().code, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('security', () => {
    it('429 with Retry-After past the limit per e-mail address, counted in the database', async () => {
      const address = 'limit@example.test';
      assert.equal((await request(fx, { email: address }, { ip: '10.0.0.1' })).statusCode, 200);
      // Case does not make another address.
      assert.equal((await request(fx, { email: 'LIMIT@example.test' }, { ip: '10.0.0.2' })).statusCode, 200);
      const refused = await request(fx, { email: address }, { ip: '10.0.0.3' });
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.json().code, 'TOO_MANY_REQUESTS');
      assert.deepEqual(errorTypes(refused), ['REGISTRATION_RATE_LIMITED']);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600, String(retryAfter));
    });

    it('429 past the limit per client address, whatever the e-mail', async () => {
      const ip = '10.9.9.9';
      assert.equal((await request(fx, { email: 'one@example.test' }, { ip })).statusCode, 200);
      assert.equal((await request(fx, { email: 'two@example.test' }, { ip })).statusCode, 200);
      const refused = await request(fx, { email: 'three@example.test' }, { ip });
      assert.equal(refused.statusCode, 429);
      assert.ok(refused.headers['retry-after']);
      // Another client may still ask for that third address.
      assert.equal((await request(fx, { email: 'three@example.test' }, { ip: '10.9.9.10' })).statusCode, 200);
    });
  });
});

describe('registration e-mail into the mail drop', () => {
  let fx: AccountsFixture;
  before(async () => {
    fx = await accountsFixture({ MAIL_POLL_INTERVAL_MS: '50' });
  });
  after(() => fx.close());

  describe('happy', () => {
    it('writes an .eml file when SMTP_URL is not set', async () => {
      const response = await request(fx, { email: 'drop@example.test' });
      assert.equal(response.statusCode, 200, response.body);
      const { requestId } = response.json();
      const folder = join(String(fx.core.env.SINTONIA_DATA_DIR), 'mail-drop');
      const file = await until(
        () => {
          try {
            return readdirSync(folder).find((name) => name.endsWith('.eml'));
          } catch {
            return undefined;
          }
        },
        'the registration e-mail in the mail drop',
        10_000,
      );
      const raw = readFileSync(join(folder, file), 'utf8');
      assert.equal(header(raw, 'To'), 'drop@example.test');
      assert.equal(header(raw, 'Subject'), 'Tu registro en Sintonia');
      assert.ok(textBody(raw).includes(`Referencia: ${requestId}`));
      assert.ok(textBody(raw).includes('esta dirección'));
    });

    it('reads an XML body and answers UBJSON; reads a BSON body and answers XML', async () => {
      const xml = await fx.app.inject({
        method: 'POST',
        url: '/api/v1/web/registration/request',
        payload:
          '<RegistrationRequest><email>xml@example.test</email><language>en</language></RegistrationRequest>',
        headers: { 'content-type': 'application/xml', accept: 'application/ubjson' },
      });
      assert.equal(xml.statusCode, 200, xml.body);
      const fromXml = (await decoded(xml)) as { status: string; requestId: string };
      assert.equal(fromXml.status, 'queued');

      const bson = await fx.app.inject({
        method: 'POST',
        url: '/api/v1/web/registration/request',
        payload: serialize({ email: 'bson@example.test' }),
        headers: { 'content-type': 'application/bson', accept: 'application/xml' },
      });
      assert.equal(bson.statusCode, 200, bson.body);
      const fromBson = (await decoded(bson)) as {
        RegistrationAccepted: { status: string; requestId: string };
      };
      assert.equal(fromBson.RegistrationAccepted.status, 'queued');

      const bad = await fx.app.inject({
        method: 'POST',
        url: '/api/v1/web/registration/request',
        payload: serialize({ email: 'not-an-address' }),
        headers: { 'content-type': 'application/bson', accept: 'application/xml' },
      });
      assert.equal(bad.statusCode, 400);
      const error = (await decoded(bad)) as { Error: { code: string } };
      assert.equal(error.Error.code, 'BAD_REQUEST');
    });
  });

  describe('errors', () => {
    it('documents the name’s limit in the OpenAPI document', async () => {
      const response = await fx.app.inject({ method: 'GET', url: '/api/v1/swagger.json' });
      const document = response.json() as {
        paths: Record<string, Record<string, { parameters?: Array<{ in: string; schema?: unknown }> }>>;
        definitions?: Record<string, unknown>;
      };
      const parameter = document.paths['/{deviceClass}/registration/request']?.post?.parameters?.find(
        (candidate) => candidate.in === 'body',
      );
      const reference = (parameter?.schema as { $ref?: string } | undefined)?.$ref;
      const schema = (
        reference ? document.definitions?.[reference.replace('#/definitions/', '')] : parameter?.schema
      ) as { properties?: Record<string, { maxLength?: number; pattern?: string; description?: string }> };
      const name = schema.properties?.name;
      assert.equal(name?.maxLength, REGISTRATION_NAME_MAX_LENGTH);
      assert.ok(name?.pattern, 'control characters refused');
      assert.match(name?.description ?? '', /plain text/);
    });
  });

  describe('security', () => {
    it('greets with the name as plain words only: a name or device class a mail client could link is left out', async () => {
      const folder = join(String(fx.core.env.SINTONIA_DATA_DIR), 'mail-drop');
      const cases = [
        {
          name: '[Verify account](https://evil.example/p) <b>bold</b>',
          deviceClass: 'evil.example',
          greeting: 'Hello,\n',
          device: 'from a device.',
        },
        {
          name: 'www.evil.example',
          deviceClass: 'http:%2F%2Fevil.example',
          greeting: 'Hello,\n',
          device: 'from a device.',
        },
        {
          name: 'ana@evil.example',
          deviceClass: 'smarttv',
          greeting: 'Hello,\n',
          device: 'from a smarttv device.',
        },
        { name: 'Ana 600111222', deviceClass: 'web', greeting: 'Hello,\n', device: 'from a web device.' },
        {
          name: 'José-María  O’Neil',
          deviceClass: 'smarttv',
          greeting: 'Hello José-María O’Neil,\n',
          device: 'from a smarttv device.',
        },
        {
          name: 'Dr. J. Smith',
          deviceClass: 'web',
          greeting: 'Hello Dr. J. Smith,\n',
          device: 'from a web device.',
        },
      ];
      for (const [index, { name, deviceClass, greeting, device }] of cases.entries()) {
        const response = await request(
          fx,
          { email: `greeting-${index}@example.test`, name, language: 'en' },
          { deviceClass, ip: `10.2.2.${index}` },
        );
        assert.equal(response.statusCode, 200, `${name}: ${response.body}`);
        const text = await droppedMail(folder, response.json().requestId);
        assert.ok(text.startsWith(greeting), `${name}: ${text}`);
        assert.ok(text.includes(device), `${name}: ${text}`);
        // The whole message but its reference: nothing of the sender that a mail client could make a link of.
        const words = text.replace(/Reference: \S+/, '');
        assert.doesNotMatch(words, LINKABLE, `${name}: ${text}`);
      }
      // In Spanish too.
      const spanish = await request(
        fx,
        { email: 'saludo@example.test', name: 'https://evil.example' },
        { deviceClass: 'evil.example', ip: '10.2.3.1' },
      );
      const text = await droppedMail(folder, spanish.json().requestId);
      assert.ok(text.startsWith('Hola:\n'), text);
      assert.ok(text.includes('desde un dispositivo.'), text);
      assert.doesNotMatch(text.replace(/Referencia: \S+/, ''), LINKABLE, text);
    });
  });
});

describe('plainWords: what the registration e-mail may quote of its sender', () => {
  it('keeps names of letters, spaces, apostrophes, hyphens and full stops before a space', () => {
    for (const name of [
      'Ana',
      'José-María O’Neil',
      "D'Arcy",
      'Dr. J. Smith',
      'Zoë Ñúñez',
      '王小明',
      'Ana.',
    ]) {
      assert.equal(plainWords(name), name);
    }
    assert.equal(plainWords('  Ana \u00a0 María  '), 'Ana María');
  });

  it('refuses anything a mail client could make a link of', () => {
    for (const name of [
      'evil.example',
      'www.evil.example',
      'https://evil.example',
      'http:evil',
      'ana@evil.example',
      '+34 600 111 222',
      '3232235777',
      'evil。example',
      'evil．example',
      '[Verify](x)',
      '<b>bold</b>',
      '',
      '   ',
    ]) {
      assert.equal(plainWords(name), undefined, name);
    }
    assert.equal(plainWords(undefined), undefined);
  });
});

describe('registration rate limit shared through the database', () => {
  let fx: AccountsFixture;
  let second: App;
  before(async () => {
    fx = await accountsFixture({ REGISTRATION_RATE_LIMIT: '2', MAIL_POLL_INTERVAL_MS: '60000' });
    // A second app on the same store, as a second process behind a load balancer would be.
    second = await buildServiceApp(fx.core, services['client-api']);
    await second.ready();
  });
  after(async () => {
    await second.close();
    await fx.close();
  });

  describe('security', () => {
    it('counts requests made through either app against one limit', async () => {
      const viaSecond = (email: string) =>
        second.inject({
          method: 'POST',
          url: '/api/v1/web/registration/request',
          payload: { email },
          remoteAddress: '10.7.7.7',
        });
      assert.equal((await request(fx, { email: 'shared@example.test' }, { ip: '10.7.7.7' })).statusCode, 200);
      assert.equal((await viaSecond('other@example.test')).statusCode, 200);
      const refused = await viaSecond('third@example.test');
      assert.equal(refused.statusCode, 429);
      assert.equal((await request(fx, { email: 'fourth@example.test' }, { ip: '10.7.7.7' })).statusCode, 429);
    });
  });
});
