import { isoTime } from '../../core/iso-time.ts';
import { untrustedName } from '../../core/untrusted-text.ts';
import { displayUserCode } from './codes.ts';
import type { DeviceSignInValue } from './schemas.ts';
import type { DeviceGrantRow } from './tables.ts';

/**
 * Shown before every approval (page, signed-in device, assistant), after RFC 8628 section 5.4 and the
 * device-code phishing of 2024–25: the code is only ever the person's own, read off their own screen.
 */
export const SIGN_IN_WARNING =
  'Approve only a code shown on a screen in front of you. Nobody from Sintonia will ever ask you for a code: if someone did, refuse it.';

/** The name a TV's device gets and is shown by: its own, as untrusted text, else "<class> <id>". */
export const deviceNameOf = (grant: Pick<DeviceGrantRow, 'device_name' | 'client_id' | 'device_id'>) =>
  untrustedName(grant.device_name) || untrustedName(`${grant.client_id} ${grant.device_id}`);

/** What a person is shown of a sign-in: the TV's class, id and name, when and whence it asked, the code. */
export function signInView(grant: DeviceGrantRow, letters: string): DeviceSignInValue {
  return {
    userCode: displayUserCode(letters),
    deviceClass: grant.client_id,
    deviceId: grant.device_id,
    deviceName: deviceNameOf(grant),
    status: grant.status === 'redeemed' ? 'approved' : grant.status,
    requestedAt: isoTime(grant.created_at),
    requestedFrom: grant.requested_from ?? 'unknown',
    warning: SIGN_IN_WARNING,
    expiresAt: isoTime(grant.expires_at),
  };
}
