import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { openSse, type SseStream } from '../helpers/sse.ts';
import { type FetchedAnswer as Answer, callerInFormat, type FormatName } from './media-formats.ts';

/**
 * Devices that obey (issue 43 item 4), through real HTTP: a device holds its command stream (Server-Sent
 * Events), another device of the account or an operator sends it commands (202, or 409 when no stream is
 * held), the device acknowledges them, and their state reads sent, delivered, acknowledged or expired.
 */
describe('client-api: device commands and the command stream', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let base: string;
  let operatorKey: string;
  let tokens: Record<string, string>;
  let others: Record<string, string>;
  const open: SseStream[] = [];

  before(async () => {
    // A request timeout far under the streams' life: a stream must outlive it. Keep-alives every second.
    const started = await startTestFamily(['client-api'], {
      SINTONIA_DEMO: '0',
      HTTP_REQUEST_TIMEOUT_MS: '500',
      HTTP_HEADERS_TIMEOUT_MS: '500',
      COMMAND_STREAM_KEEPALIVE: '1',
      COMMANDS_PER_SENDER: '8',
      COMMANDS_PER_DEVICE: '3',
    });
    ({ core, close } = started);
    base = `${started.family.url('client-api')}/api/v1`;
    operatorKey = (await core.apiKeys.create('backoffice', 'commands test')).key;
    tokens = await signedInHousehold(core, base, {
      accountNumber: 'cmd-1',
      email: 'cmd-1@example.test',
      devices: [
        ['tv-living', 'Living room TV'],
        ['phone', 'Phone'],
        ['tv-kids', 'Kids TV'],
        ['tv-full', 'Full TV'],
        ['tv-ticket', 'Ticket TV'],
        ['remote', 'Remote'],
      ],
    });
    others = await signedInHousehold(core, base, {
      accountNumber: 'cmd-2',
      email: 'cmd-2@example.test',
      devices: [['tv-other', 'Other TV']],
    });
  });
  after(async () => {
    for (const stream of open) stream.close();
    await close();
  });

  const stream = async (device: string, headers: Record<string, string> = {}, token = tokens[device]) => {
    const opened = await openSse(`${base}/smarttv/${device}/commands`, {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    });
    open.push(opened);
    return opened;
  };

  const call = callerInFormat(() => base, 'DeviceCommand');

  const send = (device: string, body: unknown, auth: { token?: string; key?: string }, type?: FormatName) =>
    call('POST', `/accounts/cmd-1/devices/${device}/commands`, auth, body, type);
  const status = (device: string, id: unknown) =>
    call('GET', `/accounts/cmd-1/devices/${device}/commands/${String(id)}`, { key: operatorKey });
  const ack = (device: string, id: unknown, token = tokens[device]) =>
    call('POST', `/smarttv/${device}/commands/${String(id)}/ack`, { token });
  const errorType = (answer: Answer) => {
    const errors = answer.body.errors as
      | Array<{ type: string }>
      | { ErrorItem: { type: string } }
      | undefined;
    if (Array.isArray(errors)) return errors[0]?.type;
    return errors?.ErrorItem.type;
  };

  describe('happy', () => {
    it('a command sent by another device reaches the stream as EventSource reads it; ack and status follow', async () => {
      const tv = await stream('tv-living');
      assert.equal(tv.status, 200, tv.body);
      assert.match(tv.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(tv.headers.get('cache-control'), 'no-cache');
      assert.equal(tv.headers.get('x-accel-buffering'), 'no');
      await tv.comment('connected');

      const sent = await send('tv-living', { type: 'pause' }, { token: tokens.phone });
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      assert.equal(sent.body.state, 'sent');
      assert.equal(sent.body.type, 'pause');
      const event = await tv.next();
      assert.equal(event.event, 'command');
      assert.equal(event.id, sent.body.id);
      assert.deepEqual(
        { ...JSON.parse(event.data), sentAt: undefined, expiresAt: undefined },
        { id: sent.body.id, type: 'pause', sentAt: undefined, expiresAt: undefined },
      );
      assert.equal((await status('tv-living', sent.body.id)).body.state, 'delivered');
      assert.equal((await ack('tv-living', sent.body.id)).status, 204);
      assert.equal((await ack('tv-living', sent.body.id)).status, 204, 'again is the same');
      const acknowledged = await status('tv-living', sent.body.id);
      assert.equal(acknowledged.body.state, 'acknowledged');
      assert.ok(acknowledged.body.acknowledgedAt);
    });

    it('in BSON and XML too: play with contentId and offset, sent by an operator', async () => {
      const tv = await stream('tv-kids');
      await tv.comment('connected');
      for (const type of ['application/bson', 'application/xml'] as const) {
        const sent = await send(
          'tv-kids',
          { type: 'play', contentId: 42, offset: 90 },
          { key: operatorKey },
          type,
        );
        assert.equal(sent.status, 202, `${type}: ${JSON.stringify(sent.body)}`);
        assert.equal(sent.body.state, 'sent');
        assert.equal(String(sent.body.contentId), '42');
        const data = JSON.parse((await tv.next()).data);
        assert.deepEqual([data.id, data.type, data.contentId, data.offset], [sent.body.id, 'play', 42, 90]);
        assert.equal((await ack('tv-kids', sent.body.id)).status, 204);
      }
    });

    it('the stream outlives the request timeout, with a keep-alive comment each interval', async () => {
      const tv = await stream('tv-living');
      await tv.comment('keep-alive');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const sent = await send('tv-living', { type: 'stop' }, { token: tokens.phone });
      assert.equal(sent.status, 202);
      assert.equal((await tv.next()).id, sent.body.id);
    });

    it('Last-Event-ID resumes: the commands after it not acknowledged are sent again', async () => {
      const first = await stream('tv-living');
      await first.comment('connected');
      const one = await send('tv-living', { type: 'pause' }, { token: tokens.phone });
      const two = await send('tv-living', { type: 'resume' }, { token: tokens.phone });
      assert.equal((await first.next()).id, one.body.id);
      assert.equal((await first.next()).id, two.body.id);
      first.close();
      const again = await stream('tv-living', { 'last-event-id': String(one.body.id) });
      assert.equal((await again.next()).id, two.body.id);
      assert.equal((await ack('tv-living', two.body.id)).status, 204);
    });

    it('a second stream of the device replaces the first', async () => {
      const first = await stream('tv-living');
      await first.comment('connected');
      const second = await stream('tv-living');
      await second.comment('connected');
      await first.ended;
      const sent = await send('tv-living', { type: 'stop' }, { token: tokens.phone });
      assert.equal((await second.next()).id, sent.body.id);
      assert.equal(
        first.events.some((event) => event.id === sent.body.id),
        false,
      );
    });

    it('a ticket opens the stream without headers, as a browser EventSource does', async () => {
      const asked = await call('POST', '/smarttv/tv-ticket/commands/ticket', { token: tokens['tv-ticket'] });
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      assert.equal(asked.body.expiresIn, 60);
      const url = String(asked.body.streamUrl);
      assert.ok(url.startsWith(`${base}/smarttv/tv-ticket/commands?t=`), url);
      const tv = await openSse(url);
      open.push(tv);
      assert.equal(tv.status, 200, tv.body);
      await tv.comment('connected');
      const sent = await send('tv-ticket', { type: 'stop' }, { key: operatorKey });
      assert.equal((await tv.next()).id, sent.body.id);
      assert.equal((await ack('tv-ticket', sent.body.id)).status, 204);
    });
  });

  describe('errors', () => {
    it('409 DEVICE_NOT_CONNECTED when no stream is held; 404 for a device the account does not have', async () => {
      const none = await send('phone', { type: 'stop' }, { key: operatorKey });
      assert.equal(none.status, 409);
      assert.equal(errorType(none), 'DEVICE_NOT_CONNECTED');
      const unknown = await send('no-such-tv', { type: 'stop' }, { key: operatorKey });
      assert.equal(unknown.status, 404);
      assert.equal(errorType(unknown), 'DEVICE_NOT_FOUND');
    });

    it('play without contentId is 400; an unknown type is 400; an unknown command is 404', async () => {
      const play = await send('tv-kids', { type: 'play' }, { key: operatorKey });
      assert.equal(play.status, 400);
      assert.equal(errorType(play), 'COMMAND_CONTENT_REQUIRED');
      assert.equal((await send('tv-kids', { type: 'explode' }, { key: operatorKey })).status, 400);
      const missing = await status('tv-kids', 'nope');
      assert.equal(missing.status, 404);
      assert.equal(errorType(missing), 'COMMAND_NOT_FOUND');
      assert.equal((await ack('tv-kids', 'nope')).status, 404);
    });

    it('a command not acknowledged within COMMAND_TTL reads expired, and its ack is 409', async () => {
      const tv = await stream('tv-kids');
      await tv.comment('connected');
      const sent = await send('tv-kids', { type: 'pause' }, { key: operatorKey });
      await tv.next();
      await core.database.db
        .withTables<{ device_commands: { id: string; expires_at: number } }>()
        .updateTable('device_commands')
        .set({ expires_at: Date.now() - 1000 })
        .where('id', '=', String(sent.body.id))
        .execute();
      assert.equal((await status('tv-kids', sent.body.id)).body.state, 'expired');
      const late = await ack('tv-kids', sent.body.id);
      assert.equal(late.status, 409);
      assert.equal(errorType(late), 'COMMAND_EXPIRED');
    });

    it('COMMANDS_PER_DEVICE unacknowledged, then 429 with Retry-After', async () => {
      const tv = await stream('tv-full');
      await tv.comment('connected');
      for (let index = 0; index < 3; index += 1) {
        assert.equal((await send('tv-full', { type: 'pause' }, { key: operatorKey })).status, 202);
      }
      const refused = await send('tv-full', { type: 'pause' }, { key: operatorKey });
      assert.equal(refused.status, 429);
      assert.equal(errorType(refused), 'COMMANDS_PENDING_LIMITED');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    });

    it('COMMANDS_PER_SENDER per window, then 429 COMMANDS_LIMITED with Retry-After', async () => {
      // tv-ticket's stream (the ticket test's) is open; each command is acknowledged: only the sender counts.
      let answer: Answer | undefined;
      for (let index = 0; index < 9; index += 1) {
        answer = await send('tv-ticket', { type: 'stop' }, { token: tokens.remote });
        if (answer.status !== 202) break;
        assert.equal((await ack('tv-ticket', answer.body.id)).status, 204);
      }
      assert.equal(answer?.status, 429);
      assert.equal(errorType(answer as Answer), 'COMMANDS_LIMITED');
      assert.ok(Number(answer?.headers.get('retry-after')) >= 1);
    });

    it('a stream asked without Accept: text/event-stream is 406', async () => {
      const answer = await call('GET', '/smarttv/tv-living/commands', { token: tokens['tv-living'] });
      assert.equal(answer.status, 406);
    });
  });

  describe('security', () => {
    it('no token is 401 on every operation', async () => {
      assert.equal((await stream('tv-living', {}, '')).status, 401);
      assert.equal((await send('tv-living', { type: 'stop' }, {})).status, 401);
      assert.equal((await ack('tv-living', 'x', '')).status, 401);
      assert.equal((await call('GET', '/accounts/cmd-1/devices/tv-living/commands/x', {})).status, 401);
      assert.equal((await call('POST', '/smarttv/tv-living/commands/ticket', {})).status, 401);
    });

    it("another account's device token is 403: it sends, reads, streams or acknowledges nothing here", async () => {
      const other = others['tv-other'];
      assert.equal((await send('tv-living', { type: 'stop' }, { token: other })).status, 403);
      assert.equal(
        (await call('GET', '/accounts/cmd-1/devices/tv-living/commands/x', { token: other })).status,
        403,
      );
      assert.equal((await stream('tv-living', {}, other)).status, 403);
      assert.equal((await ack('tv-living', 'x', other)).status, 403);
      assert.equal((await call('POST', '/smarttv/tv-living/commands/ticket', { token: other })).status, 403);
    });

    it("a device cannot hold another device's stream, nor acknowledge its commands; operators hold none", async () => {
      assert.equal((await stream('tv-living', {}, tokens.phone)).status, 403);
      assert.equal((await ack('tv-living', 'x', tokens.phone)).status, 403);
      const operator = await openSse(`${base}/smarttv/tv-living/commands`, { 'x-api-key': operatorKey });
      assert.equal(operator.status, 403);
    });

    it("a ticket opens only its own device's stream, and a forged one nothing", async () => {
      const asked = await call('POST', '/smarttv/tv-ticket/commands/ticket', { token: tokens['tv-ticket'] });
      const ticket = encodeURIComponent(String(asked.body.ticket));
      const elsewhere = await openSse(`${base}/smarttv/tv-living/commands?t=${ticket}`);
      assert.equal(elsewhere.status, 401);
      assert.match(elsewhere.body, /COMMAND_STREAM_TICKET_INVALID/);
      assert.equal((await openSse(`${base}/smarttv/tv-ticket/commands?t=forged`)).status, 401);
    });

    it("a closed session's token and ticket are refused, and its open stream ends", async () => {
      const held = await stream('tv-full');
      await held.comment('connected');
      const asked = await call('POST', '/smarttv/tv-full/commands/ticket', { token: tokens['tv-full'] });
      const signOut = await call('DELETE', '/accounts/cmd-1/devices/tv-full/sessions', { key: operatorKey });
      assert.equal(signOut.status, 204);
      assert.equal((await stream('tv-full')).status, 401);
      const ticket = encodeURIComponent(String(asked.body.ticket));
      assert.equal((await openSse(`${base}/smarttv/tv-full/commands?t=${ticket}`)).status, 401);
      assert.equal((await ack('tv-full', 'x')).status, 401);
      await held.ended;
      // The stream's record is gone before its end is sent: not connected from the moment the TV sees it.
      const after = await send('tv-full', { type: 'stop' }, { token: tokens.phone });
      assert.equal(after.status, 409, 'a signed-out device is not connected');
    });
  });
});
