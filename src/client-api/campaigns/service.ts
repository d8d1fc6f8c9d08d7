import { randomUUID } from 'node:crypto';
import Value from 'typebox/value';
import type { Config } from '../../core/config.ts';
import { subsystemErrors } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import { accountErrors } from '../accounts/errors.ts';
import type { AccountRepository } from '../accounts/repository.ts';
import { deviceErrors } from '../devices/errors.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import type { ContactRepository } from './repository.ts';
import { forwardedContactSchema } from './schemas.ts';

export interface ContactInput {
  deviceClass: string;
  accountNumber: string;
  campaign: string;
  mediaPlayerId: string | null;
}

export interface CampaignService {
  /** Registers the contact of an existing account (and device, when named) and answers its id. */
  addContact(input: ContactInput): Promise<string>;
}

/**
 * Stores the contact in the local table, or, when CAMPAIGNS_URL is set, forwards it to that subsystem
 * (POST {CAMPAIGNS_URL}/contacts, JSON in, `{ id }` out) and answers the id it gives.
 */
export function createCampaignService(
  repository: ContactRepository,
  known: { accounts: Pick<AccountRepository, 'find'>; devices: Pick<DeviceRepository, 'find'> },
  config: Pick<Config, 'CAMPAIGNS_URL' | 'SUBSYSTEM_TIMEOUT_MS'>,
  now: () => number = Date.now,
): CampaignService {
  const remote = config.CAMPAIGNS_URL;
  return {
    async addContact(input) {
      if (!(await known.accounts.find(input.accountNumber))) throw accountErrors.ACCOUNT_NOT_FOUND();
      if (
        input.mediaPlayerId !== null &&
        !(await known.devices.find(input.accountNumber, input.mediaPlayerId))
      ) {
        throw deviceErrors.DEVICE_NOT_FOUND();
      }
      if (remote) {
        const answer = await callSubsystem<unknown>({
          subsystem: 'campaigns',
          url: `${remote.replace(/\/$/, '')}/contacts`,
          method: 'POST',
          body: input,
          timeoutMs: config.SUBSYSTEM_TIMEOUT_MS,
        });
        if (!Value.Check(forwardedContactSchema, answer.body)) {
          throw subsystemErrors.SUBSYSTEM_ERROR('The campaigns subsystem answered without a contact id.');
        }
        return answer.body.id;
      }
      const id = randomUUID();
      await repository.insert({
        id,
        account_number: input.accountNumber,
        device_class: input.deviceClass,
        campaign: input.campaign,
        media_player_id: input.mediaPlayerId,
        created_at: now(),
      });
      return id;
    },
  };
}
