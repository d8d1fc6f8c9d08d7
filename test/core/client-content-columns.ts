import type { AdInfoTables } from '../../src/client-api/ad-info/repository.ts';
import type { AdBreak } from '../../src/client-api/ad-info/schemas.ts';
import type { BookmarkTables } from '../../src/client-api/bookmarks/repository.ts';
import type { CampaignTables } from '../../src/client-api/campaigns/repository.ts';
import type { MailTables } from '../../src/client-api/mail/outbox.ts';
import type { RatingTables } from '../../src/client-api/ratings/repository.ts';
import type { RegistrationTables } from '../../src/client-api/registration/repository.ts';
import type { SubscriptionTables } from '../../src/client-api/subscriptions/repository.ts';
import {
  bigint,
  integer,
  nullable,
  type SchemaColumns,
  type TableTypes,
  text,
} from '../../src/core/db/table-columns.ts';

/**
 * The client API's content tables (migration 20261122082000_client-content). Their row types are still
 * written by hand beside each repository, so this description is checked against the store at run time
 * and against those types at compile time (`npx tsc`) until the repositories derive them from it.
 */
export const clientContentColumns = {
  bookmarks: {
    user_hash: text(),
    content_id: bigint(),
    account_number: nullable(text()),
    version: nullable(text()),
    offset_seconds: integer(),
    position_at: bigint(),
    device_id: text(),
    device_class: text(),
    updated_at: bigint(),
  },
  ratings: {
    module: text(),
    content_id: bigint(),
    user_id: text(),
    account_number: nullable(text()),
    rating: integer(),
    updated_at: bigint(),
  },
  rate_limit_counters: {
    bucket: text(),
    window_start: bigint(),
    hits: integer(),
  },
  mail_outbox: {
    id: text(),
    kind: text(),
    sealed_message: text(),
    status: text<'pending' | 'sent' | 'failed'>(),
    attempts: integer(),
    next_attempt_at: bigint(),
    locked_until: nullable(bigint()),
    created_at: bigint(),
    sent_at: nullable(bigint()),
    last_error: nullable(text()),
  },
  registration_requests: {
    id: text(),
    device_class: text(),
    email_hash: text(),
    outbox_id: text(),
    created_at: bigint(),
  },
  ad_contacts: {
    id: text(),
    account_number: text(),
    device_class: text(),
    campaign: text(),
    media_player_id: nullable(text()),
    created_at: bigint(),
  },
  subscriptions: {
    platform_user_id: text(),
    cod_persona: text(),
    cod_oferta: text(),
    account_number: text(),
    product: text(),
    enabled: integer(),
    enabled_at: bigint(),
    updated_at: bigint(),
  },
  ad_breaks: {
    contents: text(),
    content_id: text(),
    position: text<AdBreak['position']>(),
    offset_seconds: integer(),
    max_ads: integer(),
  },
} as const satisfies SchemaColumns;

type Described = TableTypes<typeof clientContentColumns>;
/** True only when A and B are the same type (not merely assignable one to the other). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Agrees<Table extends keyof Described, Written> = Same<Described[Table], Written>;

// A hand-written row type that drifts from the description above is a compile error on its table's line.
export const handWrittenTypesAgree: { [Table in keyof Described]: true } = {
  bookmarks: true satisfies Agrees<'bookmarks', BookmarkTables['bookmarks']>,
  ratings: true satisfies Agrees<'ratings', RatingTables['ratings']>,
  rate_limit_counters: true satisfies Agrees<
    'rate_limit_counters',
    RegistrationTables['rate_limit_counters']
  >,
  mail_outbox: true satisfies Agrees<'mail_outbox', MailTables['mail_outbox']>,
  registration_requests: true satisfies Agrees<
    'registration_requests',
    RegistrationTables['registration_requests']
  >,
  ad_contacts: true satisfies Agrees<'ad_contacts', CampaignTables['ad_contacts']>,
  subscriptions: true satisfies Agrees<'subscriptions', SubscriptionTables['subscriptions']>,
  ad_breaks: true satisfies Agrees<'ad_breaks', AdInfoTables['ad_breaks']>,
};
