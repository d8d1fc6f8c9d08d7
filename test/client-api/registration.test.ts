import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serialize } from 'bson';
import { type App, buildServiceApp } from '../../src/core/http/service-app.ts';
import { services } from '../../src/family.ts';
import { until } from '../helpers/until.ts';
import { type AccountsFixture, accountsFixture, errorTypes } from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';
import { header, type SmtpSink, startSmtpSink, textBody } from './mail-smtp-fixture.ts';

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

  it('400 for a bad body or path, 415 for another media type, 413 past BODY_LIMIT', async () => {
    for (const [name, body, deviceClass] of [
      ['not an e-mail', { email: 'not-an-address' }, undefined],
      ['no e-mail', { name: 'Ana' }, undefined],
      ['unknown field', { email: 'a@example.test', admin: true }, undefined],
      ['unknown language', { email: 'a@example.test', language: 'fr' }, undefined],
      ['name too long', { email: 'a@example.test', name: 'n'.repeat(101) }, undefined],
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

describe('registration e-mail into the mail drop', () => {
  let fx: AccountsFixture;
  before(async () => {
    fx = await accountsFixture({ MAIL_POLL_INTERVAL_MS: '50' });
  });
  after(() => fx.close());

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
});

describe('registration request in other media types', () => {
  let fx: AccountsFixture;
  before(async () => {
    fx = await accountsFixture({ MAIL_POLL_INTERVAL_MS: '50' });
  });
  after(() => fx.close());

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
    const fromBson = (await decoded(bson)) as { RegistrationAccepted: { status: string; requestId: string } };
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
