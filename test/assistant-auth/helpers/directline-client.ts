import type { DirectLine } from 'botframework-directlinejs';
import { until } from '../../helpers/until.ts';
import type { SeenActivity } from './directline-wire.ts';

/**
 * A DirectLineJS client as the tests drive it: `seen` (every activity it received), `send` (a message
 * from `userId`; answers its id), `answerTo` (waits for the bot's reply to an id) and `stop`.
 */
export function driveDirectLine(directLine: DirectLine, userId: string) {
  const seen: SeenActivity[] = [];
  const subscription = directLine.activity$.subscribe((activity) => seen.push(activity as SeenActivity));
  const send = (text: string) =>
    new Promise<string>((resolve, reject) =>
      directLine.postActivity({ type: 'message', from: { id: userId }, text }).subscribe(resolve, reject),
    );
  const answerTo = (id: string) =>
    until(
      () => seen.find((activity) => activity.type === 'message' && activity.replyToId === id),
      `the answer to ${id}`,
    );
  const stop = () => {
    subscription.unsubscribe();
    directLine.end();
  };
  return { seen, send, answerTo, stop };
}
