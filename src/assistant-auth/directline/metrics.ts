import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The embedded channel's metrics (docs/observability.md): its streams, conversations, activities and answers. */
export interface ChannelMetrics {
  conversationStarted(): void;
  /** An activity a client posted (or uploaded) and the channel stored. */
  activityReceived(type: string): void;
  /** The assistant's answer to a message, stored `seconds` after the message was. */
  answered(ok: boolean, seconds: number): void;
}

/** Activity types counted by name; any other a client invents counts as `other` (no unbounded labels). */
const KNOWN_TYPES = new Set(['message', 'event', 'invoke', 'conversationUpdate', 'messageReaction']);

export function createChannelMetrics(registry: Registry, openStreams: () => number): ChannelMetrics {
  new Gauge({
    name: 'sintonia_directline_streams_open',
    help: 'WebSocket streams of the embedded Direct Line channel open in this process.',
    registers: [registry],
    collect() {
      this.set(openStreams());
    },
  });
  const started = new Counter({
    name: 'sintonia_directline_conversations_started_total',
    help: 'Conversations the embedded Direct Line channel started.',
    registers: [registry],
  });
  const received = new Counter({
    name: 'sintonia_directline_activities_received_total',
    help: 'Activities clients posted to the embedded channel and it stored, by type (typing is never stored).',
    labelNames: ['type'],
    registers: [registry],
  });
  const sent = new Counter({
    name: 'sintonia_directline_answers_total',
    help: 'Activities the assistant sent: its answers to messages, by outcome (ok, or error when the agents server failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'sintonia_directline_answer_duration_seconds',
    help: "From a person's message stored to the assistant's answer stored (queueing and the agent's run included).",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  received.inc({ type: 'message' }, 0);
  for (const outcome of ['ok', 'error']) sent.inc({ outcome }, 0);
  return {
    conversationStarted: () => started.inc(),
    activityReceived: (type) => received.inc({ type: KNOWN_TYPES.has(type) ? type : 'other' }),
    answered(ok, seconds) {
      sent.inc({ outcome: ok ? 'ok' : 'error' });
      latency.observe(seconds);
    },
  };
}
