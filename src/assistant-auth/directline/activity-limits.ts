import type { Config } from '../../core/config.ts';
import type { StoreCounter } from '../../core/limits/store-counter.ts';
import { directLineErrors } from './errors.ts';

export type ActivityLimitSettings = Pick<
  Config,
  | 'DIRECTLINE_CONVERSATION_ACTIVITIES'
  | 'DIRECTLINE_CONVERSATION_ACTIVITY_BYTES'
  | 'DIRECTLINE_ACTIVITIES_PER_MINUTE'
  | 'DIRECTLINE_ACTIVITY_BYTES_PER_MINUTE'
  | 'DIRECTLINE_CHANNEL_ACTIVITIES_PER_MINUTE'
  | 'DIRECTLINE_CONVERSATIONS_PER_MINUTE'
>;

/** A conversation's counts after the update that numbered an activity, that activity included. */
export interface ConversationCounts {
  activities: number;
  bytes: number;
  minuteStart: number;
  minuteActivities: number;
  minuteBytes: number;
}

/** Weighs a client's activity against its conversation's limits, inside the transaction storing it. */
export interface ActivityBudget {
  /** Throws the refusal when the counts pass a limit: the transaction, and so the count, is undone. */
  check(counts: ConversationCounts, now: number): void;
}

/** The names the refusals are counted by in /metrics (`sintonia_limit_refusals_total{limit}`). */
export type ChannelLimit =
  | 'directline_conversation_full'
  | 'directline_conversation_per_minute'
  | 'directline_channel_activities'
  | 'directline_channel_conversations'
  | 'directline_streams';

export const MINUTE_MS = 60_000;

const retryAfter = (seconds: number) => ({ headers: { 'retry-after': String(seconds) } });

/** The channel's activity and conversation limits (docs/limits.md); `refused` counts each refusal. */
export function createActivityLimits(
  settings: ActivityLimitSettings,
  counter: StoreCounter,
  refused: (limit: ChannelLimit) => void,
) {
  const budget: ActivityBudget = {
    check(counts, now) {
      if (
        counts.activities > settings.DIRECTLINE_CONVERSATION_ACTIVITIES ||
        counts.bytes > settings.DIRECTLINE_CONVERSATION_ACTIVITY_BYTES
      ) {
        refused('directline_conversation_full');
        throw directLineErrors.DIRECTLINE_CONVERSATION_FULL(
          `A conversation may hold ${settings.DIRECTLINE_CONVERSATION_ACTIVITIES} activities and ${settings.DIRECTLINE_CONVERSATION_ACTIVITY_BYTES} bytes; start a new conversation.`,
        );
      }
      if (
        counts.minuteActivities > settings.DIRECTLINE_ACTIVITIES_PER_MINUTE ||
        counts.minuteBytes > settings.DIRECTLINE_ACTIVITY_BYTES_PER_MINUTE
      ) {
        refused('directline_conversation_per_minute');
        const seconds = Math.max(1, Math.ceil((counts.minuteStart + MINUTE_MS - now) / 1000));
        throw directLineErrors.DIRECTLINE_RATE_LIMITED(
          `A conversation may take ${settings.DIRECTLINE_ACTIVITIES_PER_MINUTE} activities and ${settings.DIRECTLINE_ACTIVITY_BYTES_PER_MINUTE} bytes a minute; retry in ${seconds} s.`,
          retryAfter(seconds),
        );
      }
    },
  };

  /** One more of `what` this minute, counted for the whole channel in the store; refused past `limit`. */
  async function channelWide(what: 'activities' | 'conversations', limit: number, now: number) {
    const { total, retryAfter: seconds } = await counter.add(`directline:${what}`, 1, 60, now);
    if (total <= limit) return;
    refused(what === 'activities' ? 'directline_channel_activities' : 'directline_channel_conversations');
    throw directLineErrors.DIRECTLINE_CHANNEL_BUSY(
      `The channel takes ${limit} ${what} a minute, all conversations together; retry in ${seconds} s.`,
      retryAfter(seconds),
    );
  }

  return {
    budget,
    /** Before a client's activity is stored: the channel's activities this minute. */
    admitActivity: (now = Date.now()) =>
      channelWide('activities', settings.DIRECTLINE_CHANNEL_ACTIVITIES_PER_MINUTE, now),
    /** Before a conversation is started: the channel's new conversations this minute. */
    admitConversation: (now = Date.now()) =>
      channelWide('conversations', settings.DIRECTLINE_CONVERSATIONS_PER_MINUTE, now),
  };
}

export type ActivityLimits = ReturnType<typeof createActivityLimits>;
