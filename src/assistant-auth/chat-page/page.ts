import { randomBytes } from 'node:crypto';
import { pageTexts } from './page-texts.ts';
import type { ChatPageSettings } from './settings.ts';

export const CHAT_PATH = '/chat';
export const CHAT_TOKEN_PATH = '/chat/token';
export const CHAT_SIGN_IN_PATH = '/chat/sign-in';
export const CHAT_SIGN_OUT_PATH = '/chat/sign-out';
export const CHAT_ASSETS_PATH = '/chat/assets';

/** A fresh style nonce per page: Web Chat's style elements carry it; nothing else may add styles. */
export const newNonce = () => randomBytes(18).toString('base64');

/**
 * The hash of an empty inline style. Web Chat 4.18 gives its style nonce to its own style elements but not
 * to those of the scroller it embeds (react-scroll-to-bottom), which are empty and filled through the
 * CSSOM (insertRule), which CSP does not govern; allowing empty content allows nothing else.
 */
const EMPTY_STYLE_HASH = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='";

/**
 * What the page may do: its own scripts and style sheet (no inline script at all), the style elements
 * Web Chat creates (nonce'd, or empty), images as data: or blob: URLs (Web Chat's icons, previews of a
 * file being uploaded), and calls to itself, to a picked file's blob: URL and to the Direct Line service,
 * over HTTP and its websocket.
 */
export function chatPageCsp(settings: ChatPageSettings, nonce: string): string {
  // blob: because the Direct Line client reads a picked file back from its blob: URL to upload it.
  const connect = [...new Set(["'self'", 'blob:', ...settings.connectSources])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}' ${EMPTY_STYLE_HASH}`,
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page: header, the sign-in form (or, signed in, who is and a sign-out button), a status line until
 * Web Chat is up, and Web Chat's container.
 */
export function chatPageHtml(
  files: { webChat: string; script: string; style: string },
  nonce: string,
): string {
  const asset = (name: string) => `${CHAT_ASSETS_PATH}/${name}`;
  // English as served; the page's script switches every `data-text` to the browser's language.
  const text = pageTexts.en;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${text.title}</title>
<link rel="stylesheet" href="${asset(files.style)}">
<script src="${asset(files.webChat)}" defer></script>
<script src="${asset(files.script)}" nonce="${escapeAttribute(nonce)}" defer></script>
</head>
<body>
<header>
<h1 data-text="title">${text.title}</h1>
<p data-text="subtitle">${text.subtitle}</p>
</header>
<form id="sign-in" data-sign-in-url="${CHAT_SIGN_IN_PATH}" aria-labelledby="sign-in-intro">
<p id="sign-in-intro" data-text="signInIntro">${text.signInIntro}</p>
<div class="fields">
<label><span data-text="email">${text.email}</span>
<input name="username" type="email" autocomplete="username" required></label>
<label><span data-text="password">${text.password}</span>
<input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit" data-text="signIn">${text.signIn}</button>
</div>
</form>
<div id="signed-in" hidden>
<p id="signed-in-as" role="status"></p>
<button type="button" id="sign-out" data-sign-out-url="${CHAT_SIGN_OUT_PATH}" data-text="signOut">${text.signOut}</button>
</div>
<p id="chat-status" role="status" data-text="connecting">${text.connecting}</p>
<main id="webchat" data-token-url="${CHAT_TOKEN_PATH}"></main>
</body>
</html>
`;
}
