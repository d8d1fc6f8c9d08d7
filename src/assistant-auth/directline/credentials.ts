import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../core/config.ts';
import { directLineErrors } from './errors.ts';

/** Who is calling: the channel secret (any conversation) or a token bound to one conversation and user. */
export type Credential = { kind: 'secret' } | ({ kind: 'token'; expiresAt: number } & Binding);

export interface Binding {
  conversationId: string;
  userId: string;
  /** The conversation speaks for a person: its tokens are renewed only while it may (conversation-service). */
  speaks?: true;
}

interface IssuedToken {
  token: string;
  expires_in: number;
}

export interface ChannelCredentials {
  /** The embedded channel's secret: derived from the master key, shown by `sintonia directline-secret`. */
  secret(): string;
  issueToken(binding: Binding): Promise<IssuedToken>;
  /** The `t` of a streamUrl: good for STREAM_TICKET_TTL seconds, for one conversation. */
  issueStreamTicket(binding: Binding): Promise<string>;
  /** Reads `Authorization: Bearer …`; missing 401, anything not ours or expired 403. */
  authenticate(authorization: string | undefined): Promise<Credential>;
  verifyStreamTicket(ticket: string, conversationId: string): Promise<Binding>;
  /** The `t` of an uploaded file's contentUrl: an HMAC binding the file to its conversation. */
  fileSignature(conversationId: string, fileId: string): string;
  /** Throws DIRECTLINE_FILE_LINK_INVALID (403) unless `signature` is this file's in this conversation. */
  verifyFileSignature(conversationId: string, fileId: string, signature: string): void;
}

const TOKEN_AUDIENCE = 'sintonia-directline';
const STREAM_AUDIENCE = 'sintonia-directline-stream';
/** Direct Line asks clients to connect within 60 s of getting a streamUrl. */
const STREAM_TICKET_TTL = 60;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The embedded channel's secret: derived from the master key, so every process agrees without storing it. */
export function channelSecret(keys: { key(purpose: string): Buffer }): string {
  return keys.key('directline-secret').toString('base64url');
}

export function newUserId(): string {
  return `dl_${randomBytes(12).toString('base64url')}`;
}

export function newConversationId(): string {
  return randomBytes(16).toString('base64url');
}

/** The channel's secret and its keys, each derived from the master key for its own purpose. */
interface ChannelKeys {
  secret: string;
  tokenKey: Buffer;
  streamKey: Buffer;
  fileKey: Buffer;
}

/** The keys of the embedded channel, as every process of the family (same master key) derives them. */
export function channelKeys(keys: { key(purpose: string): Buffer }): ChannelKeys {
  return {
    secret: channelSecret(keys),
    tokenKey: keys.key('directline-token'),
    streamKey: keys.key('directline-stream'),
    fileKey: keys.key('directline-file'),
  };
}

/**
 * Tokens are HS256 JWTs under a key derived from the master key, so every process of the family (same
 * master key) can check them without a lookup; stream tickets use a key of their own.
 */
export function createChannelCredentials(
  { secret, tokenKey, streamKey, fileKey }: ChannelKeys,
  settings: Pick<Config, 'DIRECTLINE_TOKEN_TTL'>,
): ChannelCredentials {
  const fileSignature = (conversationId: string, fileId: string) =>
    createHmac('sha256', fileKey).update(`${conversationId}\n${fileId}`).digest('base64url');
  const secretDigest = digest(secret);
  const ttl = settings.DIRECTLINE_TOKEN_TTL;

  // `user` as Direct Line's own tokens carry it: Web Chat and DirectLineJS read the user id from it.
  const sign = (binding: Binding, key: Uint8Array, audience: string, seconds: number) =>
    new SignJWT({
      conv: binding.conversationId,
      user: binding.userId,
      ...(binding.speaks ? { spk: true } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(binding.userId)
      .setAudience(audience)
      .setIssuedAt()
      .setJti(randomBytes(9).toString('base64url'))
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .sign(key);

  async function verify(token: string, key: Uint8Array, audience: string) {
    try {
      const { payload } = await jwtVerify(token, key, { audience, algorithms: ['HS256'] });
      const { conv, sub, user, exp, spk } = payload;
      if (
        typeof conv !== 'string' ||
        typeof sub !== 'string' ||
        !exp ||
        (user !== undefined && user !== sub)
      ) {
        throw directLineErrors.DIRECTLINE_CREDENTIALS_INVALID();
      }
      return {
        conversationId: conv,
        userId: sub,
        expiresAt: exp * 1000,
        ...(spk === true ? { speaks: true as const } : {}),
      };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw directLineErrors.DIRECTLINE_TOKEN_EXPIRED();
      throw directLineErrors.DIRECTLINE_CREDENTIALS_INVALID();
    }
  }

  return {
    secret: () => secret,
    async issueToken(binding) {
      return { token: await sign(binding, tokenKey, TOKEN_AUDIENCE, ttl), expires_in: ttl };
    },
    issueStreamTicket: (binding) => sign(binding, streamKey, STREAM_AUDIENCE, STREAM_TICKET_TTL),
    async authenticate(authorization) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
      const bearer = match?.[1];
      if (!bearer) throw directLineErrors.DIRECTLINE_CREDENTIALS_MISSING();
      if (timingSafeEqual(digest(bearer), secretDigest)) return { kind: 'secret' };
      return { kind: 'token', ...(await verify(bearer, tokenKey, TOKEN_AUDIENCE)) };
    },
    fileSignature,
    verifyFileSignature(conversationId, fileId, signature) {
      const expected = digest(fileSignature(conversationId, fileId));
      if (!timingSafeEqual(digest(signature), expected)) {
        throw directLineErrors.DIRECTLINE_FILE_LINK_INVALID();
      }
    },
    async verifyStreamTicket(ticket, conversationId) {
      const claims = await verify(ticket, streamKey, STREAM_AUDIENCE);
      if (claims.conversationId !== conversationId) {
        throw directLineErrors.DIRECTLINE_CONVERSATION_MISMATCH();
      }
      return claims;
    },
  };
}
