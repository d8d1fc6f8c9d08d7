import { vouchingHeaders } from '../../core/api-keys/vouched-address.ts';
import type { Config } from '../../core/config.ts';
import { httpErrors } from '../../core/errors.ts';
import { formChallenge } from '../../core/http/challenges.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import type { Audit } from '../audit.ts';
import type { UserService } from '../users/service.ts';
import { chatPageErrors } from './errors.ts';

/** The channel the chat page's people speak on. */
const CHAT_PAGE_CHANNEL = 'web';
/** The device the chat page signs in as, in the person's account: a sign-out of it ends the page's links. */
const CHAT_PAGE_DEVICE = { deviceId: 'chat-page', deviceName: 'Chat page' };

/** What client-api's password sign-in answers: the user, and the tokens of the session it opened. */
interface SignedIn {
  user: { platformUserId: string; accountNumber: string };
  tokens?: { sessionId: string };
}

/**
 * The chat page acting as its own gateway: a person signs in with their pay-TV user name and password,
 * checked by client-api (its password sign-in, with its throttling), which opens a session of the chat
 * page's device in their account; their web identity is linked to that account, resting on that session,
 * so the person's sign-out of the device, "sign out everywhere" or an operator closing the account's
 * sessions ends what the assistant may do for them. Answers the assistantId a conversation may then be
 * bound to. With ASSISTANT_RUNTIME_KEY, the key vouches for the person's own address, so client-api's
 * per-address limit counts them, not this service.
 */
export function createChatSignIn(
  settings: Pick<Config, 'SUBSYSTEM_TIMEOUT_MS' | 'ASSISTANT_RUNTIME_KEY'>,
  {
    clientApiUrl,
    users,
    audit,
  }: {
    /** client-api's base (its address and CLIENT_API_BASE_PATH), read per call: known once it listens. */
    clientApiUrl: () => string;
    users: UserService;
    audit: Audit;
  },
) {
  return async (username: string, password: string, clientAddress: string): Promise<string> => {
    const url = `${clientApiUrl()}/auth/web/users/authenticate`;
    // Read per call: the demo sets the key once its data is loaded, after the services are composed.
    const runtimeKey = settings.ASSISTANT_RUNTIME_KEY;
    const answer = await callSubsystem<SignedIn>(
      {
        subsystem: 'client-api',
        url,
        method: 'POST',
        headers: runtimeKey === undefined ? {} : vouchingHeaders(runtimeKey, clientAddress),
        body: { username, password, ...CHAT_PAGE_DEVICE },
        timeoutMs: settings.SUBSYSTEM_TIMEOUT_MS,
      },
      [400, 401, 403, 409, 429],
    );
    if (answer.status === 429) {
      throw httpErrors.RATE_LIMITED('Too many sign-in attempts; try again later.', {
        headers: { 'retry-after': answer.headers.get('retry-after') ?? '60' },
      });
    }
    // The device disabled, or the account at its device limit: the page cannot sign in there.
    if (answer.status === 403 || answer.status === 409) throw chatPageErrors.CHAT_DEVICE_REFUSED();
    const signedIn = answer.body;
    const sessionId = signedIn?.tokens?.sessionId;
    // The operation declares no security scheme (the credentials are the form's body), so the challenge every
    // 401 carries is given here.
    if (answer.status !== 200 || !signedIn || !sessionId)
      throw chatPageErrors.CHAT_SIGN_IN_FAILED(undefined, {
        headers: { 'www-authenticate': formChallenge() },
      });
    const { platformUserId, accountNumber } = signedIn.user;
    // One assistant user per sign-in: nothing granted to an earlier sign-in (a delegated token the agents
    // keep) outlives it under the same assistantId.
    const { user } = await users.findOrCreate(
      { channel: CHAT_PAGE_CHANNEL, identity: `chat-page-session:${sessionId}` },
      'integrated',
    );
    await users.link(user.assistantId, {
      accountNumber,
      platformUserId,
      sessionId,
      deviceId: CHAT_PAGE_DEVICE.deviceId,
    });
    await audit('chat-page', 'assistant-user.link', user.assistantId);
    return user.assistantId;
  };
}
