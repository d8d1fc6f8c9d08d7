import { defineErrors } from '../../core/errors.ts';

/** Devices (media players) of an account. */
export const deviceErrors = defineErrors('client-api/devices', {
  DEVICE_NOT_FOUND: [404, 'No such device in this account.'],
  DEVICE_DELETE_COOLDOWN: [
    409,
    'The device was activated too recently to be deleted; retry later.',
    ['retry-after'],
  ],
  DEVICE_LIMIT_REACHED: [409, 'The account already holds the most enabled devices it may.'],
  DEVICE_DISABLED: [403, 'This device is disabled in its account.'],
  DEVICE_ID_TAKEN: [409, 'The account already holds a device with this id.'],
  DEVICE_NAME_TOO_LONG: [400, 'The device name is too long.'],
  DEVICE_NAME_REQUIRED: [400, 'A device name is required.'],
});
