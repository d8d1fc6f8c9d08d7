import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/core/http/service-app.ts';
import { createTestApp } from '../helpers/harness.ts';
import {
  type Answer,
  casesOf,
  type HostileCase,
  jsonText,
  operationsOf,
  serverFaults,
} from '../helpers/hostile-inputs.ts';

describe('agents: no hostile value in any operation answers 5xx', () => {
  let app: App;
  let close: () => Promise<void>;
  let key: string;
  let cases: HostileCase[] = [];

  before(async () => {
    const test = await createTestApp('agents', { RUNTIME_KEY_REQUEST_LIMIT: '0' });
    ({ app, close } = test);
    key = (await test.core.apiKeys.create('runtime', 'hostile-agents')).key;
    const document = (await app.inject({ url: '/openapi.json' })).json();
    // The assistant agent answers without a model; its account tools are not reached without a person.
    const known = { name: 'assistant', input: 'hello' };
    cases = operationsOf(document).flatMap((operation) => casesOf(document, operation, known));
  });
  after(() => close());

  it('walks every operation with every hostile value in every parameter and body field', async () => {
    assert.ok(cases.length > 50, `${cases.length} cases`);
    const sent: Array<{ hostile: HostileCase; answer: Answer }> = [];
    for (const hostile of cases) {
      const headers: Record<string, string> = { 'x-api-key': key };
      let payload: string | undefined;
      if (hostile.operation.body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = jsonText(hostile.body);
      }
      const method = hostile.operation.method as 'GET';
      const response = await app.inject({ method, url: hostile.url, headers, payload });
      sent.push({ hostile, answer: { statusCode: response.statusCode, body: response.body } });
    }
    assert.deepEqual(serverFaults(sent), []);
  });
});
