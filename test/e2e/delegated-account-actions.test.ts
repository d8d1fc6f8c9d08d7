import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { createAccountClient } from '../../src/agents/tools/account-client.ts';
import { createAccountTools } from '../../src/agents/tools/account-tools.ts';
import { createConfirmations } from '../../src/agents/tools/confirmations.ts';
import { createAssistantSigner } from '../../src/assistant-auth/signing/signer.ts';
import { assistantIssuer } from '../../src/core/assistant-tokens.ts';
import { CLIENT_API_AUDIENCE } from '../../src/core/delegation.ts';
import { type DelegationFamily, type JsonInit, startDelegationFamily } from '../helpers/delegated.ts';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';

const BASE = '/api/v1';

interface Answer {
  status: number;
  body: unknown;
}

/**
 * The assistant acting for its linked person on client-api: a delegated token from assistant-auth,
 * verified by client-api against the published keys, limited to one account and its scopes; and the
 * agents' account tools driving it, confirmation included.
 */
describe('delegated account actions', () => {
  let family: DelegationFamily;

  const call = (url: string, init?: JsonInit): Promise<Answer> => family.call(url, init);
  const errorType = (answer: Answer) =>
    (answer.body as { errors?: Array<{ type: string }> }).errors?.[0]?.type;

  /** An account with one user and two signed-in devices, and an assistant user linked to it. */
  async function household(accountNumber: string) {
    const tokens = await signedInHousehold(family.core, `${family.api}`, {
      accountNumber,
      email: `${accountNumber.toLowerCase()}@example.test`,
      devices: [
        [`${accountNumber}-bed`, 'Bedroom TV'],
        [`${accountNumber}-liv`, 'Living room'],
      ],
    });
    const bedroom = tokens[`${accountNumber}-bed`] ?? '';
    const living = tokens[`${accountNumber}-liv`] ?? '';
    const assistantId = await family.linkedAssistant(accountNumber);
    return { accountNumber, assistantId, devices: { bedroom, living } };
  }

  before(async () => {
    family = await startDelegationFamily();
  });
  after(() => family.close());

  it('lists, renames, disables and signs out the linked account’s devices; the signed-out token is refused at once', async () => {
    const home = await household('DLG-1001');
    const token = await family.delegation(home.assistantId);
    const account = `${family.api}/accounts/${home.accountNumber}`;
    const listed = await call(`${account}/devices`, { token });
    assert.equal(listed.status, 200);
    const devices = listed.body as Array<{ mediaPlayerId: string; name: string }>;
    assert.deepEqual(devices.map((device) => device.name).sort(), ['Bedroom TV', 'Living room']);
    assert.equal((await call(`${account}/devices/playing`, { token })).status, 200);
    const renamed = await call(`${account}/devices/DLG-1001-liv/name`, {
      method: 'PUT',
      token,
      body: 'Salón',
    });
    assert.equal(renamed.status, 200);
    const signedOut = await call(`${account}/devices/DLG-1001-bed/sessions`, { method: 'DELETE', token });
    assert.equal(signedOut.status, 204);
    const refused = await call(`${account}/devices`, { token: home.devices.bedroom });
    assert.equal(refused.status, 401, 'the signed-out device’s token is refused on its next request');
    assert.equal(
      (await call(`${account}/devices`, { token: home.devices.living })).status,
      200,
      'the other stays',
    );
    const audit = await family.core.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', 'like', 'delegated:%')
      .where('subject', '=', home.accountNumber)
      .execute();
    assert.ok(audit.length >= 4, `every delegated action is audited (${audit.length})`);
    for (const line of audit) assert.match(line.actor, /^assistant:/);
    assert.ok(!JSON.stringify(audit).includes('Salón'), 'no personal data (the new name) in the audit');
  });

  it('acts on its own account only, within its scopes, and never on operations it has no scope for', async () => {
    const home = await household('DLG-2001');
    const other = await household('DLG-2002');
    const token = await family.delegation(home.assistantId);
    const foreign = await call(`${family.api}/accounts/${other.accountNumber}/devices`, {
      token,
    });
    assert.equal(foreign.status, 403);
    assert.equal(errorType(foreign), 'ACCESS_DENIED');
    const readOnly = await family.delegation(home.assistantId, ['devices:read']);
    const account = `${family.api}/accounts/${home.accountNumber}`;
    assert.equal((await call(`${account}/devices`, { token: readOnly })).status, 200);
    const rename = await call(`${account}/devices/DLG-2001-liv/name`, {
      method: 'PUT',
      token: readOnly,
      body: 'x',
    });
    assert.equal(rename.status, 403);
    const signOut = await call(`${account}/devices/DLG-2001-bed/sessions`, {
      method: 'DELETE',
      token: readOnly,
    });
    assert.equal(signOut.status, 403);
    // Each scope opens its own operations only: no bookmarks nor sign-out-everywhere with devices:read.
    for (const [method, path] of [
      ['GET', `${account}/bookmarks`],
      ['DELETE', `${account}/sessions`],
    ] as const) {
      const answer = await call(path, { method, token: readOnly });
      assert.equal(answer.status, 403, `${method} ${path} with devices:read`);
      assert.equal(errorType(answer), 'ACCESS_DENIED');
    }
    assert.equal((await call(`${account}/devices/signed-in`, { token: readOnly })).status, 200);
    const bookmarksOnly = await family.delegation(home.assistantId, ['bookmarks:read']);
    const recent = await call(`${account}/bookmarks?limit=5`, { token: bookmarksOnly });
    assert.equal(recent.status, 200, JSON.stringify(recent.body));
    assert.deepEqual(recent.body, []);
    assert.equal((await call(`${account}/devices`, { token: bookmarksOnly })).status, 403);
    // Operations outside the tools: the user, device deletion.
    for (const [method, path] of [
      ['GET', `${account}/userHash`],
      ['DELETE', `${account}/devices/DLG-2001-liv`],
    ] as const) {
      const answer = await call(path, { method, token });
      assert.equal(answer.status, 403, `${method} ${path}`);
    }
    // Sign out everywhere (sessions:write): every device's token is refused from then on.
    const everywhere = await call(`${account}/sessions`, { method: 'DELETE', token });
    assert.equal(everywhere.status, 204);
    assert.equal((await call(`${account}/devices`, { token: home.devices.living })).status, 401);
    assert.equal((await call(`${account}/devices/signed-in`, { token })).body?.toString(), '');
  });

  it('refuses tampered, expired, wrong-audience and unknown-key tokens with 401', async () => {
    const home = await household('DLG-3001');
    const token = await family.delegation(home.assistantId);
    const url = `${family.api}/accounts/${home.accountNumber}/devices`;
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, acc: 'DLG-9999' })).toString('base64url');
    const signer = createAssistantSigner(family.core);
    const base = {
      sub: home.assistantId,
      acc: home.accountNumber,
      scope: 'devices:read',
      act: { sub: 'runtime-key:x' },
    };
    const wrongAudience = await signer.sign(base, { audience: 'sintonia-agents' });
    const shortLived = await signer.sign(base, { audience: CLIENT_API_AUDIENCE, ttlSeconds: 1 });
    const stranger = await generateKeyPair('ES256');
    const unknownKid = await new SignJWT({ ...base, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'not-published', typ: 'JWT' })
      .setIssuer(assistantIssuer(family.core))
      .setAudience(CLIENT_API_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('2m')
      .sign(stranger.privateKey);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    for (const [label, bad] of [
      ['tampered', `${header}.${forged}.${signature}`],
      ['wrong audience', wrongAudience],
      ['expired', shortLived],
      ['unknown kid', unknownKid],
    ] as const) {
      const answer = await call(url, { token: bad });
      assert.equal(answer.status, 401, label);
      assert.equal(errorType(answer), 'TOKEN_INVALID', label);
    }
  });

  it('the agents’ account tools sign a device out only after the confirmation, once', async () => {
    const home = await household('DLG-4001');
    const agentsCore = Object.assign(Object.create(family.core), {
      config: { ...family.core.config, ASSISTANT_RUNTIME_KEY: family.runtimeKey },
    }) as TestCore;
    const outcome = await createAccountClient(agentsCore).forSpeaker(home.assistantId);
    assert.ok(outcome.linked);
    const owner = { assistantId: home.assistantId, conversationId: randomUUID() };
    const tools = createAccountTools(outcome.session, createConfirmations(family.core), owner);
    const listed = await tools.call('list_devices', {});
    assert.deepEqual(listed.status === 'devices' && listed.devices.map((device) => device.name).sort(), [
      'Bedroom TV',
      'Living room',
    ]);
    const asked = await tools.call('sign_out_device', { device: 'the bedroom tv' });
    assert.equal(asked.status, 'confirmation_required');
    const account = `${family.api}/accounts/${home.accountNumber}/devices`;
    assert.equal((await call(account, { token: home.devices.bedroom })).status, 200, 'nothing ran yet');
    assert.equal((await tools.confirm()).status, 'done');
    assert.equal((await call(account, { token: home.devices.bedroom })).status, 401);
    assert.equal((await call(account, { token: home.devices.living })).status, 200);
    assert.equal(
      (await tools.confirm()).status,
      'nothing_to_confirm',
      'a replayed confirmation does nothing',
    );
    const unlinked = await createAccountClient(agentsCore).forSpeaker(randomUUID());
    assert.equal(unlinked.linked, false);
  });
});

