import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { type SignedInChat, say, signInOnChatPage } from '../helpers/chat-page-person.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';

const BASE = '/api/v1';
const MAX_DEVICES = 5;

/**
 * The rule-based assistant, for a person signed in on the chat page, over the embedded Direct Line
 * channel and the real client-api: device states told apart (signed out is not disabled), what they were
 * watching and where they stopped, how many more devices fit, sign out everywhere after a yes; in
 * English and Spanish; and, plainly, what it cannot do.
 */
describe('the account within reach of the rule-based assistant', () => {
  let core: TestCore;
  let family: RunningFamily;
  let assistantAuth: string;
  let clientApi: string;
  let tokens: Record<string, string>;
  let chat: SignedInChat;

  const account = 'REACH-1';
  const ask = async (text: string) => (await say(assistantAuth, chat, text)).text ?? '';
  const status = (token: string) =>
    fetch(`${clientApi}/accounts/${account}/devices`, { headers: { authorization: `Bearer ${token}` } }).then(
      (response) => response.status,
    );

  before(async () => {
    core = await createTestCore({ CHAT_PAGE: 'on', MAX_DEVICES_PER_ACCOUNT: String(MAX_DEVICES) });
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
    assistantAuth = family.url('assistant-auth');
    clientApi = `${family.url('client-api')}${BASE}`;
    tokens = await signedInHousehold(core, clientApi, {
      accountNumber: account,
      email: 'reach@example.test',
      devices: [
        ['reach-bed', 'Bedroom TV'],
        ['reach-liv', 'Living room'],
      ],
    });
    // The bedroom TV played two items: 1002 (2 min 05 s) first, then 1001 (1 h 01 min).
    const hash = await fetch(`${clientApi}/accounts/${account}/userHash`, {
      headers: { authorization: `Bearer ${tokens['reach-bed']}` },
    }).then(async (response) => ((await response.json()) as { userHash: string }).userHash);
    for (const [contentId, offset, ago] of [
      [1002, 125, 60_000],
      [1001, 3660, 1_000],
    ] as const) {
      const at = encodeURIComponent(new Date(Date.now() - ago).toISOString());
      const saved = await fetch(
        `${clientApi}/smarttv/reach-bed/users/${hash}/bookmarks/${contentId}/${offset}?at=${at}`,
        { method: 'POST', headers: { authorization: `Bearer ${tokens['reach-bed']}` } },
      );
      assert.equal(saved.status, 200, await saved.text());
    }
    chat = await signInOnChatPage(assistantAuth, 'reach@example.test');
  });
  after(async () => {
    await family?.close();
    await core?.dispose();
  });

  it('tells signed in, signed out and disabled apart, in English and Spanish', async () => {
    assert.match(await ask('what devices do I have?'), /Bedroom TV \(enabled, signed in, playing now\)/);
    assert.match(await ask('sign out the bedroom tv'), /Do you want me to sign «Bedroom TV» out/);
    assert.match(await ask('yes'), /Done: «Bedroom TV» is signed out/);
    const listed = await ask('what devices do I have?');
    assert.match(listed, /Bedroom TV \(enabled, signed out/);
    assert.match(listed, /Living room \(enabled, signed in\)/);
    assert.match(await ask('¿qué dispositivos tengo?'), /Bedroom TV \(activo, sesión cerrada/);
  });

  it('says what they were watching, newest first, and where they stopped in one item', async () => {
    assert.match(
      await ask('what was I watching?'),
      /^What you were watching, newest first: content 1001 at 1 h 01 min \((?:today|yesterday)\) and content 1002 at 2 min \((?:today|yesterday)\)\.$/,
    );
    assert.match(
      await ask('where was I in 1002?'),
      /^You stopped at 2 min in content 1002 \((?:today|yesterday)\)\.$/,
    );
    assert.match(await ask('where was I in 7?'), /I have no saved position for content 7/);
    assert.match(
      await ask('¿qué estaba viendo?'),
      /^Lo último que estabas viendo: el contenido 1001 en 1 h 01 min/,
    );
  });

  it('tells how many more devices fit', async () => {
    // Bedroom TV, Living room and the chat page itself are enabled.
    assert.equal(
      await ask('how many more devices can I add?'),
      `You have 3 devices, 3 enabled; your account can hold up to ${MAX_DEVICES} enabled. You can add ${MAX_DEVICES - 3} more.`,
    );
    assert.match(await ask('¿cuántos dispositivos más puedo añadir?'), /Puedes añadir 2 más\./);
  });

  it('says plainly what it cannot do', async () => {
    assert.match(await ask('change my password'), /^I can't do that here: I don't change passwords/);
    assert.match(await ask('quiero pagar la factura'), /^Eso no puedo hacerlo aquí/);
  });

  it('signs out everywhere only after the yes: every device, this chat’s link included', async () => {
    assert.match(await ask('sign out everywhere'), /Do you want me to sign out every device of your account/);
    assert.equal(await status(tokens['reach-liv'] ?? ''), 200, 'nothing happens before the yes');
    assert.match(await ask('yes'), /^Done: every device of your account is signed out/);
    assert.equal(await status(tokens['reach-liv'] ?? ''), 401);
    // The chat's own session closed too: the account is out of the assistant's reach.
    assert.match(await ask('what devices do I have?'), /account linked: sign in/);
  });
});
