import { Registry } from 'prom-client';
import type { Core } from '../core/core.ts';
import { coreRetentionRules, retentionJob } from '../core/db/retention.ts';
import { createAccess } from './access.ts';
import { createAccountRepository } from './accounts/repository.ts';
import { createAccountService } from './accounts/service.ts';
import { USER_HASH_KEY_PURPOSE } from './accounts/user-hash.ts';
import { createAdBreakRepository } from './ad-info/repository.ts';
import { createAdInfoService } from './ad-info/service.ts';
import { createDelegatedTokens } from './auth/delegated-tokens.ts';
import { createGuards } from './auth/guards.ts';
import {
  createAttemptThrottle,
  createLoginThrottle,
  LOGIN_THROTTLE_KEY_PURPOSE,
} from './auth/login-throttle.ts';
import { createLoginThrottleRepository } from './auth/login-throttle-repository.ts';
import { createAuthService } from './auth/service.ts';
import { createSessionGate } from './auth/session-gate.ts';
import { createSigningKeyRepository } from './auth/signing-key-repository.ts';
import { createSigningKeys, SIGNING_KEY_PURPOSE } from './auth/signing-keys.ts';
import { createBookmarkRepository } from './bookmarks/repository.ts';
import { createBookmarkService } from './bookmarks/service.ts';
import { createContactRepository } from './campaigns/repository.ts';
import { createCampaignService } from './campaigns/service.ts';
import { composeCommands } from './commands/compose.ts';
import { deviceGrantErrors } from './device-grant/errors.ts';
import { createDeviceGrantRepository } from './device-grant/repository.ts';
import { createDeviceGrantService } from './device-grant/service.ts';
import { createDeviceRepository } from './devices/repository.ts';
import { createDeviceService } from './devices/service.ts';
import { createHandoff } from './handoff/service.ts';
import { OUTBOX_KEY_PURPOSE } from './mail/outbox.ts';
import { createOutboxRepository } from './mail/outbox-repository.ts';
import { outboxStatus } from './mail/status.ts';
import { createMailTransport } from './mail/transport.ts';
import { createMailWorker } from './mail/worker.ts';
import { createClientApiMetrics } from './metrics.ts';
import { createPlaybackRepository } from './playback/repository.ts';
import { createPlaybackService } from './playback/service.ts';
import { createRatingRepository } from './ratings/repository.ts';
import { createRatingService } from './ratings/service.ts';
import { createRegistrationRepository } from './registration/repository.ts';
import { createRegistrationService } from './registration/service.ts';
import { clientApiRetentionRules } from './retention.ts';
import { createSessionRepository } from './sessions/repository.ts';
import { createSessionService } from './sessions/service.ts';
import { createSubscriptionRepository } from './subscriptions/repository.ts';
import { createSubscriptionService } from './subscriptions/service.ts';
import { createUserRepository } from './users/repository.ts';
import { createUserService } from './users/service.ts';

const USER_CODE_THROTTLE_KEY_PURPOSE = 'client-api:user-code-throttle';
const DEVICE_GRANT_KEY_PURPOSE = 'client-api:device-grants';

/**
 * The client API's one composition root: every repository, service, guard and worker, built once per
 * app (service.ts) or per admin command. Routes receive what this returns and build nothing.
 * The mail worker and the retention job are built here but started and stopped by the service plugin.
 */
