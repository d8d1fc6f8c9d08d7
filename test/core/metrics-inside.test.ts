import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { createConfirmations } from '../../src/agents/tools/confirmations.ts';
import { type App, buildServiceApp, type ServiceDefinition } from '../../src/core/http/service-app.ts';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { linkedChat } from '../helpers/assistant-chat.ts';
import { createTestCore, startTestFamily, type TestCore } from '../helpers/harness.ts';
import { signedInHousehold } from '../helpers/household.ts';
import { promtoolCheck, sample, scrape, scrapeKey } from '../helpers/metrics-text.ts';
import { until } from '../helpers/until.ts';

const BASE = '/api/v1';
const services = ['client-api', 'assistant-auth', 'agents'] as const;

/**
 * What each service's /metrics shows of the inside, read as Prometheus reads it (a key as a bearer credential): every
 * metric moves when its event happens, and promtool finds nothing to say of any service's exposition.
 */
describe('metrics that show the inside', () => {
  let family: { core: TestCore; family: RunningFamily };
  let gatewayKey: string;
  const url = (service: (typeof services)[number]) => family.family.url(service);

  before(async () => {
    const core = await createTestCore({ LOGIN_MAX_FAILURES: '2', GATEWAY_KEY_REQUEST_LIMIT: '50' });
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = { core, family: await startFamily(core, [...services]) };
    gatewayKey = (await core.apiKeys.create('gateway', 'gateway')).key;
  });
  after(async () => {
    await family.family.close();
    await family.core.dispose();
  });

  it('a chat that acts on a device moves the channel, agent, tool and confirmation metrics', async () => {
    const home = await signedInHousehold(family.core, `${url('client-api')}${BASE}`, {
      accountNumber: 'MET-1001',
      email: 'met-1001@example.test',
      devices: [
        ['MET-1001-bed', 'Bedroom TV'],
        ['MET-1001-liv', 'Salón'],
      ],
    });
    assert.ok(home['MET-1001-bed']);
    const before = {
      channel: await scrape(family.core, url('assistant-auth')),
      agents: await scrape(family.core, url('agents')),
    };
    const chat = await linkedChat(family.core, url('assistant-auth'), gatewayKey, randomUUID(), 'MET-1001');
    const stream = new WebSocket(chat.streamUrl);
    await new Promise((resolve, reject) => stream.once('open', resolve).once('error', reject));
    try {
      assert.match((await chat.say('What devices do I have?')).text ?? '', /Bedroom TV/);
      assert.match((await chat.say('sign out the salon')).text ?? '', /sign «Salón» out/);
      assert.match((await chat.say('No')).text ?? '', /won't do it/);
      assert.match((await chat.say('sign out the bedroom tv')).text ?? '', /sign «Bedroom TV» out/);
      assert.match((await chat.say('Yes')).text ?? '', /Bedroom TV/);
      const channel = await scrape(family.core, url('assistant-auth'));
      const moved = (name: string, labels: Record<string, string> = {}) =>
        (sample(channel, name, labels) ?? 0) - (sample(before.channel, name, labels) ?? 0);
      assert.equal(sample(channel, 'sintonia_directline_streams_open'), 1, 'the open stream');
      assert.equal(moved('sintonia_directline_conversations_started_total'), 1);
      assert.equal(moved('sintonia_directline_activities_received_total', { type: 'message' }), 5);
      assert.equal(moved('sintonia_directline_answers_total', { outcome: 'ok' }), 5);
      assert.equal(moved('sintonia_directline_answer_duration_seconds_count'), 5);
      assert.ok(moved('sintonia_directline_answer_duration_seconds_sum') > 0);

      const agents = await scrape(family.core, url('agents'));
      const counted = (name: string, labels: Record<string, string>) =>
        (sample(agents, name, labels) ?? 0) - (sample(before.agents, name, labels) ?? 0);
      assert.equal(counted('sintonia_agent_runs_total', { agent: 'assistant', outcome: 'ok' }), 5);
      assert.equal(
        counted('sintonia_agent_tool_calls_total', { tool: 'list_devices', outcome: 'devices' }),
        1,
      );
      assert.equal(
        counted('sintonia_agent_tool_calls_total', {
          tool: 'sign_out_device',
          outcome: 'confirmation_required',
        }),
        2,
      );
      assert.equal(
        counted('sintonia_agent_tool_calls_total', { tool: 'sign_out_device', outcome: 'done' }),
        1,
      );
      assert.equal(counted('sintonia_agent_confirmations_total', { event: 'asked' }), 2);
      assert.equal(counted('sintonia_agent_confirmations_total', { event: 'declined' }), 1);
      assert.equal(counted('sintonia_agent_confirmations_total', { event: 'confirmed' }), 1);
    } finally {
      stream.close();
    }
    await until(
      async () =>
        sample(await scrape(family.core, url('assistant-auth')), 'sintonia_directline_streams_open') === 0
          ? true
          : undefined,
      'the stream closed',
    );
  });

  it('counts the store’s statements, an e-mail sent, a throttled sign-in and an API key over its limit', async () => {
    const before = await scrape(family.core, url('client-api'));
    const registered = await fetch(`${url('client-api')}${BASE}/web/registration/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'metrics@example.test', language: 'en' }),
    });
    assert.equal(registered.status, 200);
    await until(async () => {
      const now = await scrape(family.core, url('client-api'));
      return sample(now, 'sintonia_mail_deliveries_total', { outcome: 'sent' }) === 1 ? true : undefined;
    }, 'the e-mail sent');
    const signIn = () =>
      fetch(`${url('client-api')}${BASE}/auth/smarttv/users/authenticate?auth-only=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'nobody@example.test', password: 'wrong', deviceId: 'met-tv' }),
      });
    let refused = await signIn();
    while (refused.status !== 429) refused = await signIn();
    assert.equal((await refused.json()).errors[0].type, 'LOGIN_THROTTLED');
    const after = await scrape(family.core, url('client-api'));
    assert.ok(
      (sample(after, 'sintonia_store_statements_total') ?? 0) >
        (sample(before, 'sintonia_store_statements_total') ?? 0),
    );
    assert.equal(sample(after, 'sintonia_login_throttled_total', { limit: 'user' }), 1);
    assert.equal(
      sample(after, 'sintonia_problem_responses_total', { type: 'LOGIN_THROTTLED', status_code: '429' }),
      1,
    );

    const busy = (await family.core.apiKeys.create('gateway', 'busy gateway')).key;
    let answer = await fetch(`${url('assistant-auth')}/ping`, { headers: { 'x-api-key': busy } });
    while (answer.status === 200)
      answer = await fetch(`${url('assistant-auth')}/ping`, { headers: { 'x-api-key': busy } });
    assert.equal(answer.status, 429);
    const limited = await scrape(family.core, url('assistant-auth'));
    assert.equal(
      sample(limited, 'sintonia_api_key_rate_limited_requests_total', { key_class: 'gateway' }),
      1,
    );
    assert.equal(sample(limited, 'sintonia_problem_responses_total', { type: 'RATE_LIMITED' }), 1);
  });

  it('the store’s pool and pipeline on PostgreSQL; none on the embedded store', async () => {
    const text = await scrape(family.core, url('client-api'));
    if (family.core.database.dialect === 'postgres') {
      assert.ok((sample(text, 'sintonia_store_pool_connections', { state: 'idle' }) ?? -1) >= 0);
      assert.ok((sample(text, 'sintonia_store_pool_connections', { state: 'in_use' }) ?? -1) >= 0);
      assert.equal(sample(text, 'sintonia_store_pool_waiting_requests'), 0);
      const reads = { pipeline: 'reads' };
      const writes = { pipeline: 'writes' };
      assert.ok(
        (sample(text, 'sintonia_store_pipeline_connections', reads) ?? 0) >= 1,
        'the reads opened one',
      );
      assert.ok((sample(text, 'sintonia_store_pipeline_connections', writes) ?? -1) >= 0);
      assert.equal(sample(text, 'sintonia_store_pipeline_depth_statements', reads), 0);
      // A background job's write (a mail pass, the retention) may be on the wire at the scrape.
      assert.ok((sample(text, 'sintonia_store_pipeline_depth_statements', writes) ?? -1) >= 0);
    } else {
      assert.equal(sample(text, 'sintonia_store_pool_connections'), undefined);
    }
  });

  it('every service takes any valid key for /metrics, as X-API-Key or Bearer, and promtool finds nothing to say', async () => {
    const client = (await family.core.apiKeys.create('client', 'a client key')).key;
    const revoked = await family.core.apiKeys.create('gateway', 'revoked');
    await family.core.apiKeys.revoke(revoked.id);
    const types = async (response: Response) =>
      ((await response.json()) as { errors: Array<{ type: string }> }).errors.map((error) => error.type);
    for (const service of services) {
      const metrics = `${url(service)}/metrics`;
      const none = await fetch(metrics);
      assert.equal(none.status, 401, service);
      assert.deepEqual(await types(none), ['CREDENTIALS_MISSING'], service);
      const bad = await fetch(metrics, { headers: { authorization: `Bearer ${revoked.key}` } });
      assert.equal(bad.status, 401, service);
      assert.deepEqual(await types(bad), ['API_KEY_INVALID'], service);
      const asHeader = await fetch(metrics, { headers: { 'x-api-key': client } });
      assert.equal(asHeader.status, 200, service);
      await asHeader.text();
      const asBearer = await fetch(metrics, { headers: { authorization: `bearer ${client}` } });
      assert.equal(asBearer.status, 200, service);
      assert.equal(promtoolCheck(await asBearer.text()), '', service);
    }
  });
});

