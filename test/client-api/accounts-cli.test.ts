import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { composeClientApi } from '../../src/client-api/composition.ts';
import { verifyPassword } from '../../src/client-api/users/passwords.ts';
import { createUserRepository } from '../../src/client-api/users/repository.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';

describe('sintonia account create / user create / account stream-limit', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

  describe('happy', () => {
    it('creates an account and a user, each printing one JSON object; the password is stored as scrypt', async () => {
      const account = await runCli(['account', 'create', '--account-number', 'cli-1'], core.env);
      assert.equal(account.code, 0, account.stderr);
      const printed = JSON.parse(account.stdout);
      assert.deepEqual(Object.keys(printed).sort(), ['accountNumber', 'createdAt', 'userHash']);
      assert.equal(printed.accountNumber, 'cli-1');
      assert.ok(printed.userHash.length <= 48);

      const user = await runCli(
        [
          'user',
          'create',
          '--account',
          'cli-1',
          '--email',
          'Ana@Example.test',
          '--password-stdin',
          '--profile',
          'adult',
          '--profile',
          'kids',
        ],
        core.env,
        'pa55word!\n',
      );
      assert.equal(user.code, 0, user.stderr);
      const created = JSON.parse(user.stdout);
      assert.equal(created.email, 'ana@example.test');
      assert.equal(created.accountNumber, 'cli-1');
      assert.equal(created.userHash, printed.userHash);
      assert.deepEqual(created.profiles, ['adult', 'kids']);
      assert.ok(!user.stdout.includes('pa55word!'));
      const [stored] = await createUserRepository(core.database).findByEmail('ana@example.test');
      assert.match(String(stored?.passwordHash), /^scrypt\$32768\$8\$1\$/);
      assert.ok(!String(stored?.passwordHash).includes('pa55word!'));
    });

    it('reads the password from a file (--password-file), its one line without the line break', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'sintonia-password-'));
      try {
        const file = join(folder, 'password');
        writeFileSync(file, 'from a file 123\n', { mode: 0o600 });
        const args = ['user', 'create', '--account', 'cli-1', '--email', 'file@example.test'];
        const user = await runCli([...args, '--password-file', file], core.env);
        assert.equal(user.code, 0, user.stderr);
        const [stored] = await createUserRepository(core.database).findByEmail('file@example.test');
        assert.equal(await verifyPassword('from a file 123', String(stored?.passwordHash)), true);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });
    it('sets an account’s stream limit (account stream-limit), which its playback answers from then on', async () => {
      const created = await runCli(['account', 'create', '--account-number', 'cli-limit'], core.env);
      assert.equal(created.code, 0, created.stderr);
      const { playback } = composeClientApi(core);
      assert.equal((await playback.watching('cli-limit')).limit, 2, 'PLAYBACK_STREAM_LIMIT before');
      const set = await runCli(
        ['account', 'stream-limit', '--account', 'cli-limit', '--limit', '4'],
        core.env,
      );
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), { accountNumber: 'cli-limit', streamLimit: 4 });
      assert.equal((await playback.watching('cli-limit')).limit, 4);
    });
  });

  describe('errors', () => {
    it('refuses bad input with a message and exit 2, printing nothing on stdout', async () => {
      // A few representative cases (each is a process start); the rules themselves are tested in users.test.ts.
      const cases: Array<[string[], RegExp]> = [
        [['account', 'create'], /--account-number is required/],
        [['account', 'create', '--account-number', 'cli-1'], /exists already/],
        [
          ['user', 'create', '--account', 'nope', '--email', 'x@example.test', '--password-stdin'],
          /no account nope/,
        ],
        [
          ['user', 'create', '--account', 'cli-1', '--email', 'y@example.test', '--password', 'longenough'],
          /--password is refused: .*process list.*--password-file FILE or --password-stdin/,
        ],
        [
          ['user', 'create', '--account', 'cli-1', '--email', 'y@example.test'],
          /--password-file FILE or --password-stdin is required/,
        ],
        [
          [
            'user',
            'create',
            '--account',
            'cli-1',
            '--email',
            'y@example.test',
            '--password-file',
            '/nonexistent',
          ],
          /--password-file: ENOENT/,
        ],
        [
          ['user', 'create', '--account', 'cli-1', '--account', 'cli-2', '--email', 'y@example.test'],
          /--account is given more than once/,
        ],
        [['account', 'stream-limit', '--account', 'nope', '--limit', '3'], /no account nope/],
        [
          ['account', 'stream-limit', '--account', 'cli-1', '--limit', '21'],
          /--limit is a whole number from 0 to 20/,
        ],
        [['account', 'stream-limit', '--account', 'cli-1', '--limit', 'two'], /--limit is a whole number/],
        [['account', 'stream-limit', '--account', 'cli-1'], /--limit is required/],
      ];
      for (const [args, message] of cases) {
        const result = await runCli(args, core.env, 'longenough\n');
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, message);
        assert.equal(result.stdout, '');
      }
    });
  });
});
