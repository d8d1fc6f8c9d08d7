import { defineErrors } from '../../core/errors.ts';

/** Handing what one device plays over to another of the account. */
export const handoffErrors = defineErrors('client-api/handoff', {
  HANDOFF_SAME_DEVICE: [400, 'A handoff goes from one device to another: `from` and `to` must differ.'],
  NOTHING_PLAYING: [409, 'The device handed from plays nothing now: there is nothing to hand over.'],
});
