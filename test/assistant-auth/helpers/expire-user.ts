import type { AssistantAuthTables } from '../../../src/assistant-auth/tables.ts';
import type { TestCore } from '../../helpers/harness.ts';

/** Lets an assistantId's lifetime pass by moving its expiry into the past, rather than sleeping for it. */
export async function expireUser(core: TestCore, assistantId: string): Promise<void> {
  await core.database.db
    .withTables<AssistantAuthTables>()
    .updateTable('assistant_users')
    .set({ expires_at: Date.now() - 1 })
    .where('assistant_id', '=', assistantId)
    .execute();
}
