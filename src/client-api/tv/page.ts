import { createHash } from 'node:crypto';
import { tvScript } from './tv-script.ts';
import { tvTexts } from './tv-texts.ts';

export const TV_PATH = '/tv';
export const TV_ASSETS_PATH = '/tv/assets';

/** Sized for a TV across the room (1920×1080 and its 720p half) and still usable on a phone. */
const tvStyle = `
:root { color-scheme: dark; font-family: system-ui, sans-serif; background: #0b1320; color: #f2f5fa; }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between;
  padding: 1.5vw 3vw; background: #13203a; }
h1 { margin: 0; font-size: clamp(1.4rem, 2.4vw, 3rem); }
main { flex: 1; padding: 3vw; display: grid; gap: 2vw; align-content: start; }
h2 { margin: 0 0 1rem; font-size: clamp(1.2rem, 2vw, 2.4rem); }
p { font-size: clamp(1rem, 1.6vw, 2rem); margin: 0.4rem 0; }
#tv-code { font-size: clamp(2.4rem, 7vw, 8rem); letter-spacing: 0.15em; font-weight: 700; margin: 1rem 0; }
#tv-link { word-break: break-all; color: #b8d4ff; }
#tv-now { font-size: clamp(1.4rem, 3vw, 3.6rem); font-weight: 600; }
#tv-position { font-variant-numeric: tabular-nums; font-size: clamp(1.4rem, 3vw, 3.6rem); }
.row { display: flex; flex-wrap: wrap; gap: 1rem; }
button { font: inherit; font-size: clamp(1rem, 1.6vw, 2rem); padding: 0.6em 1.2em; border-radius: 0.5em;
  border: 2px solid #6fa8ff; background: #1b3a6b; color: #fff; cursor: pointer; }
button:focus-visible { outline: 4px solid #ffd166; outline-offset: 3px; }
#tv-status { min-height: 1.5em; color: #ffd9a0; }
[hidden] { display: none !important; }
`;

const hashed = (name: string, extension: string, body: string) => {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${name}-${hash}.${extension}`, body, etag: `"${hash}"` };
};

/** The page's two files, named by their content so a browser may keep them for a year. */
export const tvAssets = {
  script: hashed('tv', 'js', tvScript),
  style: hashed('tv', 'css', tvStyle),
};

/** Its own script and style sheet, calls to itself (the API and the command stream); nothing inline. */
export const TV_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page: English as served; its script switches every `data-text` to the browser's language. */
export function tvPageHtml(apiBase: string, clientId: string): string {
  const t = tvTexts.en;
  const asset = (name: string) => `${apiBase}${TV_ASSETS_PATH}/${name}`;
  const escapeAttribute = (value: string) =>
    value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${t.title}</title>
<link rel="stylesheet" href="${asset(tvAssets.style.name)}">
</head>
<body data-api="${escapeAttribute(apiBase)}" data-client-id="${escapeAttribute(clientId)}">
<header>
<h1 data-text="title">${t.title}</h1>
<div class="row" id="tv-account">
<p id="tv-user"></p>
</div>
</header>
<main>
<section id="tv-sign-in" aria-labelledby="tv-sign-in-title">
<h2 id="tv-sign-in-title" data-text="signInTitle">${t.signInTitle}</h2>
<p id="tv-steps"></p>
<p id="tv-code" aria-live="polite"></p>
<p data-text="signInOr">${t.signInOr}</p>
<p id="tv-link"></p>
</section>
<section id="tv-home" aria-labelledby="tv-now" hidden>
<h2 id="tv-now" data-text="stopped">${t.stopped}</h2>
<p id="tv-position"></p>
<div class="row">
<button type="button" id="tv-pause" data-text="pause" hidden>${t.pause}</button>
<button type="button" id="tv-stop" data-text="stop" hidden>${t.stop}</button>
</div>
<h2 data-text="choose">${t.choose}</h2>
<div class="row" id="tv-catalogue"></div>
<div class="row"><button type="button" id="tv-sign-out" data-text="signOut">${t.signOut}</button></div>
</section>
<p id="tv-status" role="status" aria-live="polite"></p>
</main>
<script src="${asset(tvAssets.script.name)}"></script>
</body>
</html>
`;
}
