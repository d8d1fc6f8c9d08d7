import { PIPELINE_CLOSED } from './pipeline.ts';

const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
/** SQLSTATEs: connection exceptions (class 08), shutdown and start-up (57P01–57P03), too many connections. */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What node-postgres and pg-pool say when a connection is lost or cannot be had. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  PIPELINE_CLOSED,
];

/**
 * Errors that say the store cannot answer right now, not that the request or the code is wrong: the
 * connection to PostgreSQL refused, lost, timed out or shut down by the server, PostgreSQL starting up or
 * out of connections, SQLite busy past its timeout. The request is answered 503 with Retry-After, so a
 * client tries again, instead of 500.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NODE_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  }
  return typeof message === 'string' && DRIVER_MESSAGES.some((known) => message.startsWith(known));
}
