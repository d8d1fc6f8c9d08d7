import { defineErrors } from '../../core/errors.ts';

/** Commands to devices (stop, pause, resume, play) and the devices' command streams. */
export const commandErrors = defineErrors('client-api/commands', {
  DEVICE_NOT_CONNECTED: [409, 'The device holds no command stream now; it cannot be told anything.'],
  COMMAND_NOT_FOUND: [404, 'No such command for this device.'],
  COMMAND_EXPIRED: [409, 'The command expired (COMMAND_TTL) before it was acknowledged.'],
  COMMAND_CONTENT_REQUIRED: [400, 'A play command names the content to play (contentId).'],
  COMMANDS_LIMITED: [429, 'Too many commands from this sender; retry later.', ['retry-after']],
  COMMANDS_PENDING_LIMITED: [
    429,
    'The device holds too many commands not acknowledged yet; retry later.',
    ['retry-after'],
  ],
  COMMAND_STREAMS_FULL: [503, 'This process holds all the command streams it may; retry.', ['retry-after']],
  COMMAND_STREAM_TICKET_INVALID: [401, 'The stream ticket is invalid, expired or for another device.'],
  COMMAND_STREAM_NOT_ACCEPTABLE: [406, 'A command stream is sent as text/event-stream only (Accept).'],
});