describe('/metrics opened by the operator (METRICS_OPEN=1)', () => {
  it('every service answers it without a key', async () => {
    const { family, close } = await startTestFamily([...services], { METRICS_OPEN: '1' });
    try {
      for (const service of services) {
        const response = await fetch(`${family.url(service)}/metrics`);
        assert.equal(response.status, 200, service);
        assert.match(await response.text(), /^# HELP /m, service);
      }
    } finally {
      await close();
    }
  });
});

describe('metrics of what a family test does not reach', () => {
  it('an e-mail that cannot be delivered: retried, then failed for good, and the outbox says so', async () => {
    const { family, core, close } = await startTestFamily(['client-api'], {
      SMTP_URL: 'smtp://127.0.0.1:1',
      MAIL_MAX_ATTEMPTS: '2',
      MAIL_RETRY_BASE_MS: '50',
      MAIL_POLL_INTERVAL_MS: '50',
    });
    try {
      const url = family.url('client-api');
      const registered = await fetch(`${url}${BASE}/web/registration/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'undeliverable@example.test', language: 'en' }),
      });
      assert.equal(registered.status, 200);
      // One scrape reads the counters at once but the outbox from the store a moment later, so the outbox
      // can already show the failure the counters were read before: wait for both to say it.
      const text = await until(async () => {
        const now = await scrape(core, url);
        const failed = sample(now, 'sintonia_mail_outbox_messages', { status: 'failed' }) === 1;
        const counted = sample(now, 'sintonia_mail_deliveries_total', { outcome: 'failed' }) === 1;
        return failed && counted ? now : undefined;
      }, 'the outbox and the counters to show the failed e-mail');
      assert.equal(sample(text, 'sintonia_mail_deliveries_total', { outcome: 'retry' }), 1);
      assert.equal(sample(text, 'sintonia_mail_deliveries_total', { outcome: 'failed' }), 1);
      assert.equal(sample(text, 'sintonia_mail_outbox_messages', { status: 'pending' }), 0);
      assert.equal(sample(text, 'sintonia_mail_outbox_oldest_pending_age_seconds'), 0);
    } finally {
      await close();
    }
  });

  it('a pending e-mail shows in the outbox depth with its age', async () => {
    const { family, core, close } = await startTestFamily(['client-api'], {
      SMTP_URL: 'smtp://127.0.0.1:1',
      MAIL_RETRY_BASE_MS: '3600000',
    });
    try {
      const url = family.url('client-api');
      await fetch(`${url}${BASE}/web/registration/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'later@example.test', language: 'en' }),
      });
      const text = await until(async () => {
        const now = await scrape(core, url);
        return sample(now, 'sintonia_mail_outbox_messages', { status: 'pending' }) === 1 ? now : undefined;
      }, 'the outbox to show the pending e-mail');
      assert.ok((sample(text, 'sintonia_mail_outbox_oldest_pending_age_seconds') ?? 0) > 0);
    } finally {
      await close();
    }
  });

  it('an expired confirmation is counted as expired', async () => {
    const core = await createTestCore();
    try {
      const events: string[] = [];
      let clock = Date.now();
      const confirmations = createConfirmations(
        core,
        () => clock,
        (event) => events.push(event),
      );
      const owner = { assistantId: 'a', conversationId: 'c' };
      await confirmations.request(owner, 'sign_out_device', { device: 'tv' });
      clock += 10 * 60_000;
      assert.equal(await confirmations.confirm(owner), undefined);
      assert.deepEqual(events, ['asked', 'expired']);
    } finally {
      await core.dispose();
    }
  });

  it('a STORE_UNAVAILABLE answer counts as one', async () => {
    const core: TestCore = await createTestCore();
    const outage: ServiceDefinition = {
      name: 'agents',
      async plugin(app) {
        app.get('/outage', async () => {
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        });
      },
    };
    const app: App = await buildServiceApp(core, outage);
    try {
      const answer = await app.inject({ method: 'GET', url: '/outage' });
      assert.equal(answer.statusCode, 503);
      assert.equal(answer.json().errors[0].type, 'STORE_UNAVAILABLE');
      const text = (
        await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': await scrapeKey(core) } })
      ).body;
      assert.equal(
        sample(text, 'sintonia_problem_responses_total', { type: 'STORE_UNAVAILABLE', status_code: '503' }),
        1,
      );
    } finally {
      await app.close();
      await core.dispose();
    }
  });
});
