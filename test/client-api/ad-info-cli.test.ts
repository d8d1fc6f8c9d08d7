import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/processes.ts';
import { type AccountsFixture, accountsFixture } from './accounts-fixtures.ts';

/** `ad-break set`'s arguments: a valid pre-roll of content `x`, with one value changed. */
const setArgs = (change: {
  contents?: string;
  content?: string;
  position?: string;
  offset?: string;
  maxAds?: string;
}) => {
  const value = {
    contents: 'Voditems',
    content: 'x',
    position: 'preroll',
    offset: '0',
    maxAds: '1',
    ...change,
  };
  return [
    ...['--contents', value.contents, '--content', value.content, '--position', value.position],
    ...['--offset', value.offset, '--max-ads', value.maxAds],
  ];
};

describe('ad-break and mail outbox commands', () => {
  let fx: AccountsFixture;
  before(async () => {
    fx = await accountsFixture({ MAIL_POLL_INTERVAL_MS: '60000' });
  });
  after(() => fx.close());

  describe('happy', () => {
    it('ad-break set/list/delete edit the local ad table that ad-info reads', async () => {
      const set = await runCli(
        [
          'ad-break',
          'set',
          ...setArgs({ content: 'film-1', position: 'midroll', offset: '1200', maxAds: '3' }),
        ],
        fx.core.env,
      );
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), {
        contents: 'Voditems',
        contentId: 'film-1',
        adBreaks: [{ position: 'midroll', offset: 1200, maxAds: 3 }],
      });
      const info = await fx.call('GET', '/web/Voditems/film-1/ad-info', { key: fx.operatorKey });
      assert.equal(info.statusCode, 200, info.body);
      assert.deepEqual(info.json().adBreaks, [{ position: 'midroll', offset: 1200, maxAds: 3 }]);

      const list = await runCli(
        ['ad-break', 'list', '--contents', 'Voditems', '--content', 'film-1'],
        fx.core.env,
      );
      assert.equal(JSON.parse(list.stdout).adBreaks.length, 1);
      const removed = await runCli(
        [
          'ad-break',
          'delete',
          '--contents',
          'Voditems',
          '--content',
          'film-1',
          '--position',
          'midroll',
          '--offset',
          '1200',
        ],
        fx.core.env,
      );
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(JSON.parse(removed.stdout).adBreaks, []);
      // Back to the defaults of the contents type.
      const defaults = await fx.call('GET', '/web/Voditems/film-1/ad-info', { key: fx.operatorKey });
      assert.equal(defaults.json().adBreaks[0].position, 'preroll');
    });

    it('mail outbox counts the outbox without showing addresses', async () => {
      const queued = await fx.app.inject({
        method: 'POST',
        url: '/api/v1/web/registration/request',
        payload: { email: 'outbox@example.test' },
      });
      assert.equal(queued.statusCode, 200, queued.body);
      const result = await runCli(['mail', 'outbox'], fx.core.env);
      assert.equal(result.code, 0, result.stderr);
      const status = JSON.parse(result.stdout);
      assert.equal(status.pending + status.sent, 1);
      assert.equal(status.failed, 0);
      assert.ok(!result.stdout.includes('outbox@example.test'));
    });
  });

  describe('errors', () => {
    it('ad-break refuses bad input with a usage error', async () => {
      for (const args of [
        setArgs({ contents: 'Movies' }),
        setArgs({ content: 'x'.repeat(25) }),
        setArgs({ position: 'sideroll' }),
        setArgs({ offset: '-5' }),
        setArgs({ maxAds: '11' }),
      ]) {
        const result = await runCli(['ad-break', 'set', ...args], fx.core.env);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      }
    });
  });
});
