import { after, before } from 'node:test';
import type { App } from '../../../src/core/http/service-app.ts';
import { createTestApp } from '../../helpers/harness.ts';
import { type ModelServer, startModelServer } from './model-server.ts';

export const MODEL_KEY = 'sk-test-upstream-key-never-shown';
// Long enough for a loaded CI machine to answer the happy paths; short enough to keep the timeout tests quick.
export const TIMEOUT_MS = 1000;

export interface ChatApp {
  model: ModelServer;
  app: App;
  /** The app listening on a free port, for the tests that need a real connection. */
  url: string;
  headers: Record<string, string>;
  close(): Promise<void>;
}

/** The agents server with its chat agent over a fake OpenAI-compatible model endpoint. */
export async function startChatApp(timeoutMs = TIMEOUT_MS): Promise<ChatApp> {
  const model = await startModelServer();
  const test = await createTestApp('agents', {
    MODEL_BASE_URL: model.baseUrl,
    MODEL_API_KEY: MODEL_KEY,
    MODEL_NAME: 'test-model',
    MODEL_TIMEOUT_MS: String(timeoutMs),
  });
  const headers = { 'x-api-key': (await test.core.apiKeys.create('runtime', 'chat-test')).key };
  const url = await test.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    model,
    app: test.app,
    url,
    headers,
    async close() {
      await test.close();
      await model.close();
    },
  };
}

/** For the calling suite: `startChatApp` in before(), closed in after(); its fields are read inside tests. */
export function suiteChatApp(timeoutMs = TIMEOUT_MS): Omit<ChatApp, 'close'> {
  let chat: ChatApp | undefined;
  before(async () => {
    chat = await startChatApp(timeoutMs);
  });
  after(() => chat?.close());
  const ready = () => {
    if (chat === undefined) throw new Error("suiteChatApp: read inside a test, after the suite's before()");
    return chat;
  };
  return {
    get model() {
      return ready().model;
    },
    get app() {
      return ready().app;
    },
    get url() {
      return ready().url;
    },
    get headers() {
      return ready().headers;
    },
  };
}
