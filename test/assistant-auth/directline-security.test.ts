import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { startTestFamily, type TestCore } from '../helpers/harness.ts';
import { refusedUpgrade } from './helpers/directline-stream.ts';
import { type ConversationAnswer, directLineCall, type ErrorBody } from './helpers/directline-wire.ts';

/** Opens a stream as a page of `origin` would (none: as a non-browser client): 101, or the refusal. */
function upgradeFrom(url: string, origin?: string): Promise<{ status: number; body?: ErrorBody }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, origin === undefined ? {} : { origin });
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) });
        socket.terminate();
      });
    });
    socket.on('open', () => {
      socket.close();
      resolve({ status: 101 });
    });
    socket.on('error', () => {});
  });
}

describe('embedded Direct Line channel: who may call what', () => {
  let core: TestCore;
  let base: string;
  let close: () => Promise<void>;
  let conversation: ConversationAnswer;
  let other: ConversationAnswer;
  let userId: string;

  const call = (method: string, path: string, authorization?: string, body?: unknown) =>
    directLineCall(base, method, path, { authorization, body });

  before(async () => {
    // No agent is ever called here: nothing is posted with a valid token.
    ({ core, close } = await startTestFamily(['assistant-auth'], {
      AGENTS_URL: 'http://127.0.0.1:9/',
      DIRECTLINE_ALLOWED_ORIGINS: 'https://shop.example,https://Other.Example:8443',
    }));
    base = core.serviceUrl('assistant-auth');
    const secret = core.key('directline-secret').toString('base64url');
    const start = async () => {
      const response = await call('POST', '/v3/directline/conversations', `Bearer ${secret}`, {});
      assert.equal(response.status, 201);
      return (await response.json()) as ConversationAnswer;
    };
    conversation = await start();
    other = await start();
    const listed = await call(
      'GET',
      `/v3/directline/conversations/${conversation.conversationId}/activities`,
      `Bearer ${conversation.token}`,
    );
    assert.equal(listed.status, 200, 'the genuine token works');
    userId = JSON.parse(Buffer.from(conversation.token.split('.')[1] ?? '', 'base64url').toString()).sub;
  });
  after(async () => close());

  const sign = (key: Uint8Array, audience: string, expiresAt: number, conversationId: string) =>
    new SignJWT({ conv: conversationId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setAudience(audience)
      .setIssuedAt(expiresAt - 3600)
      .setExpirationTime(expiresAt)
      .sign(key);
  const now = () => Math.floor(Date.now() / 1000);

  const endpoints = () => {
    const id = conversation.conversationId;
    return [
      { method: 'POST', path: '/v3/directline/tokens/generate', body: {} },
      { method: 'POST', path: '/v3/directline/tokens/refresh' },
      { method: 'POST', path: '/v3/directline/conversations', body: {} },
      { method: 'GET', path: `/v3/directline/conversations/${id}?watermark=0` },
      {
        method: 'POST',
        path: `/v3/directline/conversations/${id}/activities`,
        body: { type: 'message', text: 'hi' },
      },
      { method: 'GET', path: `/v3/directline/conversations/${id}/activities?watermark=0` },
    ];
  };

  const badTokens = async () => ({
    expired: {
      token: await sign(
        core.key('directline-token'),
        'sintonia-directline',
        now() - 60,
        conversation.conversationId,
      ),
      type: 'DIRECTLINE_TOKEN_EXPIRED',
    },
    forged: {
      token: await sign(randomBytes(32), 'sintonia-directline', now() + 600, conversation.conversationId),
      type: 'DIRECTLINE_CREDENTIALS_INVALID',
    },
    tampered: {
      // The genuine token with another conversation written into its payload.
      token: (() => {
        const [header, payload, signature] = conversation.token.split('.');
        const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
        claims.conv = other.conversationId;
        return [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
      })(),
      type: 'DIRECTLINE_CREDENTIALS_INVALID',
    },
    'a stream ticket': {
      token: new URL(conversation.streamUrl).searchParams.get('t') ?? '',
      type: 'DIRECTLINE_CREDENTIALS_INVALID',
    },
  });

  describe('happy', () => {
    it('answers browsers from any origin: the preflight, and every answer, refusals included', async () => {
      const path = `/v3/directline/conversations/${conversation.conversationId}/activities`;
      const preflight = await fetch(`${base}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
      assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
      const allowed = await call('GET', path, `Bearer ${conversation.token}`);
      assert.equal(allowed.headers.get('access-control-allow-origin'), '*');
      const refused = await call('GET', path, 'Bearer forged');
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('access-control-allow-origin'), '*');
    });
  });

  describe('security', () => {
    it('expired, forged and tampered tokens are refused with 403 and the family body on every endpoint', async () => {
      for (const [name, bad] of Object.entries(await badTokens())) {
        for (const endpoint of endpoints()) {
          const response = await call(endpoint.method, endpoint.path, `Bearer ${bad.token}`, endpoint.body);
          const label = `${name} token on ${endpoint.method} ${endpoint.path}`;
          assert.equal(response.status, 403, label);
          assert.match(response.headers.get('content-type') ?? '', /application\/json/, label);
          const body = (await response.json()) as ErrorBody;
          assert.equal(body.code, 'FORBIDDEN', label);
          assert.equal(body.errors[0]?.type, bad.type, label);
          assert.equal(typeof body.message, 'string', label);
        }
      }
      // Credentials are checked before the body is read: a bad body with a bad token is still 403.
      const forged = (await badTokens()).forged.token;
      const garbled = await fetch(
        `${base}/v3/directline/conversations/${conversation.conversationId}/activities`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json' },
          body: '{"type": 5',
        },
      );
      assert.equal(garbled.status, 403);
      const stored = await call(
        'GET',
        `/v3/directline/conversations/${conversation.conversationId}/activities`,
        `Bearer ${conversation.token}`,
      );
      assert.deepEqual(((await stored.json()) as { activities: unknown[] }).activities, [], 'nothing got in');
    });

    it('the stream refuses expired, forged and wrong-conversation tickets, and a token as ticket, with 403', async () => {
      const stream = new URL(conversation.streamUrl);
      const withTicket = (ticket: string) => {
        const url = new URL(stream);
        url.searchParams.set('t', ticket);
        return url.toString();
      };
      const tickets = {
        expired: await sign(
          core.key('directline-stream'),
          'sintonia-directline-stream',
          now() - 1,
          conversation.conversationId,
        ),
        forged: await sign(
          randomBytes(32),
          'sintonia-directline-stream',
          now() + 60,
          conversation.conversationId,
        ),
        'another conversation’s': new URL(other.streamUrl).searchParams.get('t') ?? '',
        'a token as': conversation.token,
      };
      const expectedType = {
        expired: 'DIRECTLINE_TOKEN_EXPIRED',
        forged: 'DIRECTLINE_CREDENTIALS_INVALID',
        'another conversation’s': 'DIRECTLINE_CONVERSATION_MISMATCH',
        'a token as': 'DIRECTLINE_CREDENTIALS_INVALID',
      };
      for (const [name, ticket] of Object.entries(tickets)) {
        const refused = await refusedUpgrade(withTicket(ticket));
        assert.equal(refused.status, 403, `${name} ticket`);
        const body = refused.body as ErrorBody;
        assert.equal(body.code, 'FORBIDDEN', `${name} ticket`);
        assert.equal(body.errors[0]?.type, expectedType[name as keyof typeof expectedType], `${name} ticket`);
      }
      const missing = new URL(stream);
      missing.searchParams.delete('t');
      const noTicket = await refusedUpgrade(missing.toString());
      assert.equal(noTicket.status, 400, 'no ticket');
      assert.equal((noTicket.body as ErrorBody).errors[0]?.type, 'VALIDATION_ERROR');
    });

    it('the stream opens for the chat page’s own origin, DIRECTLINE_ALLOWED_ORIGINS and clients without Origin; other origins are 403 before the upgrade', async () => {
      const stream = conversation.streamUrl;
      const own = new URL(base).origin;
      for (const origin of [own, 'https://shop.example', 'https://other.example:8443', undefined]) {
        assert.deepEqual(await upgradeFrom(stream, origin), { status: 101 }, `Origin ${origin}`);
      }
      const refusedOrigins = [
        'https://evil.example',
        'http://shop.example',
        'https://shop.example.evil.example',
        `http://127.0.0.1:${Number(new URL(base).port) + 1}`,
        'null',
      ];
      for (const origin of refusedOrigins) {
        const refused = await upgradeFrom(stream, origin);
        assert.equal(refused.status, 403, `Origin ${origin}`);
        assert.equal(refused.body?.code, 'FORBIDDEN', `Origin ${origin}`);
        assert.equal(refused.body?.errors[0]?.type, 'DIRECTLINE_ORIGIN_NOT_ALLOWED', `Origin ${origin}`);
      }
    });

    it('another conversation’s token is 403, no credentials 401, an unknown conversation 404', async () => {
      const id = conversation.conversationId;
      const mismatch = await call(
        'GET',
        `/v3/directline/conversations/${id}/activities`,
        `Bearer ${other.token}`,
      );
      assert.equal(mismatch.status, 403);
      assert.equal(
        ((await mismatch.json()) as ErrorBody).errors[0]?.type,
        'DIRECTLINE_CONVERSATION_MISMATCH',
      );

      for (const endpoint of endpoints()) {
        const response = await call(endpoint.method, endpoint.path, undefined, endpoint.body);
        assert.equal(response.status, 401, `${endpoint.method} ${endpoint.path}`);
        assert.equal(
          ((await response.json()) as ErrorBody).errors[0]?.type,
          'DIRECTLINE_CREDENTIALS_MISSING',
        );
      }
      const basic = await call('GET', `/v3/directline/conversations/${id}/activities`, 'Basic dXNlcjpwYXNz');
      assert.equal(basic.status, 401);

      const secret = core.key('directline-secret').toString('base64url');
      const unknown = await call(
        'GET',
        '/v3/directline/conversations/AAAAAAAAAAAAAAAAAAAAAA',
        `Bearer ${secret}`,
      );
      assert.equal(unknown.status, 404);
      assert.equal(
        ((await unknown.json()) as ErrorBody).errors[0]?.type,
        'DIRECTLINE_CONVERSATION_NOT_FOUND',
      );
    });
  });
});
