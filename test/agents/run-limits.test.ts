import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Agent } from '../../src/agents/agent.ts';
import { agentsPlugin, agentsService } from '../../src/agents/service.ts';
import { type App, buildServiceApp } from '../../src/core/http/service-app.ts';
import { createTestCore, type Env, type TestCore } from '../helpers/harness.ts';
import { sample } from '../helpers/metrics-text.ts';
import { awayFromMinuteEdge } from '../helpers/minute-edge.ts';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.ts';

/** Answers at once, or when `release` is called for the turns that wait. */
function echo(): Agent & { release(): void } {
  let waiting: Array<() => void> = [];
  return {
    name: 'echo',
    description: 'Answers what it heard; `wait` turns answer when released.',
    configured: () => true,
    async invoke(turn) {
      if (turn.input === 'wait') await new Promise<void>((resolve) => waiting.push(resolve));
      return { output: turn.input };
    },
    release() {
      for (const resolve of waiting) resolve();
      waiting = [];
    },
  };
}

/** The agents server over the echo agent, under the given limits. */
function server(overrides: Env) {
  let app: App;
  let core: TestCore;
  let jwks: JwksServer;
  let key = '';
  const agent = echo();
  return {
    agent,
    async start() {
      jwks = await startJwksServer();
      core = await createTestCore({
        PUBLIC_BASE_URL: jwks.baseUrl,
        ASSISTANT_JWKS_URL: jwks.jwksUrl,
        ...overrides,
      });
      app = await buildServiceApp(core, { ...agentsService, plugin: agentsPlugin(() => [agent]) });
      await app.ready();
      key = (await core.apiKeys.create('runtime', 'run-limits')).key;
    },
    async stop() {
      await app.close();
      await core.dispose();
      await jwks.close();
    },
    invoke(body: Record<string, unknown>, headers?: Record<string, string>) {
      return app.inject({
        method: 'POST',
        url: '/agents/echo/invoke',
        headers: headers ?? { 'x-api-key': key },
        payload: body,
      });
    },
    /** The assistant's channel calling for a conversation, bound to `speaker` when given. */
    async asChannel(conversationId: string, speaker?: string) {
      const jwt = await jwks.sign(
        {
          sub: 'dl_user',
          channel: 'directline',
          conversationId,
          ...(speaker ? { assistant_id: speaker } : {}),
        },
        { audience: 'sintonia-agents', issuer: jwks.issuer },
      );
      return { authorization: `Bearer ${jwt}` };
    },
    async refusals(limit: string): Promise<number> {
      const text = (await app.inject({ url: '/metrics', headers: { 'x-api-key': key } })).body;
      return sample(text, 'sintonia_limit_refusals_total', { limit }) ?? 0;
    },
  };
}

function assertRateLimited(response: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}) {
  assert.equal(response.statusCode, 429);
  const body = response.json() as { code: string; errors: Array<{ type: string }> };
  assert.equal(body.code, 'TOO_MANY_REQUESTS');
  assert.equal(body.errors[0]?.type, 'AGENT_RATE_LIMIT_ERROR');
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${String(response.headers['retry-after'])}`);
}

describe('agent turns per party per minute (AGENT_RUNS_PER_MINUTE)', () => {
  const agents = server({ AGENT_RUNS_PER_MINUTE: '3' });
  before(() => agents.start());
  after(() => agents.stop());

  describe('errors', () => {
    it('takes 3 turns of one anonymous conversation, then 429 AGENT_RATE_LIMIT_ERROR with Retry-After; another conversation still answers', async () => {
      await awayFromMinuteEdge();
      for (let turn = 0; turn < 3; turn++) {
        assert.equal((await agents.invoke({ input: 'hi', conversationId: 'c-1' })).statusCode, 200);
      }
      assertRateLimited(await agents.invoke({ input: 'hi', conversationId: 'c-1' }));
      assert.equal((await agents.invoke({ input: 'hi', conversationId: 'c-2' })).statusCode, 200);
      assert.equal(await agents.refusals('agent_runs_per_party'), 1);
    });

    it('counts a person across conversations: the channel’s turns for one speaker share their 3', async () => {
      await awayFromMinuteEdge();
      for (const conversationId of ['p-1', 'p-2', 'p-3']) {
        const headers = await agents.asChannel(conversationId, 'person-1');
        assert.equal((await agents.invoke({ input: 'hi', conversationId }, headers)).statusCode, 200);
      }
      const headers = await agents.asChannel('p-4', 'person-1');
      assertRateLimited(await agents.invoke({ input: 'hi', conversationId: 'p-4' }, headers));
      const other = await agents.asChannel('p-4', 'person-2');
      assert.equal((await agents.invoke({ input: 'hi', conversationId: 'p-4' }, other)).statusCode, 200);
    });
  });
});

describe('agent turns of all parties per minute (AGENT_RUNS_PER_MINUTE_TOTAL)', () => {
  const agents = server({ AGENT_RUNS_PER_MINUTE_TOTAL: '4' });
  before(() => agents.start());
  after(() => agents.stop());

  describe('errors', () => {
    it('takes 4 turns of different conversations, then 429 for any conversation', async () => {
      await awayFromMinuteEdge();
      for (let turn = 0; turn < 4; turn++) {
        assert.equal((await agents.invoke({ input: 'hi', conversationId: `t-${turn}` })).statusCode, 200);
      }
      assertRateLimited(await agents.invoke({ input: 'hi', conversationId: 't-new' }));
      assert.equal(await agents.refusals('agent_runs_total'), 1);
    });
  });
});

describe('agent turns at once in one process (AGENT_CONCURRENT_RUNS)', () => {
  const agents = server({ AGENT_CONCURRENT_RUNS: '2' });
  before(() => agents.start());
  after(() => agents.stop());

  describe('errors', () => {
    it('runs 2 turns at once; a third is 429 with Retry-After 1, and room comes back as they end', async () => {
      const running = [
        agents.invoke({ input: 'wait', conversationId: 'w-1' }),
        agents.invoke({ input: 'wait', conversationId: 'w-2' }),
      ];
      // The two are admitted before the third is asked (each waits in the agent until released).
      await new Promise((resolve) => setTimeout(resolve, 200));
      const third = await agents.invoke({ input: 'hi', conversationId: 'w-3' });
      assertRateLimited(third);
      assert.equal(third.headers['retry-after'], '1');
      agents.agent.release();
      for (const response of await Promise.all(running)) assert.equal(response.statusCode, 200);
      assert.equal((await agents.invoke({ input: 'hi', conversationId: 'w-3' })).statusCode, 200);
      assert.equal(await agents.refusals('agent_concurrent_runs'), 1);
    });
  });
});
