import { defineErrors } from '../../core/errors.ts';

/** Streams (what each device plays) and the account's stream limit. */
export const playbackErrors = defineErrors('client-api/playback', {
  STREAM_LIMIT_REACHED: [
    409,
    "The account already plays as many streams at once as its limit allows; stop one of the account's other devices first.",
  ],
});
