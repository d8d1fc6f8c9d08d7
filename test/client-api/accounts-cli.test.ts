import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUserRepository } from '../../src/client-api/users/repository.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';

describe('sintonia account create / user create', () => {
  let core: TestCore;
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());

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
        '--password',
        'pa55word!',
        '--profile',
        'adult',
        '--profile',
        'kids',
      ],
      core.env,
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

  it('refuses bad input with a message and exit 2, printing nothing on stdout', async () => {
    // A few representative cases (each is a process start); the rules themselves are tested in users.test.ts.
    const cases: Array<[string[], RegExp]> = [
      [['account', 'create'], /--account-number is required/],
      [['account', 'create', '--account-number', 'cli-1'], /exists already/],
      [
        ['user', 'create', '--account', 'nope', '--email', 'x@example.test', '--password', 'longenough'],
        /no account nope/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, core.env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    }
  });
});
