import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { pageScript, pageStyle } from './page-assets.ts';

const compress = promisify(gzip);

/** A file of the page, in memory once read, with its gzip form when the client takes it. */
export interface Asset {
  type: string;
  etag: string;
  body: Buffer;
  gzipped?: Buffer;
}

/** A named asset whose bytes are read (and compressed) at its first request, then kept. */
export interface AssetSource {
  /** The file name under /chat/assets/: versioned or content-hashed, so it may be cached for a year. */
  name: string;
  load(): Promise<Asset>;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

async function asset(type: string, body: Buffer): Promise<Asset> {
  // Compressing pays only above a kilobyte; the Web Chat bundle is most of what the page downloads.
  const gzipped = body.length > 1024 ? await compress(body, { level: 6 }) : undefined;
  return { type, etag: etagOf(body), body, gzipped };
}

/** Loads once; a failed read is tried again at the next request rather than remembered. */
function once(load: () => Promise<Asset>): () => Promise<Asset> {
  let loading: Promise<Asset> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

/**
 * The stock Web Chat bundle as scripts/build.mjs copies it from botframework-webchat (a dev dependency) into
 * dist/webchat/, with its licence notice and webchat.json (the package's version). dist/ is three folders
 * above this file both as a source (src/assistant-auth/chat-page/) and compiled (dist/assistant-auth/…).
 */
const WEB_CHAT = fileURLToPath(new URL('../../../dist/webchat/', import.meta.url));

function webChatVersion(): string {
  let manifest: { version?: unknown };
  try {
    manifest = JSON.parse(readFileSync(join(WEB_CHAT, 'webchat.json'), 'utf8')) as { version?: unknown };
  } catch (error) {
    throw new Error(`the chat page's Web Chat bundle is not built (${WEB_CHAT}): run \`npm run build\``, {
      cause: error,
    });
  }
  if (typeof manifest.version !== 'string') throw new Error(`${WEB_CHAT}webchat.json names no version`);
  return manifest.version;
}

const hashed = (prefix: string, extension: string, text: string) =>
  `${prefix}-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.${extension}`;

/**
 * The page's files: the stock Web Chat bundle (built into dist/webchat/, named by its package's version)
 * with its licence notice, and the page's own script and style (named by their content).
 */
export function chatPageAssets(): { webChat: string; script: string; style: string; all: AssetSource[] } {
  const bundle = join(WEB_CHAT, 'webchat.js');
  const webChat = `webchat-${webChatVersion()}.js`;
  const script = hashed('chat', 'js', pageScript);
  const style = hashed('chat', 'css', pageStyle);
  const all: AssetSource[] = [
    { name: webChat, load: once(async () => asset(JS, await readFile(bundle))) },
    // The bundle's first line points readers at this file by its original name.
    {
      name: 'webchat.js.LICENSE.txt',
      load: once(async () => asset(TEXT, await readFile(`${bundle}.LICENSE.txt`))),
    },
    { name: script, load: once(() => asset(JS, Buffer.from(pageScript))) },
    { name: style, load: once(() => asset(CSS, Buffer.from(pageStyle))) },
  ];
  return { webChat, script, style, all };
}
