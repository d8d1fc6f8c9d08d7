import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CONFIRMATION_TTL_MS } from '../../src/agents/tools/confirmations.ts';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { type DirectLineOptions, directLineJs } from '../helpers/directline-js.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { until } from '../helpers/until.ts';

const { DirectLine } = await directLineJs();

interface SeenActivity {
  type: string;
  id?: string;
  text?: string;
  replyToId?: string;
  suggestedActions?: { actions: Array<{ title: string; value: unknown }> };
}

const BASE = '/api/v1';

/**
 * The whole path of the assistant acting for its linked pay-TV user: devices made through client-api, the
 * person linked through the gateway's callback, a conversation bound to them over the embedded channel
 * (DirectLineJS), the rule-based assistant listing, signing out (after a yes) and refusing what it must.
 */
describe('the assistant acts for its linked user over Direct Line', () => {
  let core: TestCore;
  let family: RunningFamily;
  let gatewayKey: string;

  before(async () => {
    core = await createTestCore();
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
    gatewayKey = (await core.apiKeys.create('gateway', 'gateway')).key;
  });
  after(async () => {
    await family.close();
    await core.dispose();
  });

  /** An account with two signed-in devices; answers their access tokens. */
  async function account(accountNumber: string) {
    const tokens = await signedInHousehold(core, `${family.url('client-api')}${BASE}`, {
      accountNumber,
      email: `${accountNumber.toLowerCase()}@example.test`,
      devices: [
        [`${accountNumber}-bed`, 'Bedroom TV'],
        [`${accountNumber}-liv`, 'Salón'],
      ],
    });
    return {
      accountNumber,
      bedroom: tokens[`${accountNumber}-bed`] ?? '',
      living: tokens[`${accountNumber}-liv`] ?? '',
    };
  }

  const devicesAnswer = (accountNumber: string, token: string) =>
    fetch(`${family.url('client-api')}${BASE}/accounts/${accountNumber}/devices`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((response) => response.status);

  /** The gateway links the person's channel identity to the account, as its account-linking callback does. */
  async function link(identity: string, accountNumber: string) {
    const { data } = makeCallbackParam(core, { identity, channel: 'web', accountNumber });
    const response = await fetch(
      `${family.url('assistant-auth')}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    );
    assert.equal(response.status, 201);
  }

  /** A DirectLineJS client on a conversation bound to the identity (the gateway asks for the token). */
  async function converse(identity: string) {
    const response = await fetch(`${family.url('assistant-auth')}/token/wss`, {
      headers: { 'x-api-key': gatewayKey, 'x-channel': 'web', 'x-channel-user-id': identity },
    });
    assert.equal(response.status, 200);
    const wss = (await response.json()) as { conversationId: string; token: string; streamUrl: string };
    const directLine = new DirectLine({
      token: wss.token,
      conversationId: wss.conversationId,
      streamUrl: wss.streamUrl,
      domain: `${family.url('assistant-auth')}/v3/directline`,
      webSocket: true,
      timeout: 2000,
    } as DirectLineOptions);
    const seen: SeenActivity[] = [];
    const subscription = directLine.activity$.subscribe((activity) => seen.push(activity as SeenActivity));
    const say = async (text: string): Promise<SeenActivity> => {
      const id = await new Promise<string>((resolve, reject) =>
        directLine
          .postActivity({ type: 'message', from: { id: 'ignored' }, text })
          .subscribe(resolve, reject),
      );
      return until(
        () => seen.find((activity) => activity.type === 'message' && activity.replyToId === id),
        `the answer to "${text}"`,
      );
    };
    return {
      conversationId: wss.conversationId,
      say,
      stop() {
        subscription.unsubscribe();
        directLine.end();
      },
    };
  }

  it('lists the devices by name, signs one out only after "yes" (its token refused at once, the other untouched), and does nothing on "no"', async () => {
    const home = await account('LNK-1001');
    const identity = randomUUID();
    await link(identity, home.accountNumber);
    const chat = await converse(identity);
    try {
      const listed = await chat.say('What devices do I have?');
      assert.match(listed.text ?? '', /Bedroom TV/);
      assert.match(listed.text ?? '', /Salón/);

      const declined = await chat.say('sign out the living room');
      assert.equal(declined.text?.includes('«Salón»'), false, 'no device is called living room');
      const asked = await chat.say('sign out the salon');
      assert.match(asked.text ?? '', /^Do you want me to sign «Salón» out/);
      assert.deepEqual(
        asked.suggestedActions?.actions.map((action) => action.title),
        ['Yes', 'No'],
      );
      const no = await chat.say('No');
      assert.match(no.text ?? '', /won't do it/);
      assert.equal(await devicesAnswer(home.accountNumber, home.living), 200, '"no" changed nothing');

      const again = await chat.say('sign out the bedroom tv');
      assert.match(again.text ?? '', /sign «Bedroom TV» out/);
      assert.equal(await devicesAnswer(home.accountNumber, home.bedroom), 200, 'nothing before the yes');
      const done = await chat.say('Yes');
      assert.match(done.text ?? '', /Bedroom TV/);
      assert.equal(
        await devicesAnswer(home.accountNumber, home.bedroom),
        401,
        'signed out: its token is refused',
      );
      assert.equal(
        await devicesAnswer(home.accountNumber, home.living),
        200,
        'the other device is untouched',
      );

      const replayed = await chat.say('Yes');
      assert.match(replayed.text ?? '', /nothing waiting/, 'a confirmation runs once');
    } finally {
      chat.stop();
    }
  });

  it('answers in Spanish, and an expired confirmation does nothing', async () => {
    const home = await account('LNK-2001');
    const identity = randomUUID();
    await link(identity, home.accountNumber);
    const chat = await converse(identity);
    try {
      const listed = await chat.say('¿Qué dispositivos tengo?');
      assert.match(listed.text ?? '', /^Tienes 2 dispositivos/);
      const asked = await chat.say('cierra la sesión de la tele del dormitorio');
      // "dormitorio" is not a word of any name: the assistant says which devices there are.
      assert.match(asked.text ?? '', /No encuentro ningún dispositivo/);
      const rename = await chat.say('cambia el nombre de Bedroom TV a Habitación');
      assert.match(
        rename.text ?? '',
        /^¿Quieres que vaya a cambiar el nombre de «Bedroom TV» a «Habitación»\?/,
      );
      assert.deepEqual(
        rename.suggestedActions?.actions.map((action) => action.title),
        ['Sí', 'No'],
      );
      // Let the confirmation's two minutes pass in the store rather than waiting for them.
      await core.database.db
        .withTables<import('../../src/agents/tables.ts').AgentTables>()
        .updateTable('agent_confirmations')
        .set({ expires_at: Date.now() - CONFIRMATION_TTL_MS })
        .execute();
      const late = await chat.say('Sí');
      assert.match(late.text ?? '', /No hay nada pendiente/);
      const names = await fetch(`${family.url('client-api')}${BASE}/accounts/${home.accountNumber}/devices`, {
        headers: { authorization: `Bearer ${home.living}` },
      }).then((response) => response.json() as Promise<Array<{ name: string }>>);
      assert.deepEqual(names.map((device) => device.name).sort(), ['Bedroom TV', 'Salón'], 'nothing renamed');
    } finally {
      chat.stop();
    }
  });

  it('when client-api cannot be reached, the person gets a message saying so (502 in the family body), never silence', async () => {
    const home = await account('LNK-4001');
    const identity = randomUUID();
    await link(identity, home.accountNumber);
    const chat = await converse(identity);
    const clientApi = family.url('client-api');
    core.setServiceUrl('client-api', 'http://127.0.0.1:9');
    try {
      const answer = (await chat.say('what devices do I have?')) as SeenActivity & {
        value?: { code: string; errors: Array<{ type: string }> };
        channelData?: { error?: { status: number } };
      };
      assert.match(answer.text ?? '', /^The assistant could not answer/);
      assert.equal(answer.channelData?.error?.status, 502);
      assert.equal(answer.value?.errors[0]?.type, 'AGENT_EXTERNAL_SERVICE_ERROR');
      assert.doesNotMatch(answer.text ?? '', /at \S+ \(|ECONNREFUSED/, 'no stack, no socket error');
    } finally {
      core.setServiceUrl('client-api', clientApi);
      chat.stop();
    }
  });

  it('an identity that is not linked gets no account data, only how to link', async () => {
    await account('LNK-3001');
    const chat = await converse(randomUUID());
    try {
      const answer = await chat.say('what devices do I have?');
      assert.match(answer.text ?? '', /account linked/);
      assert.doesNotMatch(answer.text ?? '', /Bedroom|Salón|LNK-3001/);
    } finally {
      chat.stop();
    }
  });
});