export function composeClientApi(core: Core, registry: Registry = new Registry()) {
  const { config, database } = core;
  const sessions = createSessionRepository(database);
  const gate = createSessionGate(sessions, config.SESSION_IDLE_TIMEOUT);
  const repositories = {
    accounts: createAccountRepository(database),
    users: createUserRepository(database),
    devices: createDeviceRepository(database),
    sessions,
  };
  const signingKeys = createSigningKeys(createSigningKeyRepository(database), core.key(SIGNING_KEY_PURPOSE));
  const accountService = createAccountService(core.key(USER_HASH_KEY_PURPOSE), repositories.accounts);
  const outbox = createOutboxRepository(database.db.withTables());
  // A refusal counts on the metrics built next (called on a request only, never before they exist).
  const playback = createPlaybackService(createPlaybackRepository(database), config, () =>
    metrics.playbackRefused(),
  );
  const metrics = createClientApiMetrics(registry, () => outboxStatus(outbox), playback.liveCount);
  const mailWorker = createMailWorker({
    onDelivery: metrics.mailDelivery,
    outbox,
    key: core.key(OUTBOX_KEY_PURPOSE),
    transport: createMailTransport(config),
    logger: core.logger.child({ component: 'mail-worker' }),
    config,
  });
  const throttles = createLoginThrottleRepository(database);
  const auth = createAuthService({
    config,
    users: repositories.users,
    devices: repositories.devices,
    sessions: repositories.sessions,
    signingKeys,
    throttle: createLoginThrottle(
      config,
      throttles,
      core.key(LOGIN_THROTTLE_KEY_PURPOSE),
      metrics.loginThrottled,
    ),
  });
  const deviceGrants = createDeviceGrantService({
    config,
    grants: createDeviceGrantRepository(database),
    auth,
    users: repositories.users,
    accounts: repositories.accounts,
    devices: repositories.devices,
    sessions: repositories.sessions,
    guesses: createAttemptThrottle(
      {
        perName: config.USER_CODE_MAX_FAILURES,
        perAddress: config.USER_CODE_MAX_FAILURES_PER_ADDRESS,
        windowSeconds: config.LOGIN_FAILURE_WINDOW,
      },
      (retryAfter) =>
        deviceGrantErrors.USER_CODE_THROTTLED(`Too many wrong codes; retry in ${retryAfter} seconds.`, {
          headers: { 'retry-after': String(retryAfter) },
        }),
      throttles,
      core.key(USER_CODE_THROTTLE_KEY_PURPOSE),
      metrics.userCodeThrottled,
    ),
    key: core.key(DEVICE_GRANT_KEY_PURPOSE),
    issuer: () => config.CLIENT_API_PUBLIC_URL ?? core.serviceUrl('client-api'),
    onLimited: metrics.deviceGrantLimited,
  });
  const devices = createDeviceService(config, accountService, repositories.devices, repositories.sessions);
  const commandsModule = composeCommands(core, devices, gate, registry);
  return {
    core,
    repositories,
    signingKeys,
    mailWorker,
    retention: retentionJob(
      database,
      [...coreRetentionRules(config), ...clientApiRetentionRules(config)],
      config,
      core.logger.child({ component: 'retention' }),
    ),
    // Routes get their guards through their declarations only (access.ts).
    access: createAccess(
      createGuards({
        keys: signingKeys,
        apiKeys: core.apiKeys,
        gate,
        delegated: createDelegatedTokens(core),
        deviceRequestLimit: config.CLIENT_API_DEVICE_REQUEST_LIMIT,
        requestLimitWindowSeconds: config.REQUEST_LIMIT_WINDOW,
      }),
    ),
    accounts: accountService,
    users: createUserService(repositories.accounts, repositories.users),
    devices,
    ...commandsModule,
    handoff: createHandoff({ playback, commands: commandsModule.commands, devices }),
    sessions: createSessionService(accountService, repositories.devices, repositories.sessions),
    auth,
    deviceGrants,
    bookmarks: createBookmarkService(
      createBookmarkRepository(database),
      repositories.accounts,
      // The playing mark also reports the device's live stream, in the same statement.
      (account, device, at, position) =>
        repositories.devices.markPlaying(account, device, at, {
          ...position,
          staleBefore: at - config.PLAYBACK_STALE_AFTER * 1000,
        }),
    ),
    playback,
    ratings: createRatingService(createRatingRepository(database), repositories.users),
    registration: createRegistrationService({
      repository: createRegistrationRepository(database),
      outboxKey: core.key(OUTBOX_KEY_PURPOSE),
      hashKey: core.key('registration-rate-limit'),
      limitPerHour: config.REGISTRATION_RATE_LIMIT,
      limitPerHourTotal: config.REGISTRATION_MAIL_PER_HOUR,
      refused: (limit) => core.metrics.limitRefused(limit),
      onQueued: () => mailWorker.kick(),
    }),
    mailOutbox: { status: () => outboxStatus(outbox, { sent: true }) },
    campaigns: createCampaignService(createContactRepository(database), repositories, config),
    subscriptions: createSubscriptionService(
      createSubscriptionRepository(database),
      repositories.users,
      config,
    ),
    adInfo: createAdInfoService(createAdBreakRepository(database), config),
  };
}

export type ClientApi = ReturnType<typeof composeClientApi>;
