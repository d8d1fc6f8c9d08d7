import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FAMILY_KEY_NAME, familyRuntimeKey } from '../../src/core/api-keys/family-key.ts';
import type { Core } from '../../src/core/core.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { say, signInOnChatPage } from '../helpers/chat-page-person.ts';
import { capturingLogger, createTestCore, type TestCore, testDatabase } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';

const BASE = '/api/v1';

/**
 * Without ASSISTANT_RUNTIME_KEY the family calls its own services with a runtime key derived from the
 * master key (docs/decisions-production.md): the assistant acts on a linked person's account with nothing
 * more set, and a turn the deployment cannot answer shows the person no setting of the operator's.
 */
describe(`the family's own runtime key (${testDatabase})`, () => {
  let core: TestCore;
  let family: RunningFamily;

  before(async () => {
    core = await createTestCore({ CHAT_PAGE: 'on' });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
  });
  after(async () => {
    await family?.close();
    await core?.dispose();
  });

  it('is recorded once, as a runtime key, and derived the same by every process of the store', async () => {
    const family = (await core.apiKeys.list()).filter((key) => key.name === FAMILY_KEY_NAME);
    assert.equal(family.length, 1);
    assert.equal(family[0]?.keyClass, 'runtime');
    const again = await familyRuntimeKey(core);
    assert.equal(again, core.config.ASSISTANT_RUNTIME_KEY, 'another process derives the same key');
    assert.equal((await core.apiKeys.verify(again))?.id, family[0]?.id);
    assert.equal((await core.apiKeys.list()).filter((key) => key.name === FAMILY_KEY_NAME).length, 1);
  });

  it('another master key (another environment) derives another key', async () => {
    const other = await createTestCore();
    try {
      assert.notEqual(await familyRuntimeKey(other), core.config.ASSISTANT_RUNTIME_KEY);
    } finally {
      await other.dispose();
    }
  });

  it('with it, a person signed in on the chat page hears their devices', async () => {
    await signedInHousehold(core, `${family.url('client-api')}${BASE}`, {
      accountNumber: 'FAM-1',
      email: 'fam-1@example.test',
      devices: [['fam-1-tv', 'Bedroom TV']],
    });
    const chat = await signInOnChatPage(family.url('assistant-auth'), 'fam-1@example.test');
    const listed = await say(family.url('assistant-auth'), chat, 'what devices do I have?');
    assert.match(listed.text ?? '', /You have 2 devices/);
    assert.match(listed.text ?? '', /Bedroom TV/);
  });

  it('a turn the deployment cannot answer tells the person nothing of its settings; the operator reads an error line', async () => {
    const chatAgent = await createTestCore({ CHAT_PAGE: 'on', DIRECTLINE_AGENT: 'chat' });
    const captured = capturingLogger();
    // The same core (its config included, which the family completes) with a logger the test reads.
    const logged: Core = Object.assign(Object.create(chatAgent), { logger: captured.logger });
    const running = await startFamily(logged, ['client-api', 'assistant-auth', 'agents']);
    try {
      await signedInHousehold(chatAgent, `${running.url('client-api')}${BASE}`, {
        accountNumber: 'FAM-2',
        email: 'fam-2@example.test',
        devices: [],
      });
      const chat = await signInOnChatPage(running.url('assistant-auth'), 'fam-2@example.test');
      const answer = await say(running.url('assistant-auth'), chat, 'what devices do I have?');
      assert.equal(answer.text, 'The assistant is not available right now. Please try again later.');
      assert.doesNotMatch(JSON.stringify(answer), /MODEL_BASE_URL/);
      const line = captured.lines.find(
        (entry) => entry.level === 50 && /MODEL_BASE_URL/.test(String(entry.msg)),
      );
      assert.ok(line, `an error line names the setting: ${JSON.stringify(captured.lines.slice(-5))}`);
    } finally {
      await running.close();
      await chatAgent.dispose();
    }
  });
});
