import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { AccountDevice } from '../../src/agents/tools/account-client.ts';
import { createAccountTools, matchDevice, normalizeName } from '../../src/agents/tools/account-tools.ts';
import {
  actionHash,
  CONFIRMATION_TTL_MS,
  type ConfirmationOwner,
  createConfirmations,
} from '../../src/agents/tools/confirmations.ts';
import { createTestCore, type TestCore } from '../helpers/harness.ts';
import { memoryAccount } from './helpers/memory-account.ts';

const device = (mediaPlayerId: string, name: string, extra: Partial<AccountDevice> = {}): AccountDevice => ({
  mediaPlayerId,
  name,
  deviceClass: 'stb',
  enabled: true,
  playing: false,
  ...extra,
});

const household = [
  device('mp-1', 'Bedroom TV'),
  device('mp-2', 'Salón'),
  device('mp-3', 'Living room TV'),
  device('mp-4', 'Kids tablet'),
];

describe('matching the device a person names', () => {
  const match = (said: string) => {
    const found = matchDevice(household, said);
    return found.kind === 'one'
      ? found.device.mediaPlayerId
      : found.kind === 'many'
        ? found.candidates.map((item) => item.mediaPlayerId)
        : 'none';
  };

  describe('happy', () => {
    it('finds by id, by exact name without regard to case or accents, and loosely by words', () => {
      assert.equal(match('mp-4'), 'mp-4');
      assert.equal(match('salon'), 'mp-2');
      assert.equal(match('la tele del salón'), 'mp-2');
      assert.equal(match('the bedroom TV'), 'mp-1');
      assert.equal(match('bedroom'), 'mp-1');
      assert.equal(match('kids'), 'mp-4');
    });

    it('answers every candidate when the words fit several, and none when nothing fits', () => {
      assert.deepEqual(match('the TV'), ['mp-1', 'mp-3']);
      assert.equal(match('kitchen'), 'none');
      assert.equal(match('   '), 'none');
    });

    it('always finds a device by its id, and by its exact name when no other name normalizes alike', () => {
      const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 24 }), {
        minLength: 1,
        maxLength: 8,
        selector: normalizeName,
      });
      fc.assert(
        fc.property(names, fc.nat(), (unique, pick) => {
          const devices = unique.map((name, index) => device(`mp-${index}`, name));
          const chosen = devices[pick % devices.length];
          if (!chosen) return;
          const byId = matchDevice(devices, chosen.mediaPlayerId);
          assert.equal(byId.kind === 'one' && byId.device, chosen);
          if (normalizeName(chosen.name) === '') return;
          const byName = matchDevice(devices, chosen.name);
          assert.equal(byName.kind === 'one' && byName.device, chosen);
        }),
      );
    });
  });
});

describe('action hashes', () => {
  describe('happy', () => {
    it('are the same for the same arguments in any key order, and differ when anything differs', () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean())), (args) => {
          const reversed = Object.fromEntries(Object.entries(args).reverse());
          assert.equal(actionHash('rename_device', args), actionHash('rename_device', reversed));
          assert.notEqual(actionHash('rename_device', args), actionHash('sign_out_device', args));
          assert.notEqual(actionHash('t', args), actionHash('t', { ...args, '\u0000extra': 1 }));
        }),
      );
    });
  });
});

/** The household in memory; enabling or disabling the kids tablet hits the device limit. */
function memoryHousehold(devices: AccountDevice[]) {
  const { session, ran } = memoryAccount(devices, {
    playing: ['mp-3'],
    refuse: (change) =>
      change.startsWith('enabled mp-4') ? { status: 409, type: 'DEVICE_LIMIT_REACHED' } : undefined,
  });
  return { session, calls: ran };
}

