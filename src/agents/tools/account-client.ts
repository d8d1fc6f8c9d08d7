import { LRUCache } from 'lru-cache';
import type { Config } from '../../core/config.ts';
import type { DelegationScope } from '../../core/delegation.ts';
import { type ErrorBody, ProblemError, subsystemErrors } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import { AgentConfigException, AgentExternalServiceException } from '../exceptions.ts';
import { type HouseholdSession, householdSession } from './household-client.ts';

/** A device as the assistant's tools see it (client-api's DeviceBase). */
export interface AccountDevice {
  mediaPlayerId: string;
  name: string;
  deviceClass: string;
  enabled: boolean;
  playing: boolean;
  /** Whether it holds an open session (client-api's signed-in list); absent when not asked. */
  signedIn?: boolean;
}

/** A playback position of the person (client-api's Bookmark): where they stopped in a content item. */
export interface AccountBookmark {
  contentId: number;
  /** Seconds into the content. */
  offset: number;
  deviceId: string;
  /** When the position was taken (ISO 8601). */
  at: string;
}

/** A refusal of client-api the person can act on (an unknown device, the device limit…). */
export interface AccountRefusal {
  status: number;
  type: string;
}

export type AccountChange = { ok: true } | { ok: false; refusal: AccountRefusal };

/** The account actions, on one linked account, with a delegated token (the household's: household-client.ts). */
export interface AccountSession extends HouseholdSession {
  readonly accountNumber: string;
  devices(): Promise<AccountDevice[]>;
  /** The mediaPlayerIds playing now. */
  playing(): Promise<string[]>;
  rename(mediaPlayerId: string, name: string): Promise<AccountChange>;
  setEnabled(mediaPlayerId: string, enabled: boolean): Promise<AccountChange>;
  /** Closes every session of the device: its tokens are refused at once. */
  signOut(mediaPlayerId: string): Promise<AccountChange>;
  /** The mediaPlayerIds with an open session. */
  signedIn(): Promise<string[]>;
  /** The person's bookmarks, newest first; of one content item with `contentId`. */
  recentBookmarks(limit: number, contentId?: number): Promise<AccountBookmark[]>;
  /** Closes every session of the account (sign out everywhere), this conversation's link included. */
  signOutEverywhere(): Promise<AccountChange>;
  /** The TV waiting to be signed in with this code (tv-sign-in.ts), or client-api's refusal. */
  tvSignIn(
    userCode: string,
  ): Promise<{ ok: true; signIn: TvSignIn } | { ok: false; refusal: AccountRefusal }>;
  /** Signs that TV in to the account, or refuses it. */
  decideTvSignIn(userCode: string, approve: boolean): Promise<AccountChange>;
}

/** A TV waiting to be signed in with a code (client-api's DeviceSignIn). */
export interface TvSignIn {
  userCode: string;
  deviceClass: string;
  deviceId: string;
  /** The TV's own word for itself: untrusted text. */
  deviceName: string;
  requestedAt: string;
  /** The address it asked from, coarsely (an IPv4 /24, an IPv6 /48). */
  requestedFrom: string;
}

export type SessionOutcome = { linked: true; session: AccountSession } | { linked: false };

export interface AccountClient {
  /**
   * The speaker's linked account, or `linked: false` when the person has not linked one. `requestId` (the
   * turn's) goes with every call as X-Request-Id, so the other services' log lines carry it.
   */
  forSpeaker(assistantId: string, requestId?: string): Promise<SessionOutcome>;
}

interface DelegationAnswer {
  token: string;
  accountNumber: string;
  expiresIn: number;
}

const SCOPES: DelegationScope[] = [
  'devices:read',
  'devices:write',
  'sessions:write',
  'bookmarks:read',
  'devices:pair',
  'playback:read',
  'devices:control',
];
/** Statuses of client-api that are the person's business (told in words), not a failure of ours. */
const REFUSALS = [400, 404, 409];
/** Linked speakers whose delegated token is kept; the least recently used goes first. */
const CACHED_DELEGATIONS = 10_000;
/** A token is not reused in its last seconds, so it cannot expire on its way to client-api. */
const REUSE_MARGIN_S = 30;

function errorType(body: unknown): string {
  return (body as Partial<ErrorBody> | undefined)?.errors?.[0]?.type ?? 'UNKNOWN';
}

/** A failure of a service the agent called, with the family's error type as its service_error_code. */
function external(service: string, error: unknown): never {
  if (error instanceof AgentExternalServiceException) throw error;
  const code = error instanceof ProblemError ? error.type : 'UNREACHABLE';
  throw new AgentExternalServiceException(`The ${service} service could not complete the account action.`, {
    service_name: service,
    service_error_code: code,
    cause: error,
  });
}

/** What the account client reads: its configuration slice and where its two sibling services answer. */
export interface AccountClientDeps {
  config: Pick<Config, 'SUBSYSTEM_TIMEOUT_MS' | 'ASSISTANT_RUNTIME_KEY' | 'CLIENT_API_BASE_PATH'>;
  /** Asked at each call: a service learns its siblings' addresses only once they listen. */
  serviceUrl(name: 'assistant-auth' | 'client-api'): string;
}

/**
 * The agents server acting for a linked person: it asks assistant-auth for a delegated token (with the
 * runtime key ASSISTANT_RUNTIME_KEY) and calls client-api with it. A token is reused until 30 s before
 * it expires.
 */
