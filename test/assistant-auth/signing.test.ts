import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createAssistantSigner } from '../../src/assistant-auth/signing/signer.ts';
import { createSigningKeyRepository } from '../../src/assistant-auth/signing/signing-key-repository.ts';
import { MAX_SIGNED_TTL_SECONDS } from '../../src/assistant-auth/signing/signing-keys.ts';
import type { AssistantAuthTables } from '../../src/assistant-auth/tables.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { runCli } from '../helpers/processes.ts';

interface Discovery {
  issuer: string;
  jwks_uri: string;
  id_token_signing_alg_values_supported: string[];
  response_types_supported: string[];
  subject_types_supported: string[];
}

describe('assistant signing keys (real server)', () => {
  let core: TestCore;
  let base: string;
  let close: () => Promise<void>;
  before(async () => {
    const started = await startTestFamily(['assistant-auth']);
    core = started.core;
    close = started.close;
    base = started.family.url('assistant-auth');
  });
  after(async () => close());

  const discover = async () => {
    const response = await fetch(`${base}/openid/issuer/.well-known/openid-configuration`);
    assert.equal(response.status, 200);
    return (await response.json()) as Discovery;
  };

  describe('happy', () => {
    it('publishes a discovery document naming the issuer and the key set', async () => {
      const discovery = await discover();
      assert.deepEqual(discovery, {
        issuer: `${base}/openid/issuer`,
        jwks_uri: `${base}/openid/jwk`,
        id_token_signing_alg_values_supported: ['ES256', 'RS256'],
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
      });
      const jwks = await fetch(discovery.jwks_uri);
      assert.equal(jwks.status, 200);
      assert.equal(jwks.headers.get('cache-control'), 'public, max-age=300');
      const { keys } = (await jwks.json()) as { keys: Array<Record<string, string>> };
      assert.deepEqual(keys.map((key) => key.alg).sort(), ['ES256', 'RS256']);
      for (const key of keys) {
        assert.equal(key.use, 'sig');
        assert.ok(key.kid);
        assert.equal(key.d, undefined, 'no private part is published');
      }
    });

    it('signs tokens that jose verifies against /openid/jwk before and after a rotation', async () => {
      const signer = createAssistantSigner(core);
      const discovery = await discover();
      const audience = 'sintonia-agents';
      const beforeEs = await signer.sign({ sub: 'assistant' }, { audience });
      const beforeRs = await signer.sign({ sub: 'assistant' }, { audience, alg: 'RS256' });
      const oldKids = [beforeEs, beforeRs].map((token) => String(decodeProtectedHeader(token).kid));

      // The CLI is another process: its lead is long enough that this test never races it.
      const rotated = await runCli(['signing-key', 'rotate'], {
        ...core.env,
        SIGNING_KEY_PUBLISH_LEAD: '600',
      });
      assert.equal(rotated.code, 0, rotated.stderr);
      const rotation = JSON.parse(rotated.stdout) as { created: Array<{ kid: string; alg: string }> };
      assert.equal(rotation.created.length, 2);

      // Published before it signs: right after the rotation the old keys still sign, the new are listed.
      const duringLead = await signer.sign({ sub: 'assistant' }, { audience });
      assert.equal(decodeProtectedHeader(duringLead).kid, oldKids[0]);
      const published = (await (await fetch(discovery.jwks_uri)).json()) as { keys: Array<{ kid: string }> };
      const publishedKids = published.keys.map((key) => key.kid);
      for (const kid of [...oldKids, ...rotation.created.map((key) => key.kid)]) {
        assert.ok(publishedKids.includes(kid), `${kid} is published`);
      }
      // A verifier that fetched the key set now needs no refetch once the new keys sign.
      const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
      await jwtVerify(duringLead, jwks, { issuer: discovery.issuer, audience });
      // The lead passes: moved forward in the store rather than waited for.
      await core.database.db
        .withTables<AssistantAuthTables>()
        .updateTable('assistant_signing_keys')
        .set({ activates_at: Date.now() - 1 })
        .where(
          'kid',
          'in',
          rotation.created.map((key) => key.kid),
        )
        .execute();
      const afterEs = await signer.sign({ sub: 'assistant' }, { audience });
      const afterRs = await signer.sign({ sub: 'assistant' }, { audience, alg: 'RS256' });
      const newKids = [decodeProtectedHeader(afterEs).kid, decodeProtectedHeader(afterRs).kid];
      assert.deepEqual(newKids.sort(), rotation.created.map((key) => key.kid).sort());

      for (const token of [beforeEs, beforeRs, duringLead, afterEs, afterRs]) {
        const { payload } = await jwtVerify(token, jwks, { issuer: discovery.issuer, audience });
        assert.equal(payload.sub, 'assistant');
        assert.ok(typeof payload.jti === 'string');
        assert.equal(Number(payload.exp) - Number(payload.iat), core.config.SIGNED_TOKEN_TTL);
      }
      // A verifier with the wrong audience refuses.
      await assert.rejects(jwtVerify(afterEs, jwks, { issuer: discovery.issuer, audience: 'someone-else' }));
    });

    it('stops publishing a superseded key once what it signed has expired', async () => {
      const repository = createSigningKeyRepository(core.database);
      const published = await repository.published(Date.now());
      const superseded = published.filter((key) => key.retiresAt !== null);
      const successors = published.filter((key) => key.retiresAt === null);
      assert.equal(superseded.length, 2);
      for (const key of superseded) {
        const successor = successors.find((other) => other.alg === key.alg);
        assert.ok(successor, `${key.alg} has a successor`);
        // Its last token was signed before the successor activated and lives at most a day (the test moved
        // that activation earlier, so the retirement lies at least a day after it).
        assert.ok((key.retiresAt ?? 0) >= successor.activatesAt + MAX_SIGNED_TTL_SECONDS * 1000);
        const later = await repository.published((key.retiresAt ?? 0) + 1);
        assert.ok(!later.some((other) => other.kid === key.kid));
        assert.ok(later.some((other) => other.kid === successor.kid));
      }
    });
  });

  describe('errors', () => {
    it('refuses a lifetime beyond a day', async () => {
      const signer = createAssistantSigner(core);
      await assert.rejects(
        signer.sign({}, { audience: 'x', ttlSeconds: MAX_SIGNED_TTL_SECONDS + 1 }),
        RangeError,
      );
    });
  });

  describe('security', () => {
    it('keeps the private keys encrypted at rest', async () => {
      const db = core.database.db.withTables<AssistantAuthTables>();
      const rows = await db.selectFrom('assistant_signing_keys').selectAll().execute();
      assert.ok(rows.length >= 2);
      for (const row of rows) {
        assert.match(row.private_jwk_sealed, /^v1\./);
        assert.ok(!row.private_jwk_sealed.includes('"d"'));
      }
    });
  });
});
