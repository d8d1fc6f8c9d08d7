import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { composeClientApi } from '../../src/client-api/composition.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';
import { type FetchedAnswer as Answer, callerInFormat, type FormatName } from './media-formats.ts';

const ACCOUNT = 'ho-1';

/**
 * POST /accounts/{accountNumber}/playback/handoff (issue 43 item 5), through real HTTP with real command
 * streams: the source's stream becomes the target's within the account's limit, the target is told to play
 * from the source's position and the source to stop; its errors, and who may hand off.
 */
describe('playback handoff', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let base: string;
  let operatorKey: string;
  let tokens: Record<string, string>;
  let stranger: string;
  let userHash: string;
  const held = new Map<string, SseStream>();

  before(async () => {
    const started = await startTestFamily(['client-api'], {
      SINTONIA_DEMO: '0',
      COMMAND_STREAM_KEEPALIVE: '1',
    });
    ({ core, close } = started);
    base = `${started.family.url('client-api')}/api/v1`;
    operatorKey = (await core.apiKeys.create('backoffice', 'handoff test')).key;
    tokens = await signedInHousehold(core, base, {
      accountNumber: ACCOUNT,
      email: 'ho-1@example.test',
      devices: [
        ['tv-living', 'Living room TV'],
        ['tv-bedroom', 'Bedroom TV'],
        ['tv-kids', 'Kids TV'],
        ['phone', 'Phone'],
      ],
    });
    ({ 'tv-other': stranger = '' } = await signedInHousehold(core, base, {
      accountNumber: 'ho-2',
      email: 'ho-2@example.test',
      devices: [['tv-other', 'Other TV']],
    }));
    userHash = (await composeClientApi(core).repositories.accounts.find(ACCOUNT))?.userHash ?? '';
    // At a limit of 1 a handoff that counted both devices for a moment would be refused.
    assert.equal(
      (await call('PUT', `/accounts/${ACCOUNT}/stream-limit/1`, { key: operatorKey })).status,
      200,
    );
  });
  after(async () => {
    for (const stream of held.values()) stream.close();
    await close();
  });

  const call = callerInFormat(() => base, 'PlaybackHandoff');
  const hold = async (device: string) => {
    const stream = await openSse(`${base}/smarttv/${device}/commands`, {
      authorization: `Bearer ${tokens[device]}`,
    });
    assert.equal(stream.status, 200, stream.body);
    await stream.comment('connected');
    held.set(device, stream);
    return stream;
  };
  const play = (device: string, contentId: number, offset: number) =>
    call('PUT', `/smarttv/${device}/users/${userHash}/playback/${contentId}?offset=${offset}`, {
      token: tokens[device],
    });
  const stop = (device: string) =>
    call('DELETE', `/smarttv/${device}/users/${userHash}/playback`, { token: tokens[device] });
  const handoff = (
    body: unknown,
    auth: { token?: string; key?: string } = { token: tokens.phone },
    type?: FormatName,
  ) => call('POST', `/accounts/${ACCOUNT}/playback/handoff`, auth, body, type);
  const playing = async () => {
    const answer = await call('GET', `/accounts/${ACCOUNT}/playback`, { key: operatorKey });
    const streams = answer.body.streams as Array<{ deviceId: string; contentId: number; offset: number }>;
    return streams.map(({ deviceId, contentId, offset }) => [deviceId, contentId, offset]);
  };
  const errorType = (answer: Answer) =>
    (answer.body.errors as Array<{ type: string }> | undefined)?.[0]?.type;

  describe('happy', () => {
    it('moves the stream within a limit of 1: the target is told to play from the position, the source to stop', async () => {
      const living = await hold('tv-living');
      const bedroom = await hold('tv-bedroom');
      assert.equal((await play('tv-living', 7001, 120)).status, 200);

      const answer = await handoff({ from: 'tv-living', to: 'tv-bedroom' });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      assert.equal(answer.body.contentId, 7001);
      assert.equal(answer.body.offset, 120);
      const to = answer.body.to as { deviceId: string; command: Record<string, unknown> };
      assert.equal(to.deviceId, 'tv-bedroom');
      assert.deepEqual([to.command.type, to.command.contentId, to.command.offset], ['play', 7001, 120]);
      const from = answer.body.from as { deviceId: string; command: Record<string, unknown> };
      assert.deepEqual([from.deviceId, from.command.type], ['tv-living', 'stop']);

      const told = JSON.parse((await bedroom.next()).data) as Record<string, unknown>;
      assert.deepEqual([told.id, told.type, told.contentId, told.offset], [to.command.id, 'play', 7001, 120]);
      assert.equal(JSON.parse((await living.next()).data).type, 'stop');
      assert.deepEqual(await playing(), [['tv-bedroom', 7001, 120]]);
      // The target's own report goes on within the limit: the place is its own.
      assert.equal((await play('tv-bedroom', 7001, 125)).status, 200);
      // The source, told to stop, cannot start again while the target plays.
      assert.equal((await play('tv-living', 7001, 125)).status, 409);
      assert.equal((await stop('tv-bedroom')).status, 204);
    });

    it('in XML too, by an operator; a source whose command stream closed still loses its stream', async () => {
      await hold('tv-kids');
      assert.equal((await play('tv-living', 7002, 30)).status, 200);
      held.get('tv-living')?.close();
      const answer = await handoff(
        { from: 'tv-bedroom', to: 'tv-kids' },
        { key: operatorKey },
        'application/xml',
      );
      // tv-bedroom plays nothing: refused in XML, in the family body.
      assert.equal(answer.status, 409);
      const moved = await handoff(
        { from: 'tv-living', to: 'tv-kids' },
        { key: operatorKey },
        'application/xml',
      );
      assert.equal(moved.status, 202);
      assert.deepEqual(await playing(), [['tv-kids', 7002, 30]]);
      assert.equal((await stop('tv-kids')).status, 204);
    });
  });

  describe('errors', () => {
    it('400 HANDOFF_SAME_DEVICE, 409 NOTHING_PLAYING, 404 DEVICE_NOT_FOUND', async () => {
      const same = await handoff({ from: 'tv-living', to: 'tv-living' });
      assert.deepEqual([same.status, errorType(same)], [400, 'HANDOFF_SAME_DEVICE']);
      const nothing = await handoff({ from: 'tv-living', to: 'tv-bedroom' });
      assert.deepEqual([nothing.status, errorType(nothing)], [409, 'NOTHING_PLAYING']);
      const unknown = await handoff({ from: 'tv-living', to: 'no-such-tv' });
      assert.deepEqual([unknown.status, errorType(unknown)], [404, 'DEVICE_NOT_FOUND']);
      const missing = await handoff({ from: 'tv-living' });
      assert.equal(missing.status, 400);
    });

    it('409 DEVICE_NOT_CONNECTED when the target holds no command stream, and nothing changes', async () => {
      assert.equal((await play('phone', 7003, 10)).status, 200);
      const answer = await handoff({ from: 'phone', to: 'tv-living' });
      assert.deepEqual([answer.status, errorType(answer)], [409, 'DEVICE_NOT_CONNECTED']);
      assert.deepEqual(await playing(), [['phone', 7003, 10]]);
      assert.equal((await stop('phone')).status, 204);
    });
  });

  describe('security', () => {
    it('401 without a token, 403 for another account’s device', async () => {
      assert.equal((await handoff({ from: 'tv-living', to: 'tv-kids' }, {})).status, 401);
      assert.equal((await handoff({ from: 'tv-living', to: 'tv-kids' }, { token: stranger })).status, 403);
    });
  });
});
