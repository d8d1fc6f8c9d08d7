import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type SignedInChat, say, signInOnChatPage } from '../helpers/chat-page-person.ts';
import { createTestDatabase } from '../helpers/harness.ts';
import { HOUSEHOLD_PASSWORD } from '../helpers/household.ts';
import { type NginxFamily, nginxFamilySkip, startNginxFamily } from '../helpers/nginx-family.ts';
import { freePort, startServe } from '../helpers/processes.ts';
import { until } from '../helpers/until.ts';

const BASE = '/api/v1';
const ACCOUNT = 'PROD-1';
const EMAIL = 'prod-1@example.test';

/** A ceiling on a process's start (migrations included) on a loaded machine, not a measurement. */
const START_MS = 120_000;

/**
 * The documented production setup, as written (docs/production.md's minimum settings, docs/deployment.md's
 * public addresses and chat page, docs/postgresql.md): PostgreSQL, SINTONIA_DEMO=0, the account, the user
 * (password from standard input) and an operator key made with the CLI, two `sintonia serve` processes
 * behind the shipped nginx file, and no other setting: no runtime key. Then a person's journey through
 * nginx only: a TV signed in by code (approved by telling the assistant, after its Yes), a save from the
 * TV, "what devices do I have?", and the TV signed out after a Yes.
 */
