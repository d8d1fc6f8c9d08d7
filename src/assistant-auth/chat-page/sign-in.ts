import { vouchingHeaders } from '../../core/api-keys/vouched-address.ts';
import type { Config } from '../../core/config.ts';
import { httpErrors } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import type { Audit } from '../audit.ts';
import type { UserService } from '../users/service.ts';
import { chatPageErrors } from './errors.ts';

/** The channel the chat page's people speak on. */
const CHAT_PAGE_CHANNEL = 'web';

interface BasicCheck {
  authenticated: boolean;
  platformUserId: string;
  accountNumber: string;
}

/**
 * The chat page acting as its own gateway: a person signs in with their pay-TV user name and password,
 * checked by client-api (its HTTP Basic check, with its sign-in throttling), and their web identity is
 * linked to the account they proved — the account-linking a gateway does before its callback. Answers
 * the assistantId a conversation may then be bound to. With ASSISTANT_RUNTIME_KEY, the key vouches for
 * the person's own address, so client-api's per-address limit counts them, not this service.
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
    const answer = await callSubsystem<BasicCheck>(
      {
        subsystem: 'client-api',
        url,
        headers: {
          authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
          ...(runtimeKey === undefined ? {} : vouchingHeaders(runtimeKey, clientAddress)),
        },
        timeoutMs: settings.SUBSYSTEM_TIMEOUT_MS,
      },
      [401, 429],
    );
    if (answer.status === 429) {
      throw httpErrors.RATE_LIMITED('Too many sign-in attempts; try again later.', {
        headers: { 'retry-after': answer.headers.get('retry-after') ?? '60' },
      });
    }
    const check = answer.body;
    if (answer.status !== 200 || !check?.authenticated) throw chatPageErrors.CHAT_SIGN_IN_FAILED();
    const { user } = await users.findOrCreate(
      { channel: CHAT_PAGE_CHANNEL, identity: `platform-user:${check.platformUserId}` },
      'integrated',
    );
    await users.link(user.assistantId, {
      accountNumber: check.accountNumber,
      platformUserId: check.platformUserId,
    });
    await audit('chat-page', 'assistant-user.link', user.assistantId);
    return user.assistantId;
  };
}
