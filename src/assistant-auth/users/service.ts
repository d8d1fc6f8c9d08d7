import { randomUUID } from 'node:crypto';
import type { Config } from '../../core/config.ts';
import { decrypt, encrypt, keyedHash } from '../../core/secrets.ts';
import type { Audit } from '../audit.ts';
import { userErrors } from './errors.ts';
import type { IdentityQueries, UserRepository, UserRow } from './repository.ts';
import type { AssistantUser, UserSource } from './schemas.ts';
import type { SignInSession, SignInSessions } from './sign-in-sessions.ts';

/** `whatsapp=86400,web=3600` → lifetimes in seconds by channel. */
function parseChannelTtls(text: string): Map<string, number> {
  const ttls = new Map<string, number>();
  for (const entry of text.split(',').filter(Boolean)) {
    const [channel, seconds] = entry.split('=');
    if (channel && seconds) ttls.set(channel, Number(seconds));
  }
  return ttls;
}

/** The pay-TV account an assistant user is linked to. */
interface AccountLink {
  accountNumber: string;
  platformUserId?: string;
  /** The client API session a sign-in of the chat page opened, which the link lasts no longer than. */
  sessionId?: string;
  /** The device that session is of. */
  deviceId?: string;
}

/** The session a link rests on, when a sign-in made it (a gateway's link rests on none). */
const signInOf = ({ accountNumber, sessionId, deviceId }: AccountLink): SignInSession | undefined =>
  sessionId === undefined || deviceId === undefined ? undefined : { accountNumber, sessionId, deviceId };

