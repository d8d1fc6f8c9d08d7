import type { AccountService } from '../accounts/service.ts';
import type { QspVersionValue } from '../common-schemas.ts';
import { deviceErrors } from '../devices/errors.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { sessionErrors } from './errors.ts';
import type { SessionRepository } from './repository.ts';

/** `All` addresses the sessions of every qspVersion; any other value only its own. */
const versionFilter = (qspVersion: QspVersionValue) => (qspVersion === 'All' ? undefined : qspVersion);

export function createSessionService(
  accounts: AccountService,
  devices: DeviceRepository,
  sessions: SessionRepository,
) {
  return {
    /** Closes the account's open sessions (of one qspVersion unless All); 404 when none was open. */
    async closeAccountSessions(accountNumber: string, qspVersion: QspVersionValue, now = Date.now()) {
      await accounts.require(accountNumber);
      const closed = await sessions.close({ accountNumber, qspVersion: versionFilter(qspVersion) }, now);
      if (closed === 0) throw sessionErrors.SESSION_NOT_FOUND();
      return closed;
    },

    async closeDeviceSessions(
      accountNumber: string,
      deviceId: string,
      qspVersion: QspVersionValue,
      now = Date.now(),
    ) {
      await accounts.require(accountNumber);
      if (!(await devices.find(accountNumber, deviceId))) throw deviceErrors.DEVICE_NOT_FOUND();
      const closed = await sessions.close(
        { accountNumber, deviceId, qspVersion: versionFilter(qspVersion) },
        now,
      );
      if (closed === 0) throw sessionErrors.SESSION_NOT_FOUND();
      return closed;
    },
  };
}
