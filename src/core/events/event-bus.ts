import type { Logger } from 'pino';

/**
 * Events between the processes of one store (DESIGN §7): a publisher tells the subscribers of a topic
 * that something changed, and each reads what changed from the database, which stays the truth. A
 * payload is small (an id, a short JSON text): at most `MAX_PAYLOAD_BYTES`.
 */
export interface EventBus {
  /**
   * Delivers `payload` to every subscriber of `topic`: at once to those in this process, and shortly after
   * to those of the other processes on the store. Never throws; a failure to tell the others is logged.
   */
  publish(topic: string, payload: string): void;
  /**
   * Calls `handler` with each payload published on `topic`, by this process or another, once. `resync` is
   * called whenever events may have been missed: once the bus first listens, and again after each
   * reconnect; the subscriber then catches up from the database (its watermarks). Returns the
   * unsubscribe function.
   */
  subscribe(topic: string, handler: (payload: string) => void, options?: { resync?: () => void }): () => void;
}

export interface OpenEventBus extends EventBus {
  /** Stops listening; events published until now are still sent to the others. */
  close(): Promise<void>;
}

/** Larger payloads are delivered in this process only (PostgreSQL's NOTIFY takes under 8000 bytes). */
export const MAX_PAYLOAD_BYTES = 4000;

export interface Subscription {
  topic: string;
  handler: (payload: string) => void;
  resync?: () => void;
}

/** The subscribers of one bus by topic, and the guarded calls into them. */
export function createSubscriptions(logger: Logger) {
  const byTopic = new Map<string, Set<Subscription>>();
  const guarded = (topic: string, call: () => void) => {
    try {
      call();
    } catch (error) {
      logger.warn({ err: error, topic }, 'an event subscriber failed');
    }
  };
  return {
    add(subscription: Subscription): () => void {
      let set = byTopic.get(subscription.topic);
      if (!set) {
        set = new Set();
        byTopic.set(subscription.topic, set);
      }
      set.add(subscription);
      return () => {
        set.delete(subscription);
        if (set.size === 0 && byTopic.get(subscription.topic) === set) byTopic.delete(subscription.topic);
      };
    },
    dispatch(topic: string, payload: string): void {
      const set = byTopic.get(topic);
      if (!set) return;
      for (const subscription of [...set]) guarded(topic, () => subscription.handler(payload));
    },
    resyncAll(): void {
      for (const [topic, set] of byTopic) {
        for (const subscription of [...set]) {
          const { resync } = subscription;
          if (resync) guarded(topic, resync);
        }
      }
    },
    get size(): number {
      let size = 0;
      for (const set of byTopic.values()) size += set.size;
      return size;
    },
    clear(): void {
      byTopic.clear();
    },
  };
}

/** Every in-process bus of one embedded store, so that two cores opened on one file in one process share events. */
const localStores = new Map<
  string,
  { subscriptions: ReturnType<typeof createSubscriptions>; open: number }
>();

/**
 * The bus of the embedded (SQLite) store, whose server is one process: an in-process emitter, shared by
 * every core this process opens on the same file (`store`). A subscription is resynced once, at once:
 * nothing can be missed in process.
 */
export function createLocalEventBus(store: string, logger: Logger): OpenEventBus {
  let shared = localStores.get(store);
  if (!shared) {
    shared = { subscriptions: createSubscriptions(logger), open: 0 };
    localStores.set(store, shared);
  }
  shared.open += 1;
  const { subscriptions } = shared;
  const mine = new Set<() => void>();
  let closed = false;
  return {
    publish(topic, payload) {
      subscriptions.dispatch(topic, payload);
    },
    subscribe(topic, handler, options = {}) {
      const remove = subscriptions.add({ topic, handler, resync: options.resync });
      const unsubscribe = () => {
        mine.delete(unsubscribe);
        remove();
      };
      mine.add(unsubscribe);
      if (options.resync) {
        const { resync } = options;
        queueMicrotask(() => {
          if (!mine.has(unsubscribe)) return;
          try {
            resync();
          } catch (error) {
            logger.warn({ err: error, topic }, 'an event subscriber failed');
          }
        });
      }
      return unsubscribe;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const unsubscribe of [...mine]) unsubscribe();
      const current = localStores.get(store);
      if (current && --current.open === 0) localStores.delete(store);
    },
  };
}
