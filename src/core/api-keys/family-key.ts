import { createHmac } from 'node:crypto';
import type { Core } from '../core.ts';

/** The name `sintonia key list` shows for the family's own key. */
export const FAMILY_KEY_NAME = 'family (derived from the master key)';

/**
 * The runtime key with which the family's services call each other when ASSISTANT_RUNTIME_KEY is not set:
 * the agents server asking assistant-auth for delegated tokens, and the chat page's sign-in vouching for a
 * person's address to client-api. Its id and secret are derived from the master key the store is at
 * (purpose `family-runtime-key`), so every process of one store makes the same key with no setting of its
 * own, another environment (another master key) a different one, and a master-key rotation a new one. The
 * first process to derive it records it in the store like any key (hashed), where it shows in `sintonia key
 * list` and falls with `sintonia key revoke` as any other: a revoked one is not recorded again (the same
 * master key derives the same id), until the master key changes. Once a rotation is over (no process is
 * given SINTONIA_MASTER_KEY_PREVIOUS), a process revokes the key the previous master key derived.
 * docs/decisions-production.md.
 */
export async function familyRuntimeKey(
  core: Pick<Core, 'key' | 'apiKeys' | 'logger' | 'config'>,
): Promise<string> {
  const derived = core.key('family-runtime-key');
  const id = createHmac('sha256', derived).update('id').digest('hex').slice(0, 16);
  const secret = createHmac('sha256', derived).update('secret').digest('base64url');
  if (await core.apiKeys.record('runtime', FAMILY_KEY_NAME, id, secret))
    core.logger.info({ keyId: id }, 'recorded the family’s runtime key, derived from the master key');
  // A rotation is over once no process is given the previous master key: the key derived from it goes.
  if (core.config.SINTONIA_MASTER_KEY_PREVIOUS === undefined) {
    for (const old of await core.apiKeys.list()) {
      if (old.name !== FAMILY_KEY_NAME || old.id === id || old.revokedAt !== null) continue;
      await core.apiKeys.revoke(old.id);
      core.logger.info({ keyId: old.id }, 'revoked the family’s runtime key of the previous master key');
    }
  }
  if (!(await core.apiKeys.isLive(id))) {
    core.logger.error(
      { keyId: id },
      'the family’s runtime key is revoked: the assistant cannot act on linked accounts until ASSISTANT_RUNTIME_KEY names a live runtime key or the master key is rotated',
    );
  }
  return `snt_runtime_${id}_${secret}`;
}
