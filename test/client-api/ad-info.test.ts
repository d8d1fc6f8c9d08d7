import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdBreakRepository } from '../../src/client-api/ad-info/repository.ts';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';
import { decoded } from './bookmarks-media.ts';
import { type FakeSubsystem, startFakeSubsystem } from './campaigns-subsystem-fixture.ts';

const long25 = 'z'.repeat(25);

describe('ad info (local ad table)', () => {
  let fx: AccountsFixture;
  let tv: SignedIn;

  before(async () => {
    fx = await accountsFixture({ AD_VAST_TAG_URL: 'https://ads.example.test/vast?net=1' });
    tv = await fx.signIn((await fx.account('ads-a')).email, 'tv-1');
  });
  after(() => fx.close());

  const adInfo = (path: string, auth: { token?: string; key?: string } = { token: tv.accessToken }) =>
    fx.call('GET', path, auth);

  describe('happy', () => {
    it('200 with the default breaks of the contents type and a VAST tag built from the parameters', async () => {
      const response = await adInfo(
        '/smarttv/Voditems/m-1/ad-info?campaign=spring&campaignId=c7&withTvRights=true&forceFullHd=false',
      );
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.contentId, 'm-1');
      assert.equal(body.contents, 'Voditems');
      assert.equal(body.deviceClass, 'smarttv');
      assert.equal(body.profile, 'anonimo', 'profile defaults to anonimo');
      assert.equal(body.personalised, false);
      assert.deepEqual(body.adBreaks, [
        { position: 'preroll', offset: 0, maxAds: 2 },
        { position: 'postroll', offset: 0, maxAds: 1 },
      ]);
      const vast = new URL(body.vastUrl);
      assert.equal(vast.origin + vast.pathname, 'https://ads.example.test/vast');
      assert.deepEqual(Object.fromEntries(vast.searchParams), {
        net: '1',
        content: 'm-1',
        contents: 'Voditems',
        device: 'smarttv',
        npa: '1',
        kids: '0',
        campaign: 'spring',
        campaignId: 'c7',
        tvrights: '1',
        hd: '0',
        breaks: 'preroll@0,postroll@0',
      });
    });

    it('uses the stored breaks of a content; kids profiles are never personalised; rentals carry no ads', async () => {
      const breaks = createAdBreakRepository(fx.core.database);
      await breaks.put('Events', 'match-9', { position: 'midroll', offset: 900, maxAds: 3 });
      await breaks.put('Events', 'match-9', { position: 'preroll', offset: 0, maxAds: 1 });
      const adult = await adInfo('/android/Events/match-9/ad-info?profile=adult');
      assert.equal(adult.statusCode, 200, adult.body);
      assert.equal(adult.json().personalised, true);
      assert.deepEqual(adult.json().adBreaks, [
        { position: 'preroll', offset: 0, maxAds: 1 },
        { position: 'midroll', offset: 900, maxAds: 3 },
      ]);
      assert.equal(new URL(adult.json().vastUrl).searchParams.get('profile'), 'adult');

      const kids = await adInfo('/android/Events/match-9/ad-info?profile=adult&isKidProfile=true');
      assert.equal(kids.json().personalised, false);
      const kidsVast = new URL(kids.json().vastUrl).searchParams;
      assert.equal(kidsVast.get('kids'), '1');
      assert.equal(kidsVast.get('npa'), '1');
      assert.equal(kidsVast.get('profile'), null);

      const rental = await adInfo('/android/Voditems/m-2/ad-info?isRental=true', { key: fx.operatorKey });
      assert.equal(rental.statusCode, 200, rental.body);
      assert.deepEqual(rental.json().adBreaks, []);
      assert.equal(rental.json().vastUrl, undefined);
    });

    it('204 for Channels and Commercials', async () => {
      for (const contents of ['Channels', 'Commercials']) {
        const response = await adInfo(`/smarttv/${contents}/c-1/ad-info`);
        assert.equal(response.statusCode, 204, contents);
        assert.equal(response.body, '');
      }
      for (const contents of ['U7d', 'Npvr', 'Ltcu']) {
        assert.equal((await adInfo(`/smarttv/${contents}/c-1/ad-info`)).statusCode, 200, contents);
      }
    });

    it('answers in XML and UBJSON too; a 204 in BSON is an empty body', async () => {
      const inject = (path: string, accept: string) =>
        fx.app.inject({
          method: 'GET',
          url: `/api/v1${path}`,
          headers: { authorization: `Bearer ${tv.accessToken}`, accept },
        });
      const xml = await inject('/smarttv/Voditems/x-1/ad-info', 'application/xml');
      assert.equal(xml.statusCode, 200);
      const info = (await decoded(xml)) as { AdInfo: Record<string, unknown> };
      assert.equal(info.AdInfo.contentId, 'x-1');
      assert.equal(info.AdInfo.personalised, 'false');
      const breaks = (info.AdInfo.adBreaks as { AdBreak: Array<Record<string, string>> }).AdBreak;
      assert.deepEqual(
        breaks.map((adBreak) => adBreak.position),
        ['preroll', 'postroll'],
      );
      assert.ok(String(info.AdInfo.vastUrl).startsWith('https://ads.example.test/vast'));

      const ubjson = await inject('/smarttv/U7d/x-2/ad-info', 'application/ubjson');
      assert.equal(ubjson.statusCode, 200);
      const body = (await decoded(ubjson)) as { adBreaks: Array<{ maxAds: number }>; contents: string };
      assert.equal(body.contents, 'U7d');
      assert.equal(body.adBreaks[0]?.maxAds, 2);

      const none = await inject('/smarttv/Channels/ch-1/ad-info', 'application/bson');
      assert.equal(none.statusCode, 204);
      assert.equal(none.rawPayload.length, 0);
    });
  });

  describe('errors', () => {
    it('400 for every parameter over its limit, an unknown contents type and loose booleans', async () => {
      for (const [name, path] of [
        ['deviceClass 25', `/${long25}/Voditems/m-1/ad-info`],
        ['contents unknown', '/smarttv/Movies/m-1/ad-info'],
        ['contentId 25', `/smarttv/Voditems/${long25}/ad-info`],
        ['profile 25', `/smarttv/Voditems/m-1/ad-info?profile=${long25}`],
        ['campaign 25', `/smarttv/Voditems/m-1/ad-info?campaign=${long25}`],
        ['campaignId 25', `/smarttv/Voditems/m-1/ad-info?campaignId=${long25}`],
        ['isKidProfile=yes', '/smarttv/Voditems/m-1/ad-info?isKidProfile=yes'],
        ['isRental=1', '/smarttv/Voditems/m-1/ad-info?isRental=1'],
        ['withTvRights empty', '/smarttv/Voditems/m-1/ad-info?withTvRights='],
        ['forceFullHd=TRUE', '/smarttv/Voditems/m-1/ad-info?forceFullHd=TRUE'],
      ] as const) {
        const response = await adInfo(path);
        assert.equal(response.statusCode, 400, `${name}: ${response.body}`);
        assert.deepEqual(errorTypes(response), ['VALIDATION_ERROR'], name);
      }
      // 24 characters are within the limits.
      const atLimit = await adInfo(
        `/${'d'.repeat(24)}/Voditems/${'i'.repeat(24)}/ad-info?campaign=${'c'.repeat(24)}`,
      );
      assert.equal(atLimit.statusCode, 200, atLimit.body);
    });

    it('500 for a genuine fault, with no detail in the body', async () => {
      await fx.core.database.db.schema.dropTable('ad_breaks').execute();
      const response = await adInfo('/smarttv/Voditems/m-1/ad-info');
      assert.equal(response.statusCode, 500);
      assert.deepEqual(response.json(), {
        code: 'INTERNAL_ERROR',
        message: 'An unexpected error occurred.',
        errors: [{ type: 'INTERNAL_ERROR', message: 'An unexpected error occurred.' }],
      });
    });
  });

  describe('security', () => {
    it('401 without credentials, 403 for a key that is not an operator key, 406 for an unknown Accept', async () => {
      const response = await adInfo('/smarttv/Voditems/m-1/ad-info', {});
      assert.equal(response.statusCode, 401);
      assert.deepEqual(errorTypes(response), ['CREDENTIALS_MISSING']);
      const clientKey = (await fx.core.apiKeys.create('client', 'not an operator')).key;
      const denied = await adInfo('/smarttv/Voditems/m-1/ad-info', { key: clientKey });
      assert.equal(denied.statusCode, 403);
      assert.deepEqual(errorTypes(denied), ['ACCESS_DENIED']);
      const html = await fx.app.inject({
        method: 'GET',
        url: '/api/v1/smarttv/Voditems/m-1/ad-info',
        headers: { authorization: `Bearer ${tv.accessToken}`, accept: 'text/html' },
      });
      assert.equal(html.statusCode, 406);
      assert.deepEqual(errorTypes(html), ['NOT_ACCEPTABLE']);
    });
  });
});

