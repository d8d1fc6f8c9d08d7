import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AccountsFixture, accountsFixture, errorTypes, type SignedIn } from './accounts-fixtures.ts';

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';

interface Operation {
  method: Method;
  path: string;
  operationId: string;
  hasBody: boolean;
}

/**
 * Every operation of the served document that takes a device's access token: a bearer token, and 401
 * TOKEN_INVALID among its documented errors (the refresh-token operations answer REFRESH_TOKEN_INVALID).
 */
async function deviceTokenOperations(f: AccountsFixture): Promise<Operation[]> {
  const document = await f.document();
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const security = (operation.security ?? document.security ?? []) as Array<Record<string, unknown>>;
      if (!security.some((requirement) => 'BearerToken' in requirement)) continue;
      if (!operation['x-error-types']?.['401']?.includes('TOKEN_INVALID')) continue;
      operations.push({
        method: method.toUpperCase() as Method,
        path,
        operationId: operation.operationId,
        hasBody: (operation.parameters ?? []).some((parameter) => parameter.in === 'body'),
      });
    }
  }
  return operations;
}

/**
 * For every operation the client API's served document lists with a bearer token, a device token whose
 * session is closed, idle past SESSION_IDLE_TIMEOUT or unknown is 401 with the family's error body: the
 * guard checks the session of every device token, so no route can leave it out.
 */
describe('client-api: a closed, idle or unknown session is refused on every operation that takes a device token', () => {
  let f: AccountsFixture;
  let userHash: string;
  let platformUserId: string;
  let open: SignedIn;
  const refused: Record<'closed' | 'idle' | 'unknown', SignedIn | undefined> = {
    closed: undefined,
    idle: undefined,
    unknown: undefined,
  };
  let operations: Operation[];

  const sessions = () => f.core.database.db.withTables<{ sessions: { id: string; last_used_at: number } }>();

  before(async () => {
    f = await accountsFixture();
    ({ userHash } = await f.account('sr-1'));
    open = await f.signIn('sr-1@example.test', 'tv-1');
    platformUserId = open.platformUserId;
    refused.closed = await f.signIn('sr-1@example.test', 'tv-closed');
    refused.idle = await f.signIn('sr-1@example.test', 'tv-idle');
    refused.unknown = await f.signIn('sr-1@example.test', 'tv-unknown');
    const closed = await f.call('DELETE', '/accounts/sr-1/devices/tv-closed/sessions', {
      key: f.operatorKey,
    });
    assert.equal(closed.statusCode, 204, closed.body);
    const idleSince = Date.now() - (f.core.config.SESSION_IDLE_TIMEOUT + 60) * 1000;
    await sessions()
      .updateTable('sessions')
      .set({ last_used_at: idleSince })
      .where('id', '=', refused.idle.sessionId)
      .execute();
    await sessions().deleteFrom('sessions').where('id', '=', refused.unknown.sessionId).execute();
    // What a close does: every process forgets what it remembered of sessions (SQLite's change signal).
    f.core.database.changeSignal('sessions')?.change();
    operations = await deviceTokenOperations(f);
  });
  after(() => f.close());

  /** The operation's path with the signed-in account's own values, so only the session can be wrong. */
  const fill = (path: string) =>
    path
      .replace('{accountNumber}', 'sr-1')
      .replace('{userHash}', userHash)
      .replace('{platformUserId}', platformUserId)
      .replace('{deviceClass}', 'smarttv')
      .replace(/\{(mediaPlayerId|deviceId)\}/g, 'tv-1')
      .replace(/\{[^}]+\}/g, '1');

  const send = (operation: Operation, token: string) =>
    f.call(operation.method, fill(operation.path), { token }, operation.hasBody ? 'Den' : undefined);

  it('the document lists the device-token operations, the hot paths among them', () => {
    const ids = operations.map((operation) => operation.operationId);
    for (const id of [
      'Bookmarks_GetBookmarkAsync',
      'Bookmarks_AddBookmarkAsync',
      'AccountManagement_GetValidDevicesAsync',
    ]) {
      assert.ok(ids.includes(id), `${id} takes a device token`);
    }
    assert.ok(operations.length >= 20, `only ${operations.length} operations take a device token`);
  });

  it('an open session is not refused by a read (the refusals below are the session, not the request)', async () => {
    for (const operation of operations.filter((candidate) => ['GET', 'HEAD'].includes(candidate.method))) {
      const answer = await send(operation, open.accessToken);
      assert.notEqual(answer.statusCode, 401, `${operation.method} ${operation.path}: ${answer.body}`);
    }
  });

  for (const kind of ['closed', 'idle', 'unknown'] as const) {
    it(`a ${kind} session's token is 401 TOKEN_INVALID on every one of them`, async () => {
      const token = refused[kind]?.accessToken;
      assert.ok(token);
      for (const operation of operations) {
        const answer = await send(operation, token);
        const where = `${operation.method} ${operation.path}: ${answer.body}`;
        assert.equal(answer.statusCode, 401, where);
        // A HEAD answer carries no body, by HTTP: its status is the refusal.
        if (operation.method === 'HEAD') continue;
        assert.deepEqual(errorTypes(answer), ['TOKEN_INVALID'], where);
        assert.equal(answer.json().code, 'UNAUTHORIZED', where);
      }
    });
  }
});
