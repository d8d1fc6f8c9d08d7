import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { httpErrors } from '../errors.ts';

/**
 * What Node refuses before Fastify sees a request (too slow, headers too large, not HTTP): the family's
 * error body, then the connection closes, as Node itself does.
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? httpErrors.REQUEST_TIMEOUT()
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? httpErrors.HEADERS_TOO_LARGE()
        : httpErrors.MALFORMED_REQUEST();
  const body = JSON.stringify(problem.toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
