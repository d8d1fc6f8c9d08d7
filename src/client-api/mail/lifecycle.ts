import type { Core } from '../../core/core.ts';
import type { App } from '../../core/http/service-app.ts';
import { OUTBOX_KEY_PURPOSE } from './outbox.ts';
import { createMailTransport } from './transport.ts';
import { createMailWorker, type MailWorker } from './worker.ts';

/**
 * The outbox worker of this process: it starts once the app is ready (so messages left by a crashed
 * process go out on the next start) and stops, finishing its current message, when the app closes.
 */
export function attachMailWorker(app: App, core: Core): MailWorker {
  const worker = createMailWorker({
    db: core.database.db.withTables(),
    key: core.key(OUTBOX_KEY_PURPOSE),
    transport: createMailTransport(core.config),
    logger: core.logger.child({ component: 'mail-worker' }),
    config: core.config,
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());
  return worker;
}