describe('ad info (AD_DECISION_URL)', () => {
  let fx: AccountsFixture;
  let upstream: FakeSubsystem;
  let tv: SignedIn;

  before(async () => {
    upstream = await startFakeSubsystem();
    fx = await accountsFixture({
      AD_DECISION_URL: `${upstream.url}/decide?v=2`,
      SUBSYSTEM_TIMEOUT_MS: '2000',
    });
    tv = await fx.signIn((await fx.account('ads-r')).email, 'tv-1');
  });
  after(async () => {
    await fx.close();
    await upstream.close();
  });

  const decided = {
    contentId: 'm-1',
    contents: 'Voditems',
    deviceClass: 'smarttv',
    profile: 'adult',
    personalised: true,
    adBreaks: [{ position: 'midroll', offset: 600, maxAds: 4 }],
    vastUrl: 'https://decider.example.test/vast/123',
  };

  describe('happy', () => {
    it("answers the decision service's AdInfo, sent every parameter", async () => {
      upstream.mode = { kind: 'answer', status: 200, body: decided };
      const response = await fx.call(
        'GET',
        '/smarttv/Voditems/m-1/ad-info?profile=adult&isKidProfile=false',
        {
          token: tv.accessToken,
        },
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), decided);
      const seen = new URL(`http://x${upstream.seen.at(-1)?.url}`);
      assert.equal(seen.pathname, '/decide');
      assert.deepEqual(Object.fromEntries(seen.searchParams), {
        v: '2',
        deviceClass: 'smarttv',
        contents: 'Voditems',
        contentId: 'm-1',
        profile: 'adult',
        isKidProfile: 'false',
      });
    });

    it('204 when the decision service has none, and for ad-free contents without asking it', async () => {
      upstream.mode = { kind: 'answer', status: 204 };
      assert.equal(
        (await fx.call('GET', '/smarttv/Npvr/r-1/ad-info', { token: tv.accessToken })).statusCode,
        204,
      );
      const asked = upstream.seen.length;
      assert.equal(
        (await fx.call('GET', '/smarttv/Channels/ch-1/ad-info', { token: tv.accessToken })).statusCode,
        204,
      );
      assert.equal(upstream.seen.length, asked);
    });
  });

  describe('errors', () => {
    for (const [name, mode] of [
      ['answers 503', { kind: 'answer', status: 503, body: { error: 'overloaded' } }],
      ['hangs past the timeout', { kind: 'hang' }],
      ['answers something that is not an AdInfo', { kind: 'answer', status: 200, body: { breaks: 'many' } }],
    ] as const) {
      it(`502 when the decision service ${name}`, async () => {
        upstream.mode = mode;
        const response = await fx.call('GET', '/smarttv/Voditems/m-1/ad-info', { token: tv.accessToken });
        assert.equal(response.statusCode, 502, response.body);
        assert.equal(response.json().code, 'BAD_GATEWAY');
        assert.deepEqual(errorTypes(response), ['SUBSYSTEM_ERROR']);
      });
    }
  });
});
