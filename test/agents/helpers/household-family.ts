import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AgentTurn } from '../../../src/agents/agent.ts';
import { createAccountClient } from '../../../src/agents/tools/account-client.ts';
import type { AccountAccess } from '../../../src/agents/tools/account-tools.ts';
import { createConfirmations } from '../../../src/agents/tools/confirmations.ts';
import { makeCallbackParam } from '../../../src/assistant-auth/callbacks/callback-param.ts';
import { startTestFamily, type TestCore } from '../../helpers/harness.ts';
import { signedInHousehold } from '../../helpers/household.ts';
import { openSse, type SseEvent, type SseStream } from '../../helpers/sse.ts';
import { until } from '../../helpers/until.ts';

/** A linked household: its devices' tokens, its user hash and the assistant user linked to it. */
export interface LinkedHousehold {
  accountNumber: string;
  assistantId: string;
  userHash: string;
  tokens: Record<string, string>;
  /** A turn of the linked person in a conversation. */
  turn(input: string, conversationId?: string): AgentTurn;
}

/**
 * The real client-api and assistant-auth for the household tests of the agents (issue 43 item 6): linked
 * households whose devices (set-top boxes) play (streams), hold their command streams and read commands.
 */
export async function startHouseholdFamily(env: Record<string, string> = {}) {
  const { core, close } = await startTestFamily(['client-api', 'assistant-auth'], {
    MAX_DEVICES_PER_ACCOUNT: '6',
    ...env,
  });
  const base = `${core.serviceUrl('client-api')}/api/v1`;
  const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
  const agentsCore = Object.assign(Object.create(core), {
    config: { ...core.config, ASSISTANT_RUNTIME_KEY: runtimeKey },
  }) as TestCore;
  const accounts: AccountAccess = {
    client: createAccountClient(agentsCore),
    confirmations: createConfirmations(core),
  };
  const open: SseStream[] = [];

  async function household(
    accountNumber: string,
    devices: ReadonlyArray<readonly [string, string]>,
  ): Promise<LinkedHousehold> {
    const tokens = await signedInHousehold(core, base, {
      accountNumber,
      email: `${accountNumber.toLowerCase()}@example.test`,
      devices,
    });
    const { data } = makeCallbackParam(core, { identity: randomUUID(), channel: 'web', accountNumber });
    const linked = await fetch(
      `${core.serviceUrl('assistant-auth')}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    );
    assert.equal(linked.status, 201);
    const { assistantId } = (await linked.json()) as { assistantId: string };
    const anyToken = Object.values(tokens)[0] ?? '';
    const claims = JSON.parse(Buffer.from(anyToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return {
      accountNumber,
      assistantId,
      userHash: String(claims.uh),
      tokens,
      turn: (input, conversationId = randomUUID()) => ({
        input,
        conversationId,
        speaker: { assistantId },
        signal: new AbortController().signal,
      }),
    };
  }

  /** The device starts (or reports) playing `contentId` at `offset` seconds: 200. */
  async function play(home: LinkedHousehold, device: string, contentId: number, offset: number) {
    const response = await fetch(
      `${base}/smarttv/${device}/users/${home.userHash}/playback/${contentId}?offset=${offset}`,
      { method: 'PUT', headers: { authorization: `Bearer ${home.tokens[device]}` } },
    );
    assert.equal(response.status, 200, await response.text());
  }

  /** The devices stop playing (whether they were or not). */
  async function stopAll(home: LinkedHousehold) {
    for (const [device, token] of Object.entries(home.tokens)) {
      const response = await fetch(`${base}/smarttv/${device}/users/${home.userHash}/playback`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.ok(response.status < 300, `${device}: ${response.status}`);
    }
  }

  /** The device holds its command stream (as the TV page does), connected. */
  async function hold(home: LinkedHousehold, device: string): Promise<SseStream> {
    const stream = await openSse(`${base}/smarttv/${device}/commands`, {
      authorization: `Bearer ${home.tokens[device]}`,
    });
    open.push(stream);
    assert.equal(stream.status, 200, stream.body);
    await stream.comment('connected');
    return stream;
  }

  /**
   * The held command streams close, and client-api has let them go (no stream record left): a case that
   * holds none finds every device not connected, whatever the cases before it held.
   */
  async function releaseAll() {
    for (const stream of open.splice(0)) stream.close();
    const streams = core.database.db.withTables<{ command_streams: { device_id: string } }>();
    await until(async () => {
      const held = await streams
        .selectFrom('command_streams')
        .select('device_id')
        .limit(1)
        .executeTakeFirst();
      return held === undefined ? true : undefined;
    }, 'client-api to let the held command streams go');
  }

  /** The next command on a held stream, parsed, acknowledged as a TV does. */
  async function command(home: LinkedHousehold, device: string, stream: SseStream) {
    const event: SseEvent = await stream.next();
    assert.equal(event.event, 'command');
    const body = JSON.parse(event.data) as { id: string; type: string; contentId?: number; offset?: number };
    const ack = await fetch(`${base}/smarttv/${device}/commands/${body.id}/ack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${home.tokens[device]}` },
    });
    assert.equal(ack.status, 204);
    return body;
  }

  return {
    core,
    accounts,
    household,
    play,
    stopAll,
    hold,
    releaseAll,
    command,
    async close() {
      for (const stream of open) stream.close();
      await close();
    },
  };
}

export type HouseholdFamily = Awaited<ReturnType<typeof startHouseholdFamily>>;
