import assert from 'node:assert/strict';
import { channelSecret } from '../../../src/assistant-auth/directline/credentials.ts';
import { type Env, startTestFamily, type TestCore } from '../../helpers/harness.ts';
import { sample, scrape } from '../../helpers/metrics-text.ts';

/** What starting a conversation answers (`POST /v3/directline/conversations`, `GET /token/wss`). */
export interface ConversationAnswer {
  conversationId: string;
  token: string;
  expires_in: number;
  streamUrl: string;
}

/** The family's error body, as every refusal of the channel carries it. */
export interface ErrorBody {
  code: string;
  message: string;
  errors: Array<{ type: string; message: string }>;
}

/** A file of an activity, as the channel lists it. */
export interface SeenAttachment {
  contentType: string;
  contentUrl: string;
  name: string;
}

/** An activity as a client reads it from `GET …/activities`. */
export interface SeenActivity {
  type: string;
  id: string;
  text?: string;
  replyToId?: string;
  locale?: string;
  from: { id: string; role?: string };
  attachments?: SeenAttachment[];
  channelData?: { clientActivityID?: string };
}

/** What a request to the channel carries: a bearer (a secret or a conversation's token) or any other
 * Authorization value, a JSON body, other headers. */
export interface DirectLineRequest {
  bearer?: string;
  authorization?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request to the channel at `base`. */
export function directLineCall(
  base: string,
  method: string,
  path: string,
  { bearer, authorization = bearer && `Bearer ${bearer}`, body, headers = {} }: DirectLineRequest = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...headers,
      ...(authorization ? { authorization } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** One request to the channel at `base` with a bearer token: its status and JSON body. */
export async function directLineJson(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await directLineCall(base, method, path, { bearer: token, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The conversation's activities as its own token reads them. */
export async function activitiesOf(base: string, of: ConversationAnswer): Promise<SeenActivity[]> {
  const response = await directLineCall(
    base,
    'GET',
    `/v3/directline/conversations/${of.conversationId}/activities`,
    { bearer: of.token },
  );
  assert.equal(response.status, 200);
  return ((await response.json()) as { activities: SeenActivity[] }).activities;
}

/** Requests refused at `limit`, as assistant-auth's /metrics counts them. */
export async function limitRefusals(core: TestCore, limit: string): Promise<number> {
  const text = await scrape(core, core.serviceUrl('assistant-auth'));
  return sample(text, 'sintonia_limit_refusals_total', { limit }) ?? 0;
}

/**
 * assistant-auth alone, its embedded channel under the given settings, for tests that need no answer
 * from the agent: an unreachable agents server stands behind it. `start` and `stop` go in before/after.
 */
export function embeddedChannel(overrides: Env = {}) {
  let core: TestCore | undefined;
  let close: () => Promise<void> = async () => {};
  let base = '';
  const channel = {
    get core(): TestCore {
      assert.ok(core, 'the channel is started in before()');
      return core;
    },
    get base() {
      return base;
    },
    async start() {
      ({ core, close } = await startTestFamily(['assistant-auth'], {
        AGENTS_URL: 'http://127.0.0.1:9/',
        ...overrides,
      }));
      base = core.serviceUrl('assistant-auth');
    },
    stop: () => close(),
    /** `POST /v3/directline/conversations` with the channel's secret, as a trusted page's server does. */
    startConversation: () =>
      directLineCall(base, 'POST', '/v3/directline/conversations', {
        bearer: channelSecret(channel.core),
        body: {},
      }),
    /** Requests refused at `limit`, as the channel's /metrics counts them. */
    refusals: (limit: string) => limitRefusals(channel.core, limit),
    /** A new conversation (asserts the 201). */
    async conversation(): Promise<ConversationAnswer> {
      const response = await channel.startConversation();
      assert.equal(response.status, 201);
      return (await response.json()) as ConversationAnswer;
    },
  };
  return channel;
}