export function createAccountClient(deps: AccountClientDeps): AccountClient {
  const {
    SUBSYSTEM_TIMEOUT_MS: timeoutMs,
    ASSISTANT_RUNTIME_KEY: runtimeKey,
    CLIENT_API_BASE_PATH,
  } = deps.config;
  const cached = new LRUCache<string, DelegationAnswer>({ max: CACHED_DELEGATIONS });
  const base = (name: 'assistant-auth' | 'client-api') => deps.serviceUrl(name).replace(/\/+$/, '');

  async function delegation(assistantId: string, requestId?: string): Promise<DelegationAnswer | undefined> {
    const hit = cached.get(assistantId);
    if (hit) return hit;
    if (!runtimeKey) {
      throw new AgentConfigException(
        'ASSISTANT_RUNTIME_KEY is not set: the agents server cannot act on linked accounts.',
      );
    }
    const answer = await callSubsystem<DelegationAnswer>(
      {
        subsystem: 'assistant-auth',
        url: `${base('assistant-auth')}/users/${encodeURIComponent(assistantId)}/delegations`,
        method: 'POST',
        headers: { 'x-api-key': runtimeKey },
        body: { audience: 'client-api', scope: SCOPES },
        timeoutMs,
        requestId,
      },
      [404, 409, 410],
    ).catch((error: unknown) => external('assistant-auth', error));
    if (answer.status !== 201 || answer.body === undefined) {
      cached.delete(assistantId);
      return undefined;
    }
    const lifetimeMs = (answer.body.expiresIn - REUSE_MARGIN_S) * 1000;
    // A token too short-lived to reuse is not kept (a ttl of 0 would keep it for ever).
    if (lifetimeMs > 0) cached.set(assistantId, answer.body, { ttl: lifetimeMs });
    else cached.delete(assistantId);
    return answer.body;
  }

  function sessionFor(
    assistantId: string,
    { token, accountNumber }: DelegationAnswer,
    requestId?: string,
  ): AccountSession {
    const account = `${base('client-api')}${CLIENT_API_BASE_PATH}/accounts/${encodeURIComponent(accountNumber)}`;
    const call = async <T>(path: string, method = 'GET', accept: number[] = [], body?: unknown) => {
      const answer = await callSubsystem<T>(
        {
          subsystem: 'client-api',
          url: `${account}${path}`,
          method,
          headers: { authorization: `Bearer ${token}` },
          body,
          timeoutMs,
          requestId,
        },
        [...accept, 401],
      ).catch((error: unknown) => external('client-api', error));
      // Refused: the person signed out or was unlinked since. The token goes, so the next turn asks
      // assistant-auth again, which tells whether the person is still linked.
      if (answer.status === 401) {
        cached.delete(assistantId);
        external('client-api', subsystemErrors.SUBSYSTEM_ERROR('client-api refused the delegated token.'));
      }
      return answer;
    };
    const change = async (path: string, method: string, body?: unknown): Promise<AccountChange> => {
      const answer = await call<unknown>(path, method, REFUSALS, body);
      if (answer.status < 300) return { ok: true };
      return { ok: false, refusal: { status: answer.status, type: errorType(answer.body) } };
    };
    const device = (id: string) => `/devices/${encodeURIComponent(id)}`;
    return {
      accountNumber,
      ...householdSession(call, errorType),
      async devices() {
        return (await call<AccountDevice[]>('/devices')).body ?? [];
      },
      async playing() {
        return (await call<string[]>('/devices/playing')).body ?? [];
      },
      // The body is the bare new name, a JSON string.
      rename: (id, name) => change(`${device(id)}/name`, 'PUT', name),
      setEnabled: (id, enabled) => change(`${device(id)}/enabled/${enabled}`, 'PUT'),
      signOut: (id) => change(`${device(id)}/sessions`, 'DELETE'),
      async signedIn() {
        return (await call<string[]>('/devices/signed-in')).body ?? [];
      },
      async recentBookmarks(limit, contentId) {
        const query = `?limit=${limit}${contentId === undefined ? '' : `&contentId=${contentId}`}`;
        return (await call<AccountBookmark[]>(`/bookmarks${query}`)).body ?? [];
      },
      async signOutEverywhere() {
        const outcome = await change('/sessions', 'DELETE');
        // The link rested on one of those sessions (the chat page's): its token is no good any more.
        if (outcome.ok) cached.delete(assistantId);
        return outcome;
      },
      async tvSignIn(code) {
        // A wrong code, or too many of them (429), is the person's business: told in words.
        const answer = await call<TvSignIn>(`/device-sign-ins/${encodeURIComponent(code)}`, 'GET', [
          ...REFUSALS,
          429,
        ]);
        if (answer.status === 200 && answer.body) return { ok: true, signIn: answer.body };
        return { ok: false, refusal: { status: answer.status, type: errorType(answer.body) } };
      },
      async decideTvSignIn(code, approve) {
        // A disabled TV (403) or too many wrong codes (429) are told in words, as the other refusals.
        const path = `/device-sign-ins/${encodeURIComponent(code)}/approved/${approve}`;
        const answer = await call<unknown>(path, 'PUT', [...REFUSALS, 403, 429]);
        if (answer.status < 300) return { ok: true };
        return { ok: false, refusal: { status: answer.status, type: errorType(answer.body) } };
      },
    };
  }

  return {
    async forSpeaker(assistantId, requestId) {
      const answer = await delegation(assistantId, requestId);
      return answer
        ? { linked: true, session: sessionFor(assistantId, answer, requestId) }
        : { linked: false };
    },
  };
}
