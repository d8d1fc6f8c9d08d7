import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { say } from '../../../src/agents/assistant/account-answers.ts';
import { accountRequestOf } from '../../../src/agents/assistant/account-intents.ts';
import { languageOf } from '../../../src/agents/assistant/language.ts';

describe('account requests in Spanish and English', () => {
  const cases: Array<[string, ReturnType<typeof accountRequestOf>]> = [
    ['What devices do I have?', { kind: 'tool', tool: 'list_devices', args: {} }],
    ['¿Qué dispositivos tengo?', { kind: 'tool', tool: 'list_devices', args: {} }],
    ['show me my devices', { kind: 'tool', tool: 'list_devices', args: {} }],
    ["what's playing?", { kind: 'tool', tool: 'whats_playing', args: {} }],
    ['¿Qué se está viendo en casa?', { kind: 'tool', tool: 'whos_watching', args: {} }],
    ["what's playing at home?", { kind: 'tool', tool: 'whos_watching', args: {} }],
    ['who is watching?', { kind: 'tool', tool: 'whos_watching', args: {} }],
    [
      "stop the kids' tablet",
      { kind: 'tool', tool: 'control_device', args: { device: "the kids' tablet", command: 'stop' } },
    ],
    [
      'para la tablet de los niños',
      { kind: 'tool', tool: 'control_device', args: { device: 'la tablet de los niños', command: 'stop' } },
    ],
    [
      'pausa la tele del salón',
      { kind: 'tool', tool: 'control_device', args: { device: 'la tele del salón', command: 'pause' } },
    ],
    [
      'resume the living room TV',
      { kind: 'tool', tool: 'control_device', args: { device: 'the living room TV', command: 'resume' } },
    ],
    ['continue on the bedroom TV', { kind: 'tool', tool: 'hand_off', args: { to: 'the bedroom TV' } }],
    [
      'sigue en la tele del dormitorio desde la tele del salón',
      {
        kind: 'tool',
        tool: 'hand_off',
        args: { to: 'la tele del dormitorio', from: 'la tele del salón' },
      },
    ],
    ['para grabar una serie, ¿qué hago?', undefined],
    ['stop recording the match', undefined],
    ['please stop the recording of the news', undefined],
    ['para la grabación del partido', undefined],
    [
      'sign out the bedroom TV',
      { kind: 'tool', tool: 'sign_out_device', args: { device: 'the bedroom TV' } },
    ],
    [
      'Please log out of "Kids tablet".',
      { kind: 'tool', tool: 'sign_out_device', args: { device: 'Kids tablet' } },
    ],
    [
      'cierra la sesión de la tele del salón',
      { kind: 'tool', tool: 'sign_out_device', args: { device: 'la tele del salón' } },
    ],
    [
      'rename bedroom tv to Guest room',
      { kind: 'tool', tool: 'rename_device', args: { device: 'bedroom tv', name: 'Guest room' } },
    ],
    [
      'cambia el nombre del salón a Cocina',
      { kind: 'tool', tool: 'rename_device', args: { device: 'salón', name: 'Cocina' } },
    ],
    [
      'disable the kids tablet',
      { kind: 'tool', tool: 'set_device_enabled', args: { device: 'the kids tablet', enabled: false } },
    ],
    [
      'desactiva la tablet',
      { kind: 'tool', tool: 'set_device_enabled', args: { device: 'la tablet', enabled: false } },
    ],
    [
      'activa la tablet',
      { kind: 'tool', tool: 'set_device_enabled', args: { device: 'la tablet', enabled: true } },
    ],
    ['Yes', { kind: 'yes' }],
    ['sí', { kind: 'yes' }],
    ['No', { kind: 'no' }],
    ['cancela', { kind: 'no' }],
    ['How do I record a series?', undefined],
    ['¿Cuántos dispositivos puedo tener?', { kind: 'tool', tool: 'device_limit', args: {} }],
    ['how many more devices can I add?', { kind: 'tool', tool: 'device_limit', args: {} }],
    ['sign out everywhere', { kind: 'tool', tool: 'sign_out_everywhere', args: {} }],
    ['cierra la sesión en todos mis dispositivos', { kind: 'tool', tool: 'sign_out_everywhere', args: {} }],
    ['what was I watching?', { kind: 'tool', tool: 'continue_watching', args: {} }],
    ['¿Por dónde iba?', { kind: 'tool', tool: 'continue_watching', args: {} }],
    ['where was I in 1234?', { kind: 'tool', tool: 'where_was_i', args: { contentId: 1234 } }],
    ['¿por dónde iba en el 77?', { kind: 'tool', tool: 'where_was_i', args: { contentId: 77 } }],
    ['yes, and what is on TV tonight?', undefined],
  ];
  for (const [input, expected] of cases) {
    it(`"${input}"`, () => assert.deepEqual(accountRequestOf(input), expected));
  }
});

describe('tool results in the person’s language', () => {
  const action = { tool: 'sign_out_device', mediaPlayerId: 'mp-1', deviceName: 'Bedroom TV' } as const;
  it('asks for confirmation with yes / no buttons in that language', () => {
    const en = say(
      { status: 'confirmation_required', action, confirmation: { id: 'c', expiresAt: '' } },
      'en',
    );
    assert.match(en.output, /^Do you want me to sign «Bedroom TV» out/);
    assert.deepEqual(
      en.suggestedActions?.actions.map((item) => item.value),
      ['Yes', 'No'],
    );
    const es = say(
      { status: 'confirmation_required', action, confirmation: { id: 'c', expiresAt: '' } },
      'es',
    );
    assert.match(es.output, /^¿Quieres que vaya a cerrar la sesión de «Bedroom TV»/);
    assert.deepEqual(
      es.suggestedActions?.actions.map((item) => item.value),
      ['Sí', 'No'],
    );
  });
  it('lists devices with their state, and names the candidates of an ambiguous name', () => {
    const devices = [
      { mediaPlayerId: 'a', name: 'Salón', deviceClass: 'stb', enabled: true, playing: true },
      { mediaPlayerId: 'b', name: 'Tablet', deviceClass: 'tablet', enabled: false, playing: false },
    ];
    assert.equal(
      say({ status: 'devices', devices }, 'es').output,
      'Tienes 2 dispositivos: Salón (activo, reproduciendo ahora) y Tablet (desactivado).',
    );
    assert.equal(
      say({ status: 'device_ambiguous', device: 'tv', candidates: ['Bedroom TV', 'Living room TV'] }, 'en')
        .output,
      'Which one do you mean: Bedroom TV or Living room TV? Tell me its full name.',
    );
  });
  it('tells the language from the words, else from the locale', () => {
    assert.equal(languageOf('¿qué dispositivos tengo?'), 'es');
    assert.equal(languageOf('what devices do I have?', 'es-ES'), 'en');
    assert.equal(languageOf('', 'es-ES'), 'es');
  });
});