describe('the documented production setup: a person’s journey through nginx', {
  skip: nginxFamilySkip(),
  timeout: 300_000,
}, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let family: NginxFamily;
  let operatorKey = '';
  let clientApi = '';
  let assistantAuth = '';

  before(async () => {
    database = await createTestDatabase();
    // The settings the docs give, and nothing more.
    family = await startNginxFamily({
      name: 'production',
      databaseUrl: database.url,
      account: ACCOUNT,
      email: EMAIL,
      password: HOUSEHOLD_PASSWORD,
      settings: ([client = '', auth = '']) => ({
        CLIENT_API_PUBLIC_URL: client,
        PUBLIC_BASE_URL: auth,
        CHAT_PAGE: 'on',
        // Not a setting of the setup: a ceiling for the machine the tests share (a sign-in's password hash,
        // checked by client-api for the chat page, took over the default 3 s under a load of 37).
        SUBSYSTEM_TIMEOUT_MS: '30000',
      }),
      startMs: START_MS,
    });
    [clientApi = '', assistantAuth = ''] = family.nginx.urls;
    operatorKey = (await family.cli(['key', 'create', '--class', 'backoffice', '--name', 'ops'])).key ?? '';
  });

  after(async () => {
    await family?.stop();
    await database?.drop();
  });

  it('each process’s banner gives the public addresses, and no process warns of a missing one', async () => {
    for (const server of [family.served(0), family.served(1)]) {
      if (!server) throw new Error('both processes run');
      await until(() => server.output().includes('Stop with Ctrl-C') || undefined, 'the banner');
      const banner = server.output();
      assert.match(banner, new RegExp(`client-api +${clientApi}   \\(docs: ${clientApi}/docs`));
      assert.match(banner, new RegExp(`assistant-auth +${assistantAuth}   `));
      assert.ok(banner.includes(`Chat with the assistant: ${assistantAuth}/chat`), banner);
      assert.doesNotMatch(banner, /PUBLIC_URL|PUBLIC_BASE_URL|"level":50/, banner);
    }
  });

  it('the TV sign-in’s metadata, from either process, names nginx’s address', async () => {
    for (let ask = 0; ask < 4; ask++) {
      const response = await fetch(`${clientApi}/.well-known/oauth-authorization-server`);
      const metadata = (await response.json()) as { issuer: string; token_endpoint: string };
      assert.equal(metadata.issuer, clientApi);
      assert.equal(metadata.token_endpoint, `${clientApi}${BASE}/oauth/token`);
    }
    const openid = await fetch(`${assistantAuth}/openid/issuer/.well-known/openid-configuration`);
    assert.equal(((await openid.json()) as { issuer: string }).issuer, `${assistantAuth}/openid/issuer`);
  });

  let chat: SignedInChat;
  let tvToken = '';
  const ask = async (text: string) => (await say(assistantAuth, chat, text)).text ?? '';

  it('a TV signs in by code, approved by telling the assistant on the chat page, after its Yes', async () => {
    const codes = (await (
      await fetch(`${clientApi}${BASE}/oauth/device_authorization`, {
        method: 'POST',
        body: new URLSearchParams({
          client_id: 'smarttv',
          device_id: 'prod-tv',
          device_name: 'Living room TV',
        }),
      })
    ).json()) as { device_code: string; user_code: string; verification_uri: string };
    assert.equal(codes.verification_uri, `${clientApi}${BASE}/device`);
    chat = await signInOnChatPage(assistantAuth, EMAIL);
    assert.match(await ask(`my TV shows ${codes.user_code}`), /Do you want me to sign the smarttv device/);
    assert.match(await ask('Yes'), /Done: the smarttv device with the code \w{4}-\w{4} is signed in/);
    const token = await fetch(`${clientApi}${BASE}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: codes.device_code,
        client_id: 'smarttv',
      }),
    });
    const body = (await token.json()) as { access_token?: string };
    assert.equal(token.status, 200, JSON.stringify(body));
    tvToken = body.access_token ?? '';
  });

  it('the TV saves a bookmark; the person asks what devices they have', async () => {
    const saved = await fetch(
      `${clientApi}${BASE}/smarttv/prod-tv/users/${family.userHash}/bookmarks/1001/120`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${tvToken}` },
      },
    );
    assert.equal(saved.status, 200, await saved.text());
    const listed = await ask('what devices do I have?');
    assert.match(listed, /You have 2 devices/);
    assert.match(listed, /Living room TV/);
    assert.match(listed, /Chat page/);
  });

  it('the person signs the TV out after a Yes: its token is refused from then on', async () => {
    assert.match(await ask('sign out the living room tv'), /Do you want me to sign «Living room TV» out/);
    const devices = `${clientApi}${BASE}/accounts/${ACCOUNT}/devices`;
    const status = async (headers: Record<string, string>) => (await fetch(devices, { headers })).status;
    assert.equal(await status({ authorization: `Bearer ${tvToken}` }), 200, 'nothing happens before the Yes');
    assert.match(await ask('Yes'), /Done: «Living room TV» is signed out/);
    assert.equal(await status({ authorization: `Bearer ${tvToken}` }), 401);
    assert.equal(await status({ 'x-api-key': operatorKey }), 200, 'the operator key made by the CLI works');
  });

  it('a process started for production without the public addresses warns, naming them', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const { CLIENT_API_PUBLIC_URL: _client, PUBLIC_BASE_URL: _auth, ...without } = family.common;
    const bare = await startServe(
      [],
      {
        ...without,
        SINTONIA_DATA_DIR: join(family.scratch, 'bare'),
        CLIENT_API_PORT: String(ports[0]),
        ASSISTANT_AUTH_PORT: String(ports[1]),
        AGENTS_PORT: String(ports[2]),
      },
      ports.map((port) => `http://127.0.0.1:${port}`),
      START_MS,
    );
    try {
      await until(() => bare.output().includes('Stop with Ctrl-C') || undefined, 'the banner');
      const warning = bare
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; missing?: string[] })
        .find((line) => line.level === 40 && line.missing);
      assert.deepEqual(warning?.missing, ['CLIENT_API_PUBLIC_URL', 'PUBLIC_BASE_URL']);
      assert.match(warning?.msg ?? '', /CLIENT_API_PUBLIC_URL and PUBLIC_BASE_URL not set/);
      assert.match(bare.output(), new RegExp(`client-api +http://127\\.0\\.0\\.1:${ports[0]} `));
    } finally {
      bare.child.kill('SIGTERM');
      await bare.exited;
    }
  });
});