describe('account tools and confirmations', () => {
  let core: TestCore;
  let clock = Date.now();
  const owner = (): ConfirmationOwner => ({ assistantId: randomUUID(), conversationId: randomUUID() });
  before(async () => {
    core = await createTestCore();
  });
  after(() => core.dispose());
  const confirmations = () => createConfirmations(core, () => clock);

  describe('happy', () => {
    it('runs read-only tools at once: the devices with what is playing', async () => {
      const { session, calls } = memoryHousehold(household);
      const tools = createAccountTools(session, confirmations(), owner());
      const listed = await tools.call('list_devices', {});
      assert.equal(listed.status, 'devices');
      assert.deepEqual(
        listed.status === 'devices' &&
          listed.devices.filter((item) => item.playing).map((item) => item.mediaPlayerId),
        ['mp-3'],
      );
      const playing = await tools.call('whats_playing', {});
      assert.deepEqual(playing.status === 'playing' && playing.devices.map((item) => item.name), [
        'Living room TV',
      ]);
      assert.deepEqual(calls, []);
    });

    it('answers a changing tool with a confirmation request, and runs it only once, on confirmation', async () => {
      const { session, calls } = memoryHousehold(household);
      const tools = createAccountTools(session, confirmations(), owner());
      const asked = await tools.call('sign_out_device', { device: 'bedroom' });
      assert.equal(asked.status, 'confirmation_required');
      assert.deepEqual(asked.status === 'confirmation_required' && asked.action, {
        tool: 'sign_out_device',
        mediaPlayerId: 'mp-1',
        deviceName: 'Bedroom TV',
      });
      assert.deepEqual(calls, [], 'nothing runs before the confirmation');
      const done = await tools.confirm();
      assert.equal(done.status, 'done');
      assert.deepEqual(calls, ['sign-out mp-1']);
      assert.equal((await tools.confirm()).status, 'nothing_to_confirm', 'a confirmation is single use');
      assert.deepEqual(calls, ['sign-out mp-1']);
    });
  });

  describe('errors', () => {
    it('answers unknown tools, bad arguments, unknown and ambiguous devices without running anything', async () => {
      const { session, calls } = memoryHousehold(household);
      const tools = createAccountTools(session, confirmations(), owner());
      assert.deepEqual(await tools.call('delete_account', {}), {
        status: 'unknown_tool',
        tool: 'delete_account',
      });
      const bad = await tools.call('rename_device', { device: 'salon' });
      assert.equal(bad.status, 'invalid_arguments');
      assert.equal(
        (await tools.call('sign_out_device', { device: 'salon', extra: 1 })).status,
        'invalid_arguments',
      );
      assert.equal((await tools.call('sign_out_device', 'salon')).status, 'invalid_arguments');
      const none = await tools.call('sign_out_device', { device: 'kitchen' });
      assert.equal(none.status, 'device_not_found');
      const many = await tools.call('sign_out_device', { device: 'the tv' });
      assert.deepEqual(many.status === 'device_ambiguous' && many.candidates, [
        'Bedroom TV',
        'Living room TV',
      ]);
      assert.equal((await tools.confirm()).status, 'nothing_to_confirm');
      assert.deepEqual(calls, []);
    });
  });

  describe('security', () => {
    it('"no", a newer request and expiry cancel; another person or conversation cannot confirm', async () => {
      const { session, calls } = memoryHousehold(household);
      const store = confirmations();
      const mine = owner();
      const tools = createAccountTools(session, store, mine);
      await tools.call('rename_device', { device: 'salon', name: 'Cocina' });
      assert.equal(await tools.cancel(), true);
      assert.equal((await tools.confirm()).status, 'nothing_to_confirm');

      await tools.call('rename_device', { device: 'salon', name: 'Cocina' });
      await tools.call('set_device_enabled', { device: 'kids', enabled: false });
      const latest = await tools.confirm();
      assert.equal(latest.status, 'refused', 'the newer request is the one that runs');
      assert.deepEqual(calls, ['enabled mp-4 false']);

      await tools.call('sign_out_device', { device: 'salon' });
      const stranger = createAccountTools(session, store, { ...mine, assistantId: randomUUID() });
      assert.equal((await stranger.confirm()).status, 'nothing_to_confirm');
      const otherConversation = createAccountTools(session, store, { ...mine, conversationId: randomUUID() });
      assert.equal((await otherConversation.confirm()).status, 'nothing_to_confirm');
      clock += CONFIRMATION_TTL_MS + 1;
      assert.equal((await tools.confirm()).status, 'nothing_to_confirm', 'expired');
      assert.deepEqual(calls, ['enabled mp-4 false']);
    });

    it('a confirmation bound to other arguments does not run', async () => {
      const { session, calls } = memoryHousehold(household);
      const tools = createAccountTools(session, confirmations(), owner());
      await tools.call('rename_device', { device: 'salon', name: 'Cocina' });
      const other = actionHash('rename_device', {
        tool: 'rename_device',
        mediaPlayerId: 'mp-2',
        deviceName: 'Salón',
        name: 'Otro',
      });
      assert.equal((await tools.confirm(other)).status, 'nothing_to_confirm');
      assert.deepEqual(calls, []);
    });

    it('keeps the arguments sealed at rest', async () => {
      const { session } = memoryHousehold(household);
      const tools = createAccountTools(session, confirmations(), owner());
      const asked = await tools.call('rename_device', { device: 'salon', name: 'Habitación de Ana' });
      assert.equal(asked.status, 'confirmation_required');
      const rows = await core.database.db
        .withTables<import('../../src/agents/tables.ts').AgentTables>()
        .selectFrom('agent_confirmations')
        .select('arguments_sealed')
        .execute();
      assert.ok(rows.length > 0);
      // The whole name: a short piece of it ('Ana') turns up in base64 ciphertext by chance, now and then.
      for (const row of rows)
        assert.ok(!row.arguments_sealed.includes('Habitación de Ana'), row.arguments_sealed);
    });
  });
});
