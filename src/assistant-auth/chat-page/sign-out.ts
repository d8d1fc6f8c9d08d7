import { ProblemError } from '../../core/errors.ts';
import { FAMILY_REALM } from '../../core/http/challenges.ts';
import type { Audit } from '../audit.ts';
import { channelErrors } from '../channel/errors.ts';
import type { EmbeddedDirectLine } from '../directline/embedded-channel.ts';
import { directLineErrors } from '../directline/errors.ts';
import { userErrors } from '../users/errors.ts';
import type { UserService } from '../users/service.ts';
import type { SignInSessions } from '../users/sign-in-sessions.ts';
import { chatPageErrors } from './errors.ts';

/**
 * The chat page's sign-out: the page proves which sign-in it is with its conversation's token (as the
 * embedded channel checks it: missing 401, not ours or expired 403); the conversation's speaker is that
 * sign-in's assistant user. Its client API session, and only that one (every browser signs in as the same
 * device `chat-page`), is closed at client-api; then the user is removed, which unbinds its
 * conversations. client-api unreachable: 502 and nothing removed. A token that spoke for a person whose
 * sign-in is gone already (a second click) is done; an anonymous conversation's is 409 CHAT_NOT_SIGNED_IN.
 */
export function createChatSignOut({
  directLine,
  users,
  signIns,
  audit,
}: {
  /** The embedded channel, whose tokens the page holds; undefined with an external Direct Line. */
  directLine: Pick<EmbeddedDirectLine, 'credentials' | 'speakerOf'> | undefined;
  users: Pick<UserService, 'signInSession' | 'remove'>;
  signIns: Pick<SignInSessions, 'close'>;
  audit: Audit;
}) {
  return async (authorization: string | undefined, requestId?: string): Promise<void> => {
    if (!directLine) throw channelErrors.CHANNEL_BINDING_UNSUPPORTED();
    // The operation declares no scheme (it is not in the document), so the challenge a 401 carries is given here.
    if (authorization === undefined) {
      throw directLineErrors.DIRECTLINE_CREDENTIALS_MISSING(undefined, {
        headers: { 'www-authenticate': `Bearer realm="${FAMILY_REALM}"` },
      });
    }
    const credential = await directLine.credentials.authenticate(authorization);
    if (credential.kind !== 'token') throw chatPageErrors.CHAT_NOT_SIGNED_IN();
    const speaker = await directLine.speakerOf(credential.conversationId);
    if (typeof speaker !== 'string') {
      // An anonymous conversation's token (started or not): there is no sign-in to end.
      if (!credential.speaks) throw chatPageErrors.CHAT_NOT_SIGNED_IN();
      // It spoke for a person: null once its speaker was removed, so this sign-in has ended already (a
      // double click); no conversation at all once it was removed after retention.
      if (speaker === null) return;
      throw directLineErrors.DIRECTLINE_CONVERSATION_NOT_FOUND();
    }
    const session = await users.signInSession(speaker);
    // Bound to a person no chat page sign-in linked (a gateway's link): nothing of the page's to end.
    if (session === undefined) throw chatPageErrors.CHAT_NOT_SIGNED_IN();
    await signIns.close(speaker, session, requestId);
    try {
      await users.remove(speaker);
    } catch (error) {
      // Removed meanwhile by a concurrent sign-out of the same conversation: the outcome is the same.
      if (!(error instanceof ProblemError) || error.type !== userErrors.USER_NOT_FOUND.type) throw error;
      return;
    }
    await audit('chat-page', 'assistant-user.sign-out', speaker);
  };
}
