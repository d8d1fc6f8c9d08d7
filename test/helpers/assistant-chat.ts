import assert from 'node:assert/strict';
import { makeCallbackParam } from '../../src/assistant-auth/callbacks/callback-param.ts';
import type { Core } from '../../src/core/core.ts';
import { until } from './until.ts';

export interface ChatActivity {
  type: string;
  id: string;
  text?: string;
  replyToId?: string;
}

/**
 * A person's conversation with the assistant over the embedded Direct Line channel, by plain HTTP: the
 * gateway links `identity` to `accountNumber` (its callback), asks /token/wss for a bound conversation,
 * and `say` posts a message and polls the activities until the assistant's answer to it is there.
 */
export async function linkedChat(
  core: Core,
  assistantAuthUrl: string,
  gatewayKey: string,
  identity: string,
  accountNumber: string,
  headers: Record<string, string> = {},
) {
  const { data } = makeCallbackParam(core, { identity, channel: 'web', accountNumber });
  const linked = await fetch(
    `${assistantAuthUrl}/users/assistantid/integrated?data=${encodeURIComponent(data)}`,
    {
      headers,
    },
  );
  assert.equal(linked.status, 201);
  const response = await fetch(`${assistantAuthUrl}/token/wss`, {
    headers: { ...headers, 'x-api-key': gatewayKey, 'x-channel': 'web', 'x-channel-user-id': identity },
  });
  assert.equal(response.status, 200);
  const wss = (await response.json()) as { conversationId: string; token: string; streamUrl: string };
  const activities = `${assistantAuthUrl}/v3/directline/conversations/${wss.conversationId}/activities`;
  const authorization = { authorization: `Bearer ${wss.token}` };
  return {
    ...wss,
    async say(text: string): Promise<ChatActivity> {
      const posted = await fetch(activities, {
        method: 'POST',
        headers: { ...headers, ...authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'message', from: { id: identity }, text }),
      });
      assert.equal(posted.status, 200, await posted.clone().text());
      const { id } = (await posted.json()) as { id: string };
      return until(async () => {
        const listed = await fetch(activities, { headers: authorization });
        const body = (await listed.json()) as { activities: ChatActivity[] };
        return body.activities.find((activity) => activity.type === 'message' && activity.replyToId === id);
      }, `the answer to "${text}"`);
    },
  };
}
