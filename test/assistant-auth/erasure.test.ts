import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { assistantAuthService } from '../../src/assistant-auth/service.ts';
import { loadConfig } from '../../src/core/config.ts';
import { openCore } from '../../src/core/core.ts';
import { buildServiceApp } from '../../src/core/http/service-app.ts';
import { suiteApp, type TestCore } from '../helpers/harness.ts';
import { expireUser } from './helpers/expire-user.ts';

/** Every row of every table, as text: what a scan for personal data looks through. */
async function dumpAllTables(core: TestCore): Promise<Record<string, string>> {
  const tables = await core.database.db.introspection.getTables({ withInternalKyselyTables: true });
  const dump: Record<string, string> = {};
  for (const table of tables) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(
      core.database.db,
    );
    dump[table.name] = JSON.stringify(rows.rows);
  }
  return dump;
}

describe('erasure by phone number', () => {
  const suite = suiteApp('assistant-auth', ['gateway', 'runtime'], {
    ASSISTANT_ID_TTL_BY_CHANNEL: 'kiosk=60,web=3600',
  });

  const channelLogin = async (channel: string, identity: string, phone?: string) => {
    const response = await suite.app.inject({
      url: '/users/assistant-id',
      headers: {
        'x-api-key': suite.key('gateway'),
        'x-channel': channel,
        'x-channel-user-id': identity,
        ...(phone ? { 'x-phone-number': phone } : {}),
      },
    });
    assert.ok([200, 201].includes(response.statusCode), response.body);
    return response.json() as { assistantId: string; assistantIdGlobal: string };
  };

  describe('happy', () => {
    it('removes every record of the person and leaves no trace of the number or the ids', async () => {
      const phone = '+34600111222';
      const kioskIdentity = `kiosk-user-${randomUUID()}`;
      const webIdentity = `web-user-${randomUUID()}`;
      // The person: on the kiosk with the number, again on the kiosk after expiry (no number sent), on the
      // web through the gateway's callback, and under an external id on WhatsApp.
      const kiosk = await channelLogin('kiosk', kioskIdentity, phone);
      await expireUser(suite.core, kiosk.assistantId);
      const kioskAgain = await channelLogin('kiosk', kioskIdentity);
      assert.notEqual(kioskAgain.assistantId, kiosk.assistantId);
      assert.equal(kioskAgain.assistantIdGlobal, kiosk.assistantIdGlobal);
      const { data } = makeCallbackParam(suite.core, {
        identity: webIdentity,
        channel: 'web',
        phoneNumber: phone,
      });
      const web = await suite.app.inject({
        url: `/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
      });
      assert.equal(web.statusCode, 201);
      assert.equal(web.json().assistantIdGlobal, kiosk.assistantIdGlobal);
      const externalId = `whatsapp-${randomUUID()}`;
      const whatsapp = await suite.app.inject({
        url: `/users/assistant-id/${externalId}`,
        headers: { 'x-api-key': suite.key('runtime'), 'x-channel': 'whatsapp', 'x-phone-number': phone },
      });
      assert.equal(whatsapp.statusCode, 201);
      assert.equal(whatsapp.json().assistantIdGlobal, kiosk.assistantIdGlobal);
      // Somebody else, who must survive.
      const other = await channelLogin('web', `other-${randomUUID()}`, '+34600999888');

      const personal = [
        phone,
        phone.slice(1),
        kiosk.assistantId,
        kioskAgain.assistantId,
        kiosk.assistantIdGlobal,
        web.json().assistantId,
        externalId,
      ];
      const before = Object.values(await dumpAllTables(suite.core)).join('\n');
      assert.ok(before.includes(kiosk.assistantId));
      assert.ok(!before.includes(phone.slice(1)), 'the number is never stored in clear');
      assert.ok(!before.includes(kioskIdentity), 'channel identities are stored only hashed');

      const erased = await suite.app.inject({
        method: 'DELETE',
        url: `/admin/users/phone-numbers/${encodeURIComponent(phone)}`,
        headers: { 'x-api-key': suite.key('gateway') },
      });
      assert.equal(erased.statusCode, 204);
      assert.equal(erased.body, '');

      const after = await dumpAllTables(suite.core);
      for (const [table, rows] of Object.entries(after)) {
        for (const value of personal) assert.ok(!rows.includes(value), `${table} still holds ${value}`);
      }
      assert.ok(after.assistant_users?.includes(other.assistantId), 'the other person is kept');
      assert.match(after.audit_log ?? '', /assistant-user\.erase-by-phone/);
      assert.match(after.audit_log ?? '', /"subject":"4 records"/);

      for (const assistantId of [kiosk.assistantId, web.json().assistantId, externalId]) {
        const read = await suite.app.inject({
          url: `/users/${assistantId}`,
          headers: { 'x-api-key': suite.key('runtime') },
        });
        assert.equal(read.statusCode, 404);
      }
      const again = await suite.app.inject({
        method: 'DELETE',
        url: `/admin/users/phone-numbers/${encodeURIComponent(phone)}`,
        headers: { 'x-api-key': suite.key('gateway') },
      });
      assert.equal(again.statusCode, 404);
      assert.equal(again.json().errors[0].type, 'PHONE_NUMBER_NOT_FOUND');
    });
  });

  describe('errors', () => {
    it('answers a number that is not E.164 with 400', async () => {
      for (const bad of ['600111222', '+0600111222', '+34-600', '%2B34abc']) {
        const response = await suite.app.inject({
          method: 'DELETE',
          url: `/admin/users/phone-numbers/${bad}`,
          headers: { 'x-api-key': suite.key('gateway') },
        });
        assert.equal(response.statusCode, 400, bad);
        assert.equal(response.json().errors[0].type, 'VALIDATION_ERROR');
      }
    });
  });

  describe('security', () => {
    it('writes no log line holding the erased number', async () => {
      const lines: string[] = [];
      const capture = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      // A second process on the same store, logging at info level into memory.
      const loggingCore = await openCore(
        loadConfig({ ...suite.core.env, LOG_LEVEL: 'info' } as NodeJS.ProcessEnv),
        {
          logger: pino({ level: 'info' }, capture),
        },
      );
      const loggingApp = await buildServiceApp(loggingCore, assistantAuthService);
      try {
        const phone = '+34655443322';
        await channelLogin('web', randomUUID(), phone);
        const erased = await loggingApp.inject({
          method: 'DELETE',
          url: `/admin/users/phone-numbers/${encodeURIComponent(phone)}`,
          headers: { 'x-api-key': suite.key('gateway') },
        });
        assert.equal(erased.statusCode, 204);
        const ping = await loggingApp.inject({
          url: '/ping',
          headers: { 'x-api-key': suite.key('gateway') },
        });
        assert.equal(ping.statusCode, 200);
        const logged = lines.join('');
        assert.match(logged, /\/ping/, 'other requests are logged');
        assert.ok(!logged.includes(phone.slice(1)), 'the number is not logged');
      } finally {
        await loggingApp.close();
        await loggingCore.close();
      }
    });
  });
});
