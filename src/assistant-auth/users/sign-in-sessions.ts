import type { Config } from '../../core/config.ts';
import { CLIENT_API_AUDIENCE, type DelegationClaims, SIGN_IN_CHECK_ACTOR } from '../../core/delegation.ts';
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
}

/** The check's token is used once, at once. */
const CHECK_TTL_SECONDS = 30;

/**
 * Asks client-api, which owns sessions, whether a sign-in's session is open: a read of its device with a
 * delegated token bound to that session (`sid`), which client-api answers 401 once the session is closed
 * and 404 once the device is gone. Any other failure is 502: the answer is unknown, so nothing is granted.
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
  return {
    async isOpen(assistantId, session) {
      const claims: DelegationClaims = {
        sub: assistantId,
        acc: session.accountNumber,
        scope: 'devices:read',
        act: { sub: SIGN_IN_CHECK_ACTOR },
        sid: session.sessionId,
      };
      const token = await signer.sign(
        { ...claims },
        { audience: CLIENT_API_AUDIENCE, ttlSeconds: CHECK_TTL_SECONDS },
      );
      const account = encodeURIComponent(session.accountNumber);
      const device = encodeURIComponent(session.deviceId);
      const answer = await callSubsystem<unknown>(
        {
          subsystem: 'client-api',
          url: `${clientApiUrl()}/accounts/${account}/devices/${device}`,
          headers: { authorization: `Bearer ${token}` },
          timeoutMs: settings.SUBSYSTEM_TIMEOUT_MS,
        },
        [401, 404],
      );
      return answer.status === 200;
    },
  };
}
