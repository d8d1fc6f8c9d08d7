import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until at least `margin` ms remain in the current clock minute: the store's windowed counters
 * start a window on each minute, so a test counting up to a bound must not straddle one.
 */
export async function awayFromMinuteEdge(margin = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < margin) await sleep(left + 50);
}
