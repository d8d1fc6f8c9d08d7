import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Type from 'typebox';
import { createAccess, type Declaration } from '../../src/client-api/access.ts';
import type { Guards, SyncGuard } from '../../src/client-api/auth/guards.ts';

/** Guards that are only names, to see which a declaration attaches and where. */
const named = (name: string): SyncGuard => Object.assign((() => undefined) as SyncGuard, { guardName: name });
const guards: Guards = {
  authenticate: Object.assign(async () => undefined, { guardName: 'authenticate' }),
  requireAccount: (param) => named(`account:${param}`),
  requireUserHash: (param) => named(`userHash:${param}`),
  requireOperator: named('operator'),
  requirePerson: named('person'),
};
const names = (hooks: readonly unknown[]) => hooks.map((hook) => (hook as { guardName: string }).guardName);

const { route } = createAccess(guards);
const header = { id: 'Op', summary: 'An operation.', description: 'Does it.', tag: 'devices' };
const params = Type.Object({ accountNumber: Type.String(), userHash: Type.String() });
const declared = (declaration: Omit<Declaration, keyof typeof header>) =>
  route({ ...header, ...declaration }, { params });

describe('client-api access: one declaration makes the guards and the document', () => {
  it('checks the credentials at onRequest and the owner at preHandler', () => {
    const own = declared({ security: 'deviceOrOperator', owner: 'accountNumber', delegated: 'devices:read' });
    assert.deepEqual(names(own.onRequest), ['authenticate']);
    assert.deepEqual(names(own.preHandler), ['account:accountNumber']);
    const document = own.schema as Record<string, unknown>;
    assert.equal(document['x-delegated-scope'], 'devices:read');
    assert.deepEqual(document.security, [{ BearerToken: [] }, { ApiKey: [] }]);

    const user = declared({ security: 'deviceOrOperator', owner: 'userHash' });
    assert.deepEqual(names(user.preHandler), ['userHash:userHash']);
    const person = declared({ security: 'person', owner: 'accountNumber' });
    assert.deepEqual(names(person.onRequest), ['authenticate', 'person']);
    const operator = declared({ security: 'operator' });
    assert.deepEqual(names(operator.onRequest), ['authenticate', 'operator']);
    assert.deepEqual(operator.preHandler, []);
  });

  it('attaches no guard where the operation checks its own credentials', () => {
    for (const security of ['refreshToken', 'basic', 'none'] as const) {
      const open = declared({ security });
      assert.deepEqual([...open.onRequest, ...open.preHandler], [], security);
    }
  });

  it('refuses at start what the guards could not enforce as documented', () => {
    assert.throws(() => declared({ security: 'deviceOrOperator', delegated: 'devices:read' }), /owner/);
    assert.throws(() => declared({ security: 'operator', owner: 'accountNumber' }), /operator-only/);
    assert.throws(() => declared({ security: 'none', owner: 'accountNumber' }), /no owner/);
    assert.throws(
      () =>
        route({ ...header, security: 'deviceOrOperator', owner: 'userHash' }, { params: Type.Object({}) }),
      /no path parameter userHash/,
    );
  });
});
