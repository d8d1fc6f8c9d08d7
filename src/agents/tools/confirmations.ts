import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../../core/db/database.ts';
import { decrypt, encrypt, keyedHash } from '../../core/secrets.ts';
import type { ConfirmationEvent } from '../metrics.ts';
import { createConfirmationRepository } from './confirmation-repository.ts';

/** A changing tool runs only if the person confirms within this time. */
export const CONFIRMATION_TTL_MS = 120_000;
const SETTLED_KEPT_MS = 86_400_000;

/** Who may confirm: the person speaking, in that conversation. */
export interface ConfirmationOwner {
  assistantId: string;
  conversationId: string;
}

export interface PendingAction {
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** SHA-256 (hex) of the tool and its canonical arguments. */
  hash: string;
  expiresAt: number;
}

/** JSON with object keys sorted, so equal arguments always hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function actionHash(tool: string, args: Record<string, unknown>): string {
  return createHash('sha256')
    .update(`${tool}\n${canonical(args)}`)
    .digest('hex');
}

/** What the confirmations are built on: the store and the master key's derivations (a Core has both). */
export interface ConfirmationStore {
  database: Database;
  key(purpose: string): Buffer;
}

/**
 * Confirmation requests in the store, so any process of the agents server can settle them: each is bound
 * to the hash of its tool and arguments, lives CONFIRMATION_TTL_MS, and is settled once (a conditional
 * update: of two concurrent confirmations only one runs the action). A newer request, a "no" or any other
 * turn cancels the ones pending in that conversation.
 */
export function createConfirmations(
  store: ConfirmationStore,
  now: () => number = Date.now,
  observe: (event: ConfirmationEvent) => void = () => {},
) {
  const repository = createConfirmationRepository(store.database);
  const ownerKey = store.key('agent-confirmation-owner');
  const sealKey = store.key('agent-confirmation-arguments');
  const ownerHash = (owner: ConfirmationOwner) =>
    keyedHash(ownerKey, `${owner.assistantId}\n${owner.conversationId}`);
  const cancelPending = (owner: ConfirmationOwner) => repository.settleAll(ownerHash(owner), now());

  return {
    /** Records a request (cancelling any other pending in the conversation); answers what to confirm. */
    async request(
      owner: ConfirmationOwner,
      tool: string,
      args: Record<string, unknown>,
    ): Promise<PendingAction> {
      await cancelPending(owner);
      const id = randomUUID();
      const at = now();
      const pending: PendingAction = {
        id,
        tool,
        arguments: args,
        hash: actionHash(tool, args),
        expiresAt: at + CONFIRMATION_TTL_MS,
      };
      await repository.insert({
        id,
        owner_hash: ownerHash(owner),
        tool,
        arguments_sealed: encrypt(sealKey, JSON.stringify(args), id),
        arguments_hash: pending.hash,
        created_at: at,
        expires_at: pending.expiresAt,
        settled_at: null,
      });
      // Settled rows are kept a day at most: nothing reads them, they only make a replay visible in logs.
      await repository.removeExpiredBefore(at - SETTLED_KEPT_MS);
      observe('asked');
      return pending;
    },

    /**
     * Settles the newest pending request of the conversation and answers it, if it is unexpired and its
     * arguments still hash to what was asked (`hash`, when the caller names one); undefined otherwise.
     */
    async confirm(owner: ConfirmationOwner, hash?: string): Promise<PendingAction | undefined> {
      const at = now();
      const row = await repository.newestUnsettled(ownerHash(owner));
      if (!row) return undefined;
      const settled = await repository.settle(row.id, at);
      if (!settled) return undefined;
      if (row.expires_at <= at) {
        observe('expired');
        return undefined;
      }
      const args = JSON.parse(decrypt(sealKey, row.arguments_sealed, row.id).toString('utf8')) as Record<
        string,
        unknown
      >;
      const actual = actionHash(row.tool, args);
      if (actual !== row.arguments_hash || (hash !== undefined && hash !== actual)) return undefined;
      observe('confirmed');
      return { id: row.id, tool: row.tool, arguments: args, hash: actual, expiresAt: row.expires_at };
    },

    /** Cancels what is pending in the conversation; answers whether anything was. */
    async cancel(owner: ConfirmationOwner): Promise<boolean> {
      const declined = (await cancelPending(owner)) > 0;
      if (declined) observe('declined');
      return declined;
    },
  };
}

export type Confirmations = ReturnType<typeof createConfirmations>;
