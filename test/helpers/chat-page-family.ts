import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import { type RunningFamily, startFamily } from '../../src/family.ts';
import { launchChromium } from './docs-page.ts';
import { createTestCore, type Env, type TestCore } from './harness.ts';

/** The client API's base path, under which households are signed in. */
const BASE = '/api/v1';

/**
 * For the calling suite: Chromium and the three servers on one core with the chat page on, the agents
 * server called with a runtime key of that core; then `households` makes what the suite needs, given the
 * client API's URL (base path included). Closed after the suite. Read `browser`, `core` and `family` inside
 * the tests.
 */
export function suiteChatPageFamily(
  households: (core: TestCore, clientApi: string) => Promise<void>,
  /** Settings of the suite's core beyond CHAT_PAGE=on. */
  env: Env = {},
) {
  let browser: Browser | undefined;
  let core: TestCore | undefined;
  let family: RunningFamily | undefined;
  before(async () => {
    browser = await launchChromium();
    core = await createTestCore({ CHAT_PAGE: 'on', ...env });
    const runtimeKey = (await core.apiKeys.create('runtime', 'agents runtime')).key;
    Object.assign(core.config, { ASSISTANT_RUNTIME_KEY: runtimeKey });
    family = await startFamily(core, ['client-api', 'assistant-auth', 'agents']);
    await households(core, `${family.url('client-api')}${BASE}`);
  });
  after(async () => {
    await browser?.close();
    await family?.close();
    await core?.dispose();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error("suiteChatPageFamily: read inside a test, after the suite's before()");
    return value;
  };
  return {
    get browser(): Browser {
      return ready(browser);
    },
    get core(): TestCore {
      return ready(core);
    },
    get family(): RunningFamily {
      return ready(family);
    },
  };
}