describe('delegated tokens when the assistant’s keys cannot be fetched', () => {
  it('answers 502 SUBSYSTEM_ERROR, not 401: the token may well be valid', async () => {
    const { core, close } = await startTestFamily(['client-api'], {
      ASSISTANT_JWKS_URL: 'http://127.0.0.1:9/openid/jwk',
    });
    try {
      const keys = await generateKeyPair('ES256');
      const token = await new SignJWT({
        acc: 'DLG-5001',
        scope: 'devices:read',
        act: { sub: 'runtime-key:x' },
      })
        .setProtectedHeader({ alg: 'ES256', kid: 'any', typ: 'JWT' })
        .setIssuer(assistantIssuer(core))
        .setSubject(randomUUID())
        .setJti(randomUUID())
        .setAudience(CLIENT_API_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('2m')
        .sign(keys.privateKey);
      const response = await fetch(`${core.serviceUrl('client-api')}${BASE}/accounts/DLG-5001/devices`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      assert.equal(response.status, 502);
      const body = (await response.json()) as { code: string; errors: Array<{ type: string }> };
      assert.equal(body.code, 'BAD_GATEWAY');
      assert.equal(body.errors[0]?.type, 'SUBSYSTEM_ERROR');
      // The document says so on the operations a delegated token may call, and names their scope.
      const document = (await (
        await fetch(`${core.serviceUrl('client-api')}${BASE}/swagger.json`)
      ).json()) as {
        paths: Record<
          string,
          Record<string, { responses: Record<string, unknown>; 'x-delegated-scope'?: string }>
        >;
      };
      const list = document.paths['/accounts/{accountNumber}/devices']?.get;
      assert.equal(list?.['x-delegated-scope'], 'devices:read');
      assert.ok(list?.responses['502'], 'the device list documents 502');
      // Sign out everywhere is the person's to ask for (after a confirmation), with sessions:write.
      const teardown = document.paths['/accounts/{accountNumber}/sessions']?.delete;
      assert.equal(teardown?.['x-delegated-scope'], 'sessions:write');
      const deletion = document.paths['/accounts/{accountNumber}/devices/{mediaPlayerId}']?.delete;
      assert.equal(deletion?.['x-delegated-scope'], undefined, 'deleting a device takes no delegated token');
      const recent = document.paths['/accounts/{accountNumber}/bookmarks']?.get;
      assert.equal(recent?.['x-delegated-scope'], 'bookmarks:read');
    } finally {
      await close();
    }
  });
});
