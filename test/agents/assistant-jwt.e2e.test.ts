import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAssistantSigner } from '../../src/assistant-auth/signing/signer.ts';
import { startTestFamily } from '../helpers/harness.ts';
import { parseEvents } from './helpers/sse.ts';

/** The contract with assistant-auth, end to end: its signer's tokens open the agents server by default. */
describe('agents server with the assistant’s real JWTs', () => {
  let family: Awaited<ReturnType<typeof startTestFamily>>;
  let agentsUrl: string;
  let sign: (alg: 'ES256' | 'RS256') => Promise<string>;
  before(async () => {
    family = await startTestFamily(['assistant-auth', 'agents']);
    agentsUrl = family.family.url('agents');
    const signer = createAssistantSigner(family.core);
    sign = (alg) => signer.sign({ sub: 'conversation-e2e' }, { audience: 'sintonia-agents', alg });
  });
  after(() => family.close());

  describe('happy', () => {
    for (const alg of ['ES256', 'RS256'] as const) {
      it(`invokes with an ${alg} token from assistant-auth's signer`, async () => {
        const response = await fetch(`${agentsUrl}/agents/assistant/invoke`, {
          method: 'POST',
          headers: { authorization: `Bearer ${await sign(alg)}`, 'content-type': 'application/json' },
          body: JSON.stringify({ input: 'hola', conversationId: 'dl-conv-1' }),
        });
        assert.equal(response.status, 200);
        const body = (await response.json()) as { agent: string; output: string; conversationId: string };
        assert.equal(body.agent, 'assistant');
        assert.equal(body.conversationId, 'dl-conv-1');
        assert.match(body.output, /^¡Hola!/);
      });
    }

    it('streams over real HTTP', async () => {
      const response = await fetch(`${agentsUrl}/agents/assistant/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await sign('ES256')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'what can you do?' }),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      const events = parseEvents(await response.text());
      assert.equal(events.at(-1)?.event, 'done');
      assert.match((events.at(-1)?.data as { output?: string } | undefined)?.output ?? '', /^I can explain/);
    });
  });

  describe('security', () => {
    it('refuses a token the assistant signed for another audience', async () => {
      const signer = createAssistantSigner(family.core);
      const token = await signer.sign({}, { audience: 'sintonia-other' });
      const response = await fetch(`${agentsUrl}/agents`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.status, 401);
      assert.equal(
        ((await response.json()) as { errors: Array<{ type: string }> }).errors[0]?.type,
        'TOKEN_INVALID',
      );
    });
  });
});
