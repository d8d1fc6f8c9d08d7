import WebSocket from 'ws';
import XMLHttpRequest from 'xhr2';

export type DirectLineOptions = import('botframework-directlinejs').DirectLineOptions;

/**
 * botframework-directlinejs, loaded for Node: a browser library, it needs XMLHttpRequest and WebSocket as
 * globals. `socket` replaces the WebSocket class (a test may observe the streams the client opens).
 */
export async function directLineJs(socket: new (url: string) => WebSocket = WebSocket) {
  Object.assign(globalThis, { XMLHttpRequest, WebSocket: socket });
  return import('botframework-directlinejs');
}
