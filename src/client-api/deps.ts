import type { Core } from '../core/core.ts';
import { createAccountRepository } from './accounts/repository.ts';
import { createAccountService } from './accounts/service.ts';
import { createGuards, type Guards } from './auth/guards.ts';
import { createSigningKeys } from './auth/signing-keys.ts';
import { createDeviceRepository } from './devices/repository.ts';
import { createSessionRepository } from './sessions/repository.ts';
import { createUserRepository } from './users/repository.ts';
import { createUserService } from './users/service.ts';

/**
 * What area A's routes are built from: made once per app in service.ts and passed to every
 * `register…Routes(scope, deps)`. Route authors take `deps.guards` for authentication and access.
 */
export function createClientApiDeps(core: Core) {
  const accounts = createAccountRepository(core.database);
  const users = createUserRepository(core.database);
  const devices = createDeviceRepository(core.database);
  const sessions = createSessionRepository(core.database);
  const signingKeys = createSigningKeys(core);
  const guards: Guards = createGuards(core, signingKeys, sessions);
  return {
    core,
    guards,
    signingKeys,
    repositories: { accounts, users, devices, sessions },
    accountService: createAccountService(core, accounts),
    userService: createUserService(accounts, users),
  };
}

export type ClientApiDeps = ReturnType<typeof createClientApiDeps>;
