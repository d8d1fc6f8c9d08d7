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

    /**
     * Closes the one session a credential rests on (`sessionId`: a device token's own, or the one a
     * delegated token's `sid` names), through the same close as the others: its tokens, its command stream
     * and the assistant's links resting on it end with it. 409 NO_CURRENT_SESSION when there is none.
     */
    async closeCurrentSession(accountNumber: string, sessionId: string | undefined, now = Date.now()) {
      if (sessionId === undefined) throw sessionErrors.NO_CURRENT_SESSION();
      // The guards found the session open and of this account (accounts are never removed): 0 only when
      // another request closed it since.
      if ((await sessions.close({ accountNumber, sessionId }, now)) === 0)
        throw sessionErrors.SESSION_NOT_FOUND();
    },
  };
}
