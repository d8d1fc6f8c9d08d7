import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { vouchedClientAddress } from '../../core/api-keys/vouched-address.ts';
import { ProblemError } from '../../core/errors.ts';
import type { App } from '../../core/http/service-app.ts';
import type { ClientApi } from '../composition.ts';
import { normalizeUserCode } from './codes.ts';
import { confirmation, outcome, signInForm } from './page.ts';
import { type PageLanguage, pageLanguage, pageText } from './page-text.ts';
import { issueTicket, readTicket, TICKET_TTL_MS } from './page-ticket.ts';

export const PAGE_TICKET_KEY_PURPOSE = 'client-api:tv-sign-in-page';

/** Form fields arrive as strings; the handlers judge them, so every refusal is a page, not JSON. */
const field = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const PageQuery = Type.Object({ user_code: field(64), lang: field(8) });
const SignInForm = Type.Object({
  user_code: field(64),
  username: field(254),
  password: field(1024),
  lang: field(8),
});
const DecisionForm = Type.Object({ ticket: field(2048), decision: field(16), lang: field(8) });

/** No external resource, no framing, no referrer: the page's own inline style is all it loads. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function sendPage(reply: FastifyReply, status: number, html: string, headers: Record<string, string> = {}) {
  return reply
    .code(status)
    .headers(headers)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(html);
}

/** What a refusal of the page's steps tells the person, in their language. */
function wordsFor(language: PageLanguage, error: ProblemError): string {
  const t = pageText[language];
  switch (error.type) {
    case 'CREDENTIALS_INVALID':
      return t.wrongCredentials;
    case 'LOGIN_THROTTLED':
    case 'USER_CODE_THROTTLED':
    case 'SIGN_IN_REFUSALS_LIMITED':
      return t.throttled(Number(error.headers['retry-after'] ?? 60));
    case 'USER_CODE_INVALID':
      return t.wrongCode;
    case 'DEVICE_LIMIT_REACHED':
      return t.limit;
    case 'DEVICE_DISABLED':
      return t.disabled;
    default:
      return t.other;
  }
}

/**
 * The verification page (`verification_uri`): a person types the TV's code with their e-mail and password
 * (the sign-in's own throttled check), sees which device will be signed in to which account, and signs
 * it in or refuses it. Two steps, no session: the second carries a signed ticket (page-ticket.ts).
 */
/** What the page uses: the grants, the password check, and the base path, a key and the API keys of the core. */
export type PageDeps = Pick<ClientApi, 'deviceGrants' | 'auth'> & {
  core: Pick<ClientApi['core'], 'config' | 'key' | 'apiKeys'>;
};

export function verificationPageRoutes(scope: App, { deviceGrants, auth, core }: PageDeps): void {
  const action = `${core.config.CLIENT_API_BASE_PATH}/device`;
  const decisionAction = `${action}/decision`;
  const ticketKey = core.key(PAGE_TICKET_KEY_PURPOSE);

  scope.get('/device', { schema: { hide: true, querystring: PageQuery } }, async (request, reply) => {
    const language = pageLanguage(request.query.lang, request.headers['accept-language']);
    const typed = request.query.user_code;
    return sendPage(reply, 200, signInForm(language, { action, ...(typed ? { userCode: typed } : {}) }));
  });

  scope.post('/device', { schema: { hide: true, body: SignInForm } }, async (request, reply) => {
    const form = request.body;
    const language = pageLanguage(form.lang, request.headers['accept-language']);
    const again = (status: number, error: string, headers: Record<string, string> = {}) =>
      sendPage(
        reply,
        status,
        signInForm(language, {
          action,
          ...(form.user_code ? { userCode: form.user_code } : {}),
          ...(form.username ? { username: form.username } : {}),
          error,
        }),
        headers,
      );
    if (!form.username || !form.password || !form.user_code) return again(400, pageText[language].wrongCode);
    const address = await vouchedClientAddress(core.apiKeys, request);
    try {
      const user = await auth.checkCredentials(form.username, form.password, address);
      const grant = await deviceGrants.find(form.user_code, {
        person: `user:${user.platformUserId}`,
        address,
      });
      const letters = normalizeUserCode(form.user_code) ?? '';
      const ticket = issueTicket(ticketKey, {
        grantId: grant.id,
        accountNumber: user.accountNumber,
        platformUserId: user.platformUserId,
        letters,
        expiresAt: Date.now() + TICKET_TTL_MS,
      });
      const signIn = deviceGrants.view(grant, letters);
      return sendPage(
        reply,
        200,
        confirmation(language, { action: decisionAction, signIn, accountNumber: user.accountNumber, ticket }),
      );
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status >= 500) throw error;
      return again(error.status, wordsFor(language, error), error.headers);
    }
  });

  scope.post('/device/decision', { schema: { hide: true, body: DecisionForm } }, async (request, reply) => {
    const form = request.body;
    const language = pageLanguage(form.lang, request.headers['accept-language']);
    const ticket = form.ticket ? readTicket(ticketKey, form.ticket) : undefined;
    const startOver = (status: number, error: string) =>
      sendPage(reply, status, signInForm(language, { action, error }));
    if (!ticket || (form.decision !== 'approve' && form.decision !== 'deny')) {
      return startOver(400, pageText[language].expiredStep);
    }
    const grant = await deviceGrants.pendingById(ticket.grantId);
    if (!grant) return startOver(409, pageText[language].decidedAlready);
    const address = await vouchedClientAddress(core.apiKeys, request);
    const approver = {
      accountNumber: ticket.accountNumber,
      platformUserId: ticket.platformUserId,
      person: `user:${ticket.platformUserId}`,
      address,
      via: 'page' as const,
    };
    const signIn = deviceGrants.view(grant, ticket.letters);
    try {
      await deviceGrants.decide(grant, approver, form.decision === 'approve');
      return sendPage(reply, 200, outcome(language, form.decision === 'approve', signIn.deviceName));
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status >= 500) throw error;
      if (error.type === 'USER_CODE_INVALID') return startOver(409, pageText[language].decidedAlready);
      const page = confirmation(language, {
        action: decisionAction,
        signIn,
        accountNumber: ticket.accountNumber,
        ticket: form.ticket ?? '',
        error: wordsFor(language, error),
      });
      return sendPage(reply, error.status, page);
    }
  });
}
