import { readableTime } from '../../core/untrusted-text.ts';
import type { PageLanguage, PageWords } from './page-text.ts';
import { pageText } from './page-text.ts';
import type { DeviceSignInValue } from './schemas.ts';

/** Everything a person or a TV controls reaches the page escaped. */
const html = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );

/** The page's only style, inline (no external resources): readable from 320 px up. */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f7;color:#1b1d23}
main{max-width:28rem;margin:0 auto;padding:1.5rem 1rem}
.card{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin:0 0 .5rem}
p{margin:.5rem 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input{width:100%;font:inherit;padding:.7rem .8rem;border:1px solid #8a8f9c;border-radius:8px}
input[name=user_code]{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:1.3rem;letter-spacing:.12em;text-transform:uppercase}
button{width:100%;font:inherit;font-weight:600;padding:.8rem;margin-top:1.25rem;border:0;border-radius:8px;background:#3a2fb8;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#3a2fb8;border:2px solid #3a2fb8;margin-top:.75rem}
button:focus-visible,input:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
.error{background:#fdecec;color:#8a1111;border-radius:8px;padding:.6rem .8rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem;margin:0 0 .5rem}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:1.6rem;letter-spacing:.12em;text-align:center;margin:.5rem 0}
.lang{text-align:right;margin:0 0 .75rem}.lang a{color:#3a2fb8}
.warning{background:#fff4d6;color:#5c4200;border-radius:8px;padding:.6rem .8rem;font-weight:600}
.untrusted{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f3f4f7;border-radius:8px;padding:.4rem .6rem;margin:-.5rem 0 1rem;overflow-wrap:anywhere}
`;

function layout(language: PageLanguage, title: string, body: string, languageLink?: string): string {
  const other = pageText[language].otherLanguage;
  const switcher = languageLink
    ? `<p class="lang"><a href="${html(languageLink)}lang=${other.href}" lang="${other.href}">${other.label}</a></p>`
    : '';
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(title)} · Sintonia</title>
<style>${STYLE}</style>
</head>
<body><main>${switcher}<div class="card">${body}</div></main></body>
</html>`;
}

const problem = (text: string | undefined) =>
  text === undefined ? '' : `<p class="error" role="alert">${html(text)}</p>`;

/** The first step: e-mail, password and the code (filled in from the TV's link when it carried one). */
export function signInForm(
  language: PageLanguage,
  options: { action: string; userCode?: string; username?: string; error?: string },
): string {
  const t: PageWords = pageText[language];
  const query = options.userCode ? `?user_code=${encodeURIComponent(options.userCode)}&` : '?';
  return layout(
    language,
    t.title,
    `<h1>${t.title}</h1>
<p>${t.intro}</p>
${problem(options.error)}
<form method="post" action="${html(options.action)}">
<input type="hidden" name="lang" value="${language}">
<label for="user_code">${t.code}</label>
<input id="user_code" name="user_code" required maxlength="16" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="XXXX-XXXX" value="${html(options.userCode ?? '')}">
<label for="username">${t.email}</label>
<input id="username" name="username" type="email" required maxlength="254" autocomplete="username" value="${html(options.username ?? '')}">
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" required maxlength="1024" autocomplete="current-password">
<button type="submit">${t.next}</button>
</form>`,
    `${options.action}${query}`,
  );
}

/** The second step: what will be signed in, to which account, and the two choices. */
export function confirmation(
  language: PageLanguage,
  options: {
    action: string;
    signIn: DeviceSignInValue;
    accountNumber: string;
    ticket: string;
    error?: string;
  },
): string {
  const t = pageText[language];
  const { signIn } = options;
  return layout(
    language,
    t.confirmTitle,
    `<h1>${t.confirmTitle}</h1>
${problem(options.error)}
<p class="code">${html(signIn.userCode)}</p>
<p class="warning" role="note">${t.warning}</p>
<p>${t.confirmIntro}</p>
<dl>
<dt>${t.kind}</dt><dd>${html(signIn.deviceClass)}</dd>
<dt>${t.asked}</dt><dd>${html(readableTime(Date.parse(signIn.requestedAt)))}</dd>
<dt>${t.from}</dt><dd>${html(signIn.requestedFrom)}</dd>
<dt>${t.account}</dt><dd>${html(options.accountNumber)}</dd>
</dl>
<p>${t.device}</p>
<p class="untrusted"><bdi>${html(signIn.deviceName)}</bdi></p>
<form method="post" action="${html(options.action)}">
<input type="hidden" name="lang" value="${language}">
<input type="hidden" name="ticket" value="${html(options.ticket)}">
<button type="submit" name="decision" value="approve">${t.approve}</button>
<button type="submit" name="decision" value="deny" class="secondary">${t.deny}</button>
</form>`,
  );
}

/** The end: signed in, or refused. */
export function outcome(language: PageLanguage, approved: boolean, deviceName: string): string {
  const t = pageText[language];
  const title = approved ? t.approvedTitle : t.deniedTitle;
  return layout(
    language,
    title,
    `<h1>${title}</h1>
<p><strong>${html(deviceName)}</strong></p>
<p>${approved ? t.approvedText : t.deniedText}</p>`,
  );
}
