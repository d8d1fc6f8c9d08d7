import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import type {
  ConversationAnswer,
  ErrorBody,
  SeenActivity,
  SeenAttachment,
} from './helpers/directline-wire.ts';

const LIMIT = 64 * 1024;

/** What DirectLineJS posts for a message with files: the activity as a JSON blob, then each file. */
function directLineForm(
  activity: Record<string, unknown>,
  files: Array<{ name: string; type: string; bytes: Buffer }>,
) {
  const form = new FormData();
  form.append(
    'activity',
    new Blob(
      [
        JSON.stringify({
          ...activity,
          attachments: files.map(({ name, type }) => ({ name, contentType: type })),
        }),
      ],
      {
        type: 'application/vnd.microsoft.activity',
      },
    ),
  );
  for (const file of files)
    form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  return form;
}

describe('embedded Direct Line channel: uploads', () => {
  let core: TestCore;
  let close: () => Promise<void>;
  let base: string;
  let apiKey: string;
  let mine: ConversationAnswer;
  let other: ConversationAnswer;

  before(async () => {
    ({ core, close } = await startTestFamily(['assistant-auth', 'agents'], {
      DIRECTLINE_UPLOAD_LIMIT: String(LIMIT),
    }));
    base = core.serviceUrl('assistant-auth');
    apiKey = (await core.apiKeys.create('client', 'web-chat')).key;
    mine = await conversation();
    other = await conversation();
  });
  after(async () => close());

  async function conversation(): Promise<ConversationAnswer> {
    const response = await fetch(`${base}/token/wss`, { headers: { 'x-api-key': apiKey } });
    assert.equal(response.status, 200);
    return (await response.json()) as ConversationAnswer;
  }

  const upload = (to: ConversationAnswer, form: FormData | string, token: string | null = to.token) =>
    fetch(`${base}/v3/directline/conversations/${to.conversationId}/upload?userId=r_page`, {
      method: 'POST',
      headers: {
        origin: 'https://shop.example',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(typeof form === 'string' ? { 'content-type': 'application/json' } : {}),
      },
      body: form,
    });

  async function activities(of: ConversationAnswer): Promise<SeenActivity[]> {
    const response = await fetch(`${base}/v3/directline/conversations/${of.conversationId}/activities`, {
      headers: { authorization: `Bearer ${of.token}` },
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { activities: SeenActivity[] }).activities;
  }

  async function answerTo(of: ConversationAnswer, id: string): Promise<SeenActivity> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = (await activities(of)).find((activity) => activity.replyToId === id);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no answer to ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function uploaded(of: ConversationAnswer, activityId: string): Promise<SeenAttachment[]> {
    const message = (await activities(of)).find((activity) => activity.id === activityId);
    assert.ok(message?.attachments, 'the uploaded message is stored with its attachments');
    return message.attachments;
  }

  describe('happy', () => {
    it('stores the files, the assistant acknowledges them, and each is served back at its contentUrl', async () => {
      const pdf = randomBytes(12 * 1024);
      const response = await upload(
        mine,
        directLineForm(
          {
            type: 'message',
            from: { id: 'r_page' },
            channelData: { clientActivityID: 'client-1' },
            locale: 'en-US',
          },
          [{ name: 'report.pdf', type: 'application/pdf', bytes: pdf }],
        ),
      );
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      const { id } = (await response.json()) as { id: string };
      assert.ok(id.startsWith(`${mine.conversationId}|`));

      const answer = await answerTo(mine, id);
      assert.equal(answer.from.role, 'bot');
      assert.equal(answer.text, 'I received your file report.pdf (12 KB).');

      const stored = (await activities(mine)).find((activity) => activity.id === id);
      assert.equal(stored?.channelData?.clientActivityID, 'client-1', 'Web Chat matches its echo by this id');
      assert.match(stored?.from.id ?? '', /^dl_/, 'the token’s user sent it, whatever userId said');
      const [attachment] = await uploaded(mine, id);
      assert.ok(attachment);
      assert.equal(attachment.name, 'report.pdf');
      assert.equal(attachment.contentType, 'application/pdf');

      // As a browser's <img> or link fetches it: no Authorization header.
      const served = await fetch(attachment.contentUrl);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), 'application/pdf');
      assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(served.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), pdf);

      // With the conversation's token instead of the signature.
      const unsigned = new URL(attachment.contentUrl);
      unsigned.search = '';
      const byToken = await fetch(unsigned, { headers: { authorization: `Bearer ${mine.token}` } });
      assert.equal(byToken.status, 200);
      assert.deepEqual(Buffer.from(await byToken.arrayBuffer()), pdf);
    });

    it('answers files in Spanish for a Spanish user, several at once, and serves an image inline', async () => {
      const png = randomBytes(3 * 1024);
      const response = await upload(
        mine,
        directLineForm({ type: 'message', locale: 'es-ES' }, [
          { name: 'foto.png', type: 'image/png', bytes: png },
          { name: 'factura.pdf', type: 'application/pdf', bytes: randomBytes(2048) },
        ]),
      );
      assert.equal(response.status, 200);
      const { id } = (await response.json()) as { id: string };
      const answer = await answerTo(mine, id);
      assert.equal(answer.text, 'He recibido tus archivos foto.png (3 KB) y factura.pdf (2 KB).');
      const [image, document] = await uploaded(mine, id);
      const shown = await fetch(image?.contentUrl ?? '');
      assert.equal(shown.headers.get('content-type'), 'image/png');
      assert.match(shown.headers.get('content-disposition') ?? '', /^inline/);
      assert.deepEqual(Buffer.from(await shown.arrayBuffer()), png);
      const downloaded = await fetch(document?.contentUrl ?? '');
      assert.match(downloaded.headers.get('content-disposition') ?? '', /^inline/, 'PDF is shown in place');

      // Words sent with the file are answered too.
      const asked = await upload(
        mine,
        directLineForm({ type: 'message', text: '¿Cómo grabo una serie?' }, [
          { name: 'captura.png', type: 'image/png', bytes: randomBytes(100) },
        ]),
      );
      const askedId = ((await asked.json()) as { id: string }).id;
      const both = await answerTo(mine, askedId);
      assert.match(both.text ?? '', /^He recibido tu archivo captura\.png \(100 bytes\)\. Para grabar/);
    });
  });

  describe('errors', () => {
    it('refuses an upload over DIRECTLINE_UPLOAD_LIMIT with 413 and the family body, CORS headers included', async () => {
      // The person's own activities: the assistant may still be answering an earlier test's message.
      const persons = async () => (await activities(mine)).filter((activity) => activity.from.role !== 'bot');
      const before = (await persons()).length;
      for (const files of [
        [{ name: 'big.bin', type: 'application/octet-stream', bytes: randomBytes(LIMIT + 1) }],
        // Two files under the limit each, over it together.
        [
          { name: 'half-1.bin', type: 'application/octet-stream', bytes: randomBytes(LIMIT / 2 + 10) },
          { name: 'half-2.bin', type: 'application/octet-stream', bytes: randomBytes(LIMIT / 2 + 10) },
        ],
      ]) {
        const response = await upload(mine, directLineForm({ type: 'message' }, files));
        assert.equal(response.status, 413);
        assert.equal(response.headers.get('access-control-allow-origin'), '*');
        const body = (await response.json()) as ErrorBody;
        assert.equal(body.code, 'PAYLOAD_TOO_LARGE');
        assert.equal(body.errors[0]?.type, 'DIRECTLINE_UPLOAD_TOO_LARGE');
      }
      assert.equal((await persons()).length, before, 'nothing was stored');
    });

    it('takes the documented 10 files in one upload and refuses 11 with 413, with or without the activity part', async () => {
      const files = (count: number) =>
        Array.from({ length: count }, (_, index) => ({
          name: `note-${index}.txt`,
          type: 'text/plain',
          bytes: Buffer.from(`note ${index}`),
        }));
      const forms = {
        'with the activity part': (count: number) => directLineForm({ type: 'message' }, files(count)),
        'files alone': (count: number) => {
          const form = new FormData();
          for (const file of files(count))
            form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
          return form;
        },
      };
      for (const [label, form] of Object.entries(forms)) {
        const target = await conversation();
        const ten = await upload(target, form(10));
        assert.equal(ten.status, 200, label);
        const { id } = (await ten.json()) as { id: string };
        assert.equal((await uploaded(target, id)).length, 10, label);
        const eleven = await upload(target, form(11));
        assert.equal(eleven.status, 413, label);
        const body = (await eleven.json()) as ErrorBody;
        assert.equal(body.errors[0]?.type, 'DIRECTLINE_UPLOAD_TOO_LARGE', label);
        assert.match(body.message, /10 files/, label);
        const messages = (await activities(target)).filter((activity) => activity.from.role !== 'bot');
        assert.equal(messages.length, 1, `${label}: the eleven were not stored`);
      }
    });
  });

  describe('security', () => {
    it('refuses another conversation’s files, forged or moved links, and unknown files', async () => {
      const response = await upload(
        mine,
        directLineForm({ type: 'message' }, [
          { name: 'private.txt', type: 'text/plain', bytes: Buffer.from('only for mine') },
        ]),
      );
      const { id } = (await response.json()) as { id: string };
      const [attachment] = await uploaded(mine, id);
      const url = new URL(attachment?.contentUrl ?? '');
      const fileId = url.pathname.split('/').at(-1) ?? '';
      const signature = url.searchParams.get('t') ?? '';
      const path = (conversationId: string, query = '') =>
        `${base}/v3/directline/conversations/${conversationId}/files/${fileId}${query}`;

      const cases: Array<[string, Promise<Response>, number, string]> = [
        [
          'another conversation’s token',
          fetch(path(mine.conversationId), { headers: { authorization: `Bearer ${other.token}` } }),
          403,
          'DIRECTLINE_CONVERSATION_MISMATCH',
        ],
        [
          'the link moved to another conversation',
          fetch(path(other.conversationId, `?t=${signature}`)),
          403,
          'DIRECTLINE_FILE_LINK_INVALID',
        ],
        [
          'a forged signature',
          fetch(path(mine.conversationId, `?t=${randomBytes(32).toString('base64url')}`)),
          403,
          'DIRECTLINE_FILE_LINK_INVALID',
        ],
        ['no signature, no token', fetch(path(mine.conversationId)), 401, 'DIRECTLINE_CREDENTIALS_MISSING'],
        [
          'the file id asked in another conversation with its token',
          fetch(path(other.conversationId), { headers: { authorization: `Bearer ${other.token}` } }),
          404,
          'DIRECTLINE_FILE_NOT_FOUND',
        ],
      ];
      for (const [label, pending, status, type] of cases) {
        const refused = await pending;
        assert.equal(refused.status, status, label);
        assert.equal(refused.headers.get('access-control-allow-origin'), '*', label);
        assert.equal(((await refused.json()) as ErrorBody).errors[0]?.type, type, label);
      }
    });

    it('refuses an upload to another conversation (403), without a token (401), and malformed ones', async () => {
      const form = () =>
        directLineForm({ type: 'message' }, [{ name: 'a.txt', type: 'text/plain', bytes: Buffer.from('a') }]);
      const foreign = await upload(mine, form(), other.token);
      assert.equal(foreign.status, 403);
      assert.equal(((await foreign.json()) as ErrorBody).errors[0]?.type, 'DIRECTLINE_CONVERSATION_MISMATCH');
      const anonymous = await upload(mine, form(), null);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('access-control-allow-origin'), '*');
      assert.equal(((await anonymous.json()) as ErrorBody).errors[0]?.type, 'DIRECTLINE_CREDENTIALS_MISSING');

      const json = await upload(mine, JSON.stringify({ type: 'message' }));
      assert.equal(json.status, 415);
      assert.equal(((await json.json()) as ErrorBody).errors[0]?.type, 'DIRECTLINE_UPLOAD_NOT_MULTIPART');
      const noFile = new FormData();
      noFile.append(
        'activity',
        new Blob([JSON.stringify({ type: 'message' })], { type: 'application/vnd.microsoft.activity' }),
      );
      const empty = await upload(mine, noFile);
      assert.equal(empty.status, 400);
      assert.equal(((await empty.json()) as ErrorBody).errors[0]?.type, 'DIRECTLINE_UPLOAD_INVALID');
      const badActivity = new FormData();
      badActivity.append(
        'activity',
        new Blob(['{"type": 5}'], { type: 'application/vnd.microsoft.activity' }),
      );
      badActivity.append('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
      const bad = await upload(mine, badActivity);
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as ErrorBody).errors[0]?.type, 'DIRECTLINE_UPLOAD_INVALID');
    });
  });
});