function toAssistantUser(row: UserRow, link?: AccountLink): AssistantUser {
  return {
    assistantId: row.assistant_id,
    assistantIdGlobal: row.assistant_id_global,
    channel: row.channel,
    source: row.source as UserSource,
    hasPhoneNumber: row.phone_hash !== null,
    ...(link === undefined || row.linked_at === null
      ? {}
      : {
          linkedAccount: {
            accountNumber: link.accountNumber,
            ...(link.platformUserId === undefined ? {} : { platformUserId: link.platformUserId }),
            linkedAt: new Date(row.linked_at).toISOString(),
          },
        }),
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}

interface ChannelIdentity {
  channel: string;
  /** The user's id as the channel authenticated it. */
  identity: string;
  phoneNumber?: string;
}

/** The keys of assistant users' hashed and sealed columns, each derived from the master key for its purpose. */
interface UserKeys {
  subject: Buffer;
  phoneHash: Buffer;
  phone: Buffer;
  link: Buffer;
}

export function userKeys(keys: { key(purpose: string): Buffer }): UserKeys {
  return {
    subject: keys.key('assistant-subject'),
    phoneHash: keys.key('assistant-phone-hash'),
    phone: keys.key('assistant-phone'),
    link: keys.key('assistant-account-link'),
  };
}

/** The rules of assistant users: lifetimes per channel, one person's ids tied by assistantIdGlobal. */
export function createUserService(
  settings: Pick<Config, 'ASSISTANT_ID_TTL_BY_CHANNEL' | 'ASSISTANT_ID_TTL'>,
  {
    repository,
    keys,
    audit,
    signIns,
  }: { repository: UserRepository; keys: UserKeys; audit: Audit; signIns: SignInSessions },
) {
  const ttls = parseChannelTtls(settings.ASSISTANT_ID_TTL_BY_CHANNEL);
  const ttlMs = (channel: string) => (ttls.get(channel) ?? settings.ASSISTANT_ID_TTL) * 1000;
  const subjectHash = (channel: string, identity: string) =>
    keyedHash(keys.subject, `${channel}\n${identity}`);
  const phoneHash = (phone: string) => keyedHash(keys.phoneHash, phone);
  const phoneColumns = (assistantId: string, phone: string | undefined) =>
    phone === undefined
      ? { phone_hash: null, phone_sealed: null }
      : { phone_hash: phoneHash(phone), phone_sealed: encrypt(keys.phone, phone, assistantId) };
  const unlinked = { link_sealed: null, linked_at: null };

  /** The person's assistantIdGlobal: from an earlier id of the same identity, else the same phone, else new. */
  async function globalIdFor(
    queries: IdentityQueries,
    subject: string | null,
    phone: string | undefined,
  ): Promise<string> {
    const earlier = subject === null ? undefined : await queries.newestBySubject(subject);
    if (earlier) return earlier.assistant_id_global;
    const samePhone = phone === undefined ? undefined : await queries.newestByPhone(phoneHash(phone));
    return samePhone?.assistant_id_global ?? randomUUID();
  }

  // The link is sealed with the assistantId as associated data: a sealed link copied to another row opens nowhere.
  const linkOf = (row: UserRow): AccountLink | undefined =>
    row.link_sealed === null
      ? undefined
      : (JSON.parse(decrypt(keys.link, row.link_sealed, row.assistant_id).toString('utf8')) as AccountLink);
  const present = (row: UserRow) => toAssistantUser(row, linkOf(row));

  /** The record of a valid user; 404 when unknown, 410 when its assistantId has expired. */
  async function validRow(assistantId: string): Promise<UserRow> {
    const row = await repository.findById(assistantId);
    if (!row) throw userErrors.USER_NOT_FOUND();
    if (row.expires_at <= Date.now()) throw userErrors.ASSISTANT_ID_EXPIRED();
    return row;
  }

  async function attachPhone(row: UserRow, phone: string | undefined): Promise<UserRow> {
    if (phone === undefined || row.phone_hash === phoneHash(phone)) return row;
    const columns = phoneColumns(row.assistant_id, phone);
    if (columns.phone_hash === null || columns.phone_sealed === null) return row;
    await repository.setPhone(row.assistant_id, columns.phone_hash, columns.phone_sealed);
    return { ...row, ...columns };
  }

  return {
    /** The valid user of this channel identity, or a new one; `created` tells which. */
    async findOrCreate(
      who: ChannelIdentity,
      source: Extract<UserSource, 'channel' | 'integrated'>,
    ): Promise<{ user: AssistantUser; created: boolean }> {
      const now = Date.now();
      const subject = subjectHash(who.channel, who.identity);
      const existing = await repository.newestBySubject(subject);
      if (existing && existing.expires_at > now) {
        return { user: present(await attachPhone(existing, who.phoneNumber)), created: false };
      }
      // First login (or the last record expired): checked again and created under the identity's lock,
      // so concurrent first logins of one identity all answer the same user.
      const outcome = await repository.withIdentityLock(subject, async (locked) => {
        const again = await locked.newestBySubject(subject);
        if (again && again.expires_at > now) return { row: again, created: false };
        const assistantId = randomUUID();
        const row: UserRow = {
          assistant_id: assistantId,
          assistant_id_global: await globalIdFor(locked, subject, who.phoneNumber),
          channel: who.channel,
          source,
          subject_hash: subject,
          ...phoneColumns(assistantId, who.phoneNumber),
          ...unlinked,
          created_at: now,
          expires_at: now + ttlMs(who.channel),
        };
        await locked.insert(row);
        return { row, created: true };
      });
      if (!outcome.created) {
        return { user: present(await attachPhone(outcome.row, who.phoneNumber)), created: false };
      }
      return { user: present(outcome.row), created: true };
    },

    /** A user under an assistantId that an external service's authentication produced. */
    async createExternal(
      assistantId: string,
      channel: string,
      phone: string | undefined,
    ): Promise<{ user: AssistantUser; created: boolean }> {
      const now = Date.now();
      const existing = await repository.findById(assistantId);
      if (existing && existing.expires_at > now) {
        return { user: present(await attachPhone(existing, phone)), created: false };
      }
      if (existing) {
        const renewed = { created_at: now, expires_at: now + ttlMs(existing.channel), source: 'external' };
        await repository.renew(assistantId, renewed);
        return {
          user: present(await attachPhone({ ...existing, ...renewed }, phone)),
          created: true,
        };
      }
      const row: UserRow = {
        assistant_id: assistantId,
        assistant_id_global: await globalIdFor(repository, null, phone),
        channel,
        source: 'external',
        subject_hash: null,
        ...phoneColumns(assistantId, phone),
        ...unlinked,
        created_at: now,
        expires_at: now + ttlMs(channel),
      };
      await repository.insert(row);
      return { user: present(row), created: true };
    },

    /** The valid user; 404 when unknown, 410 when its assistantId has expired. */
    async read(assistantId: string): Promise<AssistantUser> {
      return present(await validRow(assistantId));
    },

    /** Links the valid user to the pay-TV account the gateway authenticated (a new link replaces the old). */
    async link(assistantId: string, link: AccountLink, at = Date.now()): Promise<AssistantUser> {
      const row = await validRow(assistantId);
      const sealed = encrypt(keys.link, JSON.stringify(link), assistantId);
      await repository.setLink(assistantId, sealed, at);
      return present({ ...row, link_sealed: sealed, linked_at: at });
    },

    /**
     * The valid user's linked account; 409 ASSISTANT_USER_NOT_LINKED when it has none, 409
     * ASSISTANT_USER_SIGNED_OUT when the sign-in it rests on has ended (asked of client-api at each call).
     */
    async linkedAccount(assistantId: string): Promise<AccountLink> {
      const link = linkOf(await validRow(assistantId));
      if (link === undefined) throw userErrors.ASSISTANT_USER_NOT_LINKED();
      const signIn = signInOf(link);
      if (signIn && !(await signIns.isOpen(assistantId, signIn)))
        throw userErrors.ASSISTANT_USER_SIGNED_OUT();
      return link;
    },

    /**
     * Whether a conversation bound to this user may go on speaking for its person: the user is there and
     * valid, and the sign-in its link rests on, if any, is still open.
     */
    async speaksFor(assistantId: string): Promise<boolean> {
      const row = await repository.findById(assistantId);
      if (!row || row.expires_at <= Date.now()) return false;
      const link = linkOf(row);
      const signIn = link && signInOf(link);
      return signIn === undefined || signIns.isOpen(assistantId, signIn);
    },

    /** The client API session the user's link rests on (a chat page sign-in's); undefined for none or no user. */
    async signInSession(assistantId: string): Promise<SignInSession | undefined> {
      const row = await repository.findById(assistantId);
      const link = row && linkOf(row);
      return link && signInOf(link);
    },

    /** Whether the user is there, valid and still linked to this account: what a delegated token rests on. */
    async holdsLink(assistantId: string, accountNumber: string): Promise<boolean> {
      const row = await repository.findById(assistantId);
      if (!row || row.expires_at <= Date.now()) return false;
      return linkOf(row)?.accountNumber === accountNumber;
    },

    async newestOfChannel(assistantIdGlobal: string, channel: string): Promise<AssistantUser> {
      const row = await repository.newestValidOfChannel(assistantIdGlobal, channel, Date.now());
      if (!row) throw userErrors.ASSISTANT_ID_GLOBAL_NOT_FOUND();
      return present(row);
    },

    async remove(assistantId: string): Promise<void> {
      if ((await repository.deleteById(assistantId)) === 0) throw userErrors.USER_NOT_FOUND();
    },

    /** Removes every record of one channel identity (the gateway's unlinking). */
    async removeIdentity(who: Pick<ChannelIdentity, 'channel' | 'identity'>): Promise<void> {
      const removed = await repository.deleteBySubject(subjectHash(who.channel, who.identity));
      if (removed === 0) throw userErrors.USER_NOT_FOUND('No assistant user for this channel identity.');
    },

    /** Data-protection erasure: every record of the person; the audit line holds no personal data. */
    async eraseByPhone(phone: string, actor: string): Promise<number> {
      const removed = await repository.erasePerson(phoneHash(phone));
      if (removed === 0) throw userErrors.PHONE_NUMBER_NOT_FOUND();
      await audit(actor, 'assistant-user.erase-by-phone', `${removed} records`);
      return removed;
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
