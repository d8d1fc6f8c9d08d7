import type { Config } from '../../core/config.ts';
import type { Database } from '../../core/db/database.ts';

/** Where the page's Web Chat talks Direct Line, and the origins its Content-Security-Policy lets it reach. */
export interface ChatPageSettings {
  /** Web Chat's `domain`: the Direct Line 3.0 base, `…/v3/directline`. */
  domain: string;
  /** The HTTP origin of that service and its websocket twin (ws: for http:, wss: for https:). */
  connectSources: string[];
}

/**
 * CHAT_PAGE=auto serves the page exactly when `npm start` loads the demo data: SINTONIA_DEMO=1 on the
 * embedded store (PostgreSQL deployments get no demo data, hence no anonymous page).
 */
export function chatPageEnabled(source: {
  config: Pick<Config, 'CHAT_PAGE' | 'SINTONIA_DEMO'>;
  database: Pick<Database, 'dialect'>;
}): boolean {
  const { CHAT_PAGE, SINTONIA_DEMO } = source.config;
  if (CHAT_PAGE !== 'auto') return CHAT_PAGE === 'on';
  return SINTONIA_DEMO === '1' && source.database.dialect === 'sqlite';
}

/**
 * The Direct Line service the page uses: the external one when DIRECTLINE_URL is set (its tokens come
 * from there too), else the embedded channel at the address its stream URLs carry. Read per request: the
 * service's own address is known only once it listens.
 */
export function chatPageSettings(
  settings: Pick<Config, 'DIRECTLINE_URL'>,
  address: () => string,
): ChatPageSettings {
  const base = (settings.DIRECTLINE_URL ?? address()).replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const socketOrigin = origin.replace(/^http/, 'ws');
  return { domain: `${base}/v3/directline`, connectSources: [origin, socketOrigin] };
}
