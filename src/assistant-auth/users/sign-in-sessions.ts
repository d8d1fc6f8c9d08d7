import type { Config } from '../../core/config.ts';
import {
  CLIENT_API_AUDIENCE,
  type DelegationClaims,
  type DelegationScope,
  SIGN_IN_CHECK_ACTOR,
} from '../../core/delegation.ts';
import { subsystemErrors } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import type { AssistantSigner } from '../signing/signer.ts';

/** The client API session a link rests on (the chat page's sign-in opened it), and the device it is of. */
export interface SignInSession {
  accountNumber: string;
  sessionId: string;
  deviceId: string;
}

export interface SignInSessions {
  /** Whether the session is still open: false once it is closed or its device removed. */
  isOpen(assistantId: string, session: SignInSession): Promise<boolean>;
  /**
   * Closes that one session at client-api (the chat page's sign-out); done too when it was already closed
   * or its account or device is gone. 502 SUBSYSTEM_ERROR when client-api cannot say: then it may be open.
   */
  close(assistantId: string, session: SignInSession, requestId?: string): Promise<void>;
}

/** The check's token is used once, at once. */
const CHECK_TTL_SECONDS = 30;

/**
 * Asks client-api, which owns sessions, about a sign-in's session with a short delegated token bound to
 * that session (`sid`), acting as SIGN_IN_CHECK_ACTOR: whether it is open (a read of its device, which
 * client-api answers 401 once the session is closed and 404 once the device is gone), and to close it
 * (DELETE …/sessions/current, which closes the session the token's `sid` names and no other). Any other
 * failure is 502: the answer is unknown, so nothing is granted.
 */
export function createSignInSessions(
  settings: Pick<Config, 'SUBSYSTEM_TIMEOUT_MS'>,
  {
    signer,
    clientApiUrl,
  }: {
    signer: Pick<AssistantSigner, 'sign'>;
    /** client-api's base (its address and CLIENT_API_BASE_PATH), read per call: known once it listens. */
    clientApiUrl: () => string;
  },
): SignInSessions {
  /** A token for one call about the session, with the one scope the call needs. */
  function tokenFor(assistantId: string, session: SignInSession, scope: DelegationScope) {
    const claims: DelegationClaims = {
      sub: assistantId,
      acc: session.accountNumber,
      scope,
      act: { sub: SIGN_IN_CHECK_ACTOR },
      sid: session.sessionId,
    };
    return signer.sign({ ...claims }, { audience: CLIENT_API_AUDIENCE, ttlSeconds: CHECK_TTL_SECONDS });
  }
  const accountUrl = (session: SignInSession) =>
    `${clientApiUrl()}/accounts/${encodeURIComponent(session.accountNumber)}`;

  return {
    async isOpen(assistantId, session) {
      const token = await tokenFor(assistantId, session, 'devices:read');
      const answer = await callSubsystem<unknown>(
        {
          subsystem: 'client-api',
          url: `${accountUrl(session)}/devices/${encodeURIComponent(session.deviceId)}`,
          headers: { authorization: `Bearer ${token}` },
          timeoutMs: settings.SUBSYSTEM_TIMEOUT_MS,
        },
        [401, 404],
      );
      return answer.status === 200;
    },

    async close(assistantId, session, requestId) {
      const token = await tokenFor(assistantId, session, 'sessions:write');
      const answer = await callSubsystem<{ errors?: Array<{ type?: unknown }> }>(
        {
          subsystem: 'client-api',
          url: `${accountUrl(session)}/sessions/current`,
          method: 'DELETE',
          headers: { authorization: `Bearer ${token}` },
          timeoutMs: settings.SUBSYSTEM_TIMEOUT_MS,
          ...(requestId === undefined ? {} : { requestId }),
        },
        [401, 404],
      );
      // 401: the session is closed already (the token rests on it); 404 SESSION_NOT_FOUND: another request
      // closed it meanwhile. Any other 404 (no such route: a wrong base path) is a failure.
      const type = answer.body?.errors?.[0]?.type;
      if (answer.status === 404 && type !== 'SESSION_NOT_FOUND') {
        throw subsystemErrors.SUBSYSTEM_ERROR(`The client-api subsystem answered 404 ${String(type)}.`);
      }
    },
  };
}
