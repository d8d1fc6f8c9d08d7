import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, BASE, PASSWORD } from './accounts-fixtures.ts';
import { errorOf, formatNames, readBody, writeBody } from './media-formats.ts';

/**
 * The media-type plugin on real client API routes: a Credential body and a bare-string body read in each
 * type, a list written in each type, errors rendered in each type, int64 path ids beyond 2^53 refused.
 */
describe('media types on the real client-api routes', () => {
  let fixture: AccountsFixture;
  let accountNumber: string;
  let email: string;
  let token: string;

  before(async () => {
    fixture = await accountsFixture();
    ({ accountNumber, email } = await fixture.account('media-acc-1'));
    token = (await fixture.signIn(email, 'tv-json')).accessToken;
  });
  after(async () => fixture.close());

  for (const type of formatNames) {
    describe(type, () => {
      it('signs in with a Credential body in this type and answers tokens in it', async () => {
        const credential = { username: email, password: PASSWORD, deviceId: `tv-${type.split('/')[1]}` };
        const response = await fixture.app.inject({
          method: 'POST',
          url: `${BASE}/auth/smarttv/users/authenticate`,
          headers: { 'content-type': type, accept: type },
          payload: writeBody(type, credential, 'Credential'),
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(String(response.headers['content-type']).startsWith(type));
        const body = (await readBody(response)) as Record<string, Record<string, Record<string, unknown>>>;
        const root = type === 'application/xml' ? Object.values(body)[0] : body;
        assert.equal(typeof root?.tokens?.accessToken, 'string');
      });

      it('renames a device with a bare string body in this type', async () => {
        const name = `Den TV ${type.split('/')[1]} & co`;
        const payload =
          type === 'application/xml'
            ? Buffer.from(`<string>Den TV xml &amp; co</string>`)
            : writeBody(type, name);
        const response = await fixture.app.inject({
          method: 'PUT',
          url: `${BASE}/accounts/${accountNumber}/devices/tv-json/name`,
          headers: { 'content-type': type, accept: type, authorization: `Bearer ${token}` },
          payload,
        });
        assert.equal(response.statusCode, 200, response.body);
        const check = await fixture.call('GET', `/accounts/${accountNumber}/devices/tv-json/name`, { token });
        assert.deepStrictEqual(check.json(), { mediaPlayerId: 'tv-json', name });
      });

      it('lists the devices in this type (ArrayOfDeviceBase in XML, "0","1"… in BSON)', async () => {
        const response = await fixture.app.inject({
          url: `${BASE}/accounts/${accountNumber}/devices`,
          headers: { accept: type, authorization: `Bearer ${token}` },
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers.vary, 'Accept');
        const json = await fixture.call('GET', `/accounts/${accountNumber}/devices`, { token });
        const ids = (json.json() as { mediaPlayerId: string }[]).map((device) => device.mediaPlayerId);
        const body = await readBody(response);
        let seen: string[];
        if (type === 'application/xml') {
          const devices = (body as { ArrayOfDeviceBase: { DeviceBase: unknown } }).ArrayOfDeviceBase
            .DeviceBase;
          seen = ([] as { mediaPlayerId: string }[])
            .concat(devices as never)
            .map((device) => device.mediaPlayerId);
        } else {
          const list = Array.isArray(body) ? body : Object.values(body as object);
          seen = (list as { mediaPlayerId: string }[]).map((device) => device.mediaPlayerId);
        }
        assert.deepStrictEqual(seen, ids);
      });

      it('answers a missing token with 401 in this type', async () => {
        const response = await fixture.app.inject({
          url: `${BASE}/accounts/${accountNumber}/devices`,
          headers: { accept: type },
        });
        assert.equal(response.statusCode, 401);
        assert.ok(String(response.headers['content-type']).startsWith(type));
        assert.equal(errorOf(type, await readBody(response)).code, 'UNAUTHORIZED');
      });
    });
  }

  it('refuses a content id beyond 2^53-1 in the path with 400 instead of rounding it', async () => {
    const response = await fixture.call('PUT', '/smarttv/contents/movies/9007199254740993/ratings/4', {
      token,
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /contentId/);
  });

  it('refuses BSON whose lengths point backwards or past the end with 400, and keeps answering', async () => {
    // A string element whose length is -2 used to send the depth walk back to the same element forever.
    const bodies = [-2, -16, -1, 0, 0x7fffffff].map((length) => {
      const body = Buffer.from([0x0a, 0, 0, 0, 0x0f, 0, 0, 0, 0, 0]);
      body.writeInt32LE(length, 6);
      return body;
    });
    for (const type of [0x02, 0x03, 0x05, 0x0c, 0x0f]) {
      const body = Buffer.from([0x0e, 0, 0, 0, type, 0x61, 0, 0xf0, 0xff, 0xff, 0xff, 0, 0, 0]);
      bodies.push(body);
    }
    for (const payload of bodies) {
      const response = await fixture.app.inject({
        method: 'POST',
        url: `${BASE}/auth/web/users/authenticate`,
        headers: { 'content-type': 'application/bson' },
        payload,
      });
      assert.equal(response.statusCode, 400, `${payload.toString('hex')}: ${response.body}`);
      assert.equal(response.json().errors[0].type, 'MALFORMED_BODY');
    }
    const health = await fixture.app.inject({ url: '/healthz' });
    assert.equal(health.statusCode, 200);
  });
});
