import { Gauge, type Registry } from 'prom-client';
import type { Core } from '../../core/core.ts';
import type { SessionGate } from '../auth/session-gate.ts';
import type { DeviceService } from '../devices/service.ts';
import { createCommandRepository } from './repository.ts';
import { createCommandService } from './service.ts';
import { createCommandStreamHub } from './stream-hub.ts';
import { COMMAND_STREAM_KEY_PURPOSE, createStreamTickets } from './tickets.ts';

/**
 * The commands module, built once by the client API's composition root: the service (what routes, the
 * handoff and the assistant call) and what the stream route needs. Nothing runs until the hub starts.
 */
export function composeCommands(
  core: Core,
  devices: Pick<DeviceService, 'requireDevice'>,
  gate: SessionGate,
  registry: Registry,
) {
  const { config } = core;
  const repository = createCommandRepository(core.database);
  const hub = createCommandStreamHub(repository, {
    events: core.events,
    maxStreams: config.COMMAND_STREAMS,
    keepAliveSeconds: config.COMMAND_STREAM_KEEPALIVE,
    logger: core.logger.child({ component: 'command-streams' }),
    refused: () => core.metrics.limitRefused('command_streams'),
  });
  new Gauge({
    name: 'sintonia_command_streams_open',
    help: 'Device command streams (Server-Sent Events) open in this process.',
    registers: [registry],
    collect() {
      this.set(hub.size);
    },
  });
  const tickets = createStreamTickets(core.key(COMMAND_STREAM_KEY_PURPOSE));
  const origin = () => config.CLIENT_API_PUBLIC_URL ?? core.serviceUrl('client-api');
  const commands = createCommandService({
    config,
    repository,
    hub,
    devices,
    tickets,
    streamUrl: (deviceClass, deviceId) =>
      `${origin()}${config.CLIENT_API_BASE_PATH}/${encodeURIComponent(deviceClass)}/${encodeURIComponent(deviceId)}/commands`,
    refused: (limit) => core.metrics.limitRefused(limit),
  });
  return { commands, commandStreams: { hub, tickets, gate } };
}
