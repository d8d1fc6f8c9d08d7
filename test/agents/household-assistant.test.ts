import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Agent } from '../../src/agents/agent.ts';
import { createAssistantAgent } from '../../src/agents/assistant/assistant-agent.ts';
import {
  type HouseholdFamily,
  type LinkedHousehold,
  startHouseholdFamily,
} from './helpers/household-family.ts';

/**
 * The household in the rule-based assistant (issue 43 item 6), against the real client-api and
 * assistant-auth: who is watching at home, stop / pause / resume a device by its name, continue on another
 * device (handoff), in English and Spanish; every action only after a yes, its answer telling the result.
 */
describe('the rule-based assistant: the household, in English and Spanish', () => {
  let family: HouseholdFamily;
  let home: LinkedHousehold;
  let casa: LinkedHousehold;
  let agent: Agent;
  const buttons = (answer: { suggestedActions?: { actions: Array<{ title?: string }> } }) =>
    answer.suggestedActions?.actions.map((action) => action.title);

  before(async () => {
    family = await startHouseholdFamily();
    home = await family.household('HH-EN', [
      ['hh-living', 'Living room TV'],
      ['hh-kids', "Kids' tablet"],
      ['hh-bedroom', 'Bedroom TV'],
      ['hh-kitchen', 'Kitchen TV'],
    ]);
    casa = await family.household('HH-ES', [
      ['es-salon', 'Tele del salón'],
      ['es-ninos', 'Tablet de los niños'],
      ['es-dormitorio', 'Tele del dormitorio'],
    ]);
    agent = createAssistantAgent(
      { maxDevicesPerAccount: 6, deviceDeleteCooldownSeconds: 3600 },
      family.accounts,
    );
  });
  after(() => family.close());
  beforeEach(async () => {
    await family.releaseAll();
    await family.stopAll(home);
    await family.stopAll(casa);
  });

  describe('happy', () => {
    it('"what\'s playing at home?": each stream with its device, content and position, and the limit; no yes asked', async () => {
      const idle = await agent.invoke(home.turn("what's playing at home?"));
      assert.equal(
        idle.output,
        'Nothing is playing at home right now (your account allows 2 screens at once).',
      );
      await family.play(home, 'hh-living', 42, 720);
      await family.play(home, 'hh-kids', 7, 40);
      const watching = await agent.invoke(home.turn('What’s playing at home?'));
      assert.equal(
        watching.output,
        "2 of 2 screens in use: «Living room TV» (content 42, at 12 min) and «Kids' tablet» (content 7, at 40 s).",
      );
      assert.equal(watching.suggestedActions, undefined);
      await family.play(casa, 'es-salon', 9, 3900);
      const viendo = await agent.invoke(casa.turn('¿qué se está viendo en casa?'));
      assert.equal(
        viendo.output,
        '1 de 2 pantallas en uso: «Tele del salón» (contenido 9, va por 1 h 05 min).',
      );
    });

    it('"stop the kids\' tablet": asks, sends nothing before the yes, then the tablet is told to stop', async () => {
      const tablet = await family.hold(home, 'hh-kids');
      const conversation = randomUUID();
      const asked = await agent.invoke(home.turn("stop the kids' tablet", conversation));
      assert.equal(asked.output, "Do you want me to stop «Kids' tablet»?");
      assert.deepEqual(buttons(asked), ['Yes', 'No']);
      assert.equal(tablet.events.length, 0, 'nothing before the yes');
      const done = await agent.invoke(home.turn('yes', conversation));
      assert.equal(done.output, "Sent: «Kids' tablet» was told to stop.");
      assert.equal((await family.command(home, 'hh-kids', tablet)).type, 'stop');
    });

    it('"pausa la tele del salón" then "sí": paused; "reanuda…" then "déjalo": nothing is sent', async () => {
      const tele = await family.hold(casa, 'es-salon');
      const conversation = randomUUID();
      const asked = await agent.invoke(casa.turn('pausa la tele del salón', conversation));
      assert.equal(asked.output, '¿Quieres que vaya a pausar «Tele del salón»?');
      assert.deepEqual(buttons(asked), ['Sí', 'No']);
      const done = await agent.invoke(casa.turn('sí', conversation));
      assert.equal(done.output, 'Enviado: he pedido a «Tele del salón» que haga una pausa.');
      assert.equal((await family.command(casa, 'es-salon', tele)).type, 'pause');

      const again = randomUUID();
      const resume = await agent.invoke(casa.turn('reanuda la tele del salón', again));
      assert.equal(resume.output, '¿Quieres que vaya a reanudar «Tele del salón»?');
      assert.equal((await agent.invoke(casa.turn('déjalo', again))).output, 'De acuerdo, no hago nada.');
      assert.equal(
        (await agent.invoke(casa.turn('sí', again))).output.startsWith('No hay nada pendiente'),
        true,
      );
      assert.equal(tele.events.length, 1, 'only the pause reached the TV');
    });

    it('"continue on the bedroom TV": after the yes the living room stops and the bedroom plays from there', async () => {
      const living = await family.hold(home, 'hh-living');
      const bedroom = await family.hold(home, 'hh-bedroom');
      await family.play(home, 'hh-living', 42, 720);
      const conversation = randomUUID();
      const asked = await agent.invoke(home.turn('continue on the bedroom TV', conversation));
      assert.equal(
        asked.output,
        'Do you want me to move what «Living room TV» is playing to «Bedroom TV» («Living room TV» stops, «Bedroom TV» plays it from the same point)?',
      );
      assert.deepEqual(buttons(asked), ['Yes', 'No']);
      assert.equal(bedroom.events.length + living.events.length, 0, 'nothing before the yes');
      const done = await agent.invoke(home.turn('yes', conversation));
      assert.equal(
        done.output,
        'Sent: «Living room TV» was told to stop and «Bedroom TV» to play content 42 from 12 min.',
      );
      assert.equal((await family.command(home, 'hh-living', living)).type, 'stop');
      const play = await family.command(home, 'hh-bedroom', bedroom);
      assert.deepEqual([play.type, play.contentId, play.offset], ['play', 42, 720]);
    });

    it('several devices playing: asks which one moves; "… from the kids\' tablet" then names it', async () => {
      const bedroom = await family.hold(home, 'hh-bedroom');
      await family.play(home, 'hh-living', 42, 720);
      await family.play(home, 'hh-kids', 7, 40);
      const which = await agent.invoke(home.turn('continue on the bedroom TV'));
      assert.equal(
        which.output,
        'Several devices are playing: Living room TV or Kids\' tablet. Which one should continue on «Bedroom TV»? Say, for example: "continue on Bedroom TV from Living room TV".',
      );
      assert.equal(which.suggestedActions, undefined);
      const conversation = randomUUID();
      const asked = await agent.invoke(
        home.turn("continue on the bedroom TV from the kids' tablet", conversation),
      );
      assert.match(asked.output, /^Do you want me to move what «Kids' tablet» is playing to «Bedroom TV»/);
      const done = await agent.invoke(home.turn('yes', conversation));
      assert.equal(
        done.output,
        "Sent: «Kids' tablet» was told to stop and «Bedroom TV» to play content 7 from 40 s.",
      );
      const play = await family.command(home, 'hh-bedroom', bedroom);
      assert.deepEqual([play.type, play.contentId, play.offset], ['play', 7, 40]);
    });
  });

  describe('errors', () => {
    it('a device without its command stream: after the yes, it is not connected (both languages)', async () => {
      const conversation = randomUUID();
      await agent.invoke(home.turn('pause the living room TV', conversation));
      const refused = await agent.invoke(home.turn('yes', conversation));
      assert.equal(
        refused.output,
        "I could not pause «Living room TV»: it isn't connected right now (its Sintonia app must be open).",
      );
      const conversacion = randomUUID();
      await agent.invoke(casa.turn('para la tablet de los niños', conversacion));
      const rechazado = await agent.invoke(casa.turn('sí', conversacion));
      assert.equal(
        rechazado.output,
        'No he podido parar «Tablet de los niños»: ahora mismo no está conectado (tiene que tener abierta la app de Sintonia).',
      );
    });

    it('a name several devices fit is asked about; a name none fits is said so, with the devices', async () => {
      const ambiguous = await agent.invoke(home.turn('pause the TV'));
      assert.equal(
        ambiguous.output,
        'Which one do you mean: Living room TV, Bedroom TV or Kitchen TV? Tell me its full name.',
      );
      assert.equal(ambiguous.suggestedActions, undefined);
      const unknown = await agent.invoke(home.turn('resume the garage TV'));
      assert.equal(
        unknown.output,
        "I can't find a device called «the garage TV». Your devices are: Living room TV, Kids' tablet, Bedroom TV and Kitchen TV.",
      );
      const tele = await agent.invoke(casa.turn('pausa la tele'));
      assert.equal(
        tele.output,
        '¿Cuál de ellos: Tele del salón o Tele del dormitorio? Dímelo con su nombre completo.',
      );
    });

    it('"sigue en la tele del dormitorio": the target not connected changes nothing; nothing playing is said', async () => {
      await family.play(casa, 'es-salon', 9, 60);
      const conversation = randomUUID();
      const asked = await agent.invoke(casa.turn('sigue en la tele del dormitorio', conversation));
      assert.equal(
        asked.output,
        '¿Quieres que vaya a pasar lo que se ve en «Tele del salón» a «Tele del dormitorio» («Tele del salón» se detiene y «Tele del dormitorio» lo pone desde el mismo punto)?',
      );
      const refused = await agent.invoke(casa.turn('sí', conversation));
      assert.equal(
        refused.output,
        'No he podido pasar lo que se ve en «Tele del salón» a «Tele del dormitorio» («Tele del salón» se detiene y «Tele del dormitorio» lo pone desde el mismo punto): «Tele del dormitorio» no está conectado ahora mismo; no he cambiado nada.',
      );
      const still = await agent.invoke(casa.turn('¿qué se está viendo en casa?'));
      assert.equal(still.output, '1 de 2 pantallas en uso: «Tele del salón» (contenido 9, va por 1 min).');

      const there = await agent.invoke(casa.turn('sigue en la tele del salón'));
      assert.equal(there.output, 'Solo se está viendo algo en «Tele del salón»: no hay nada que pasarle.');

      await family.stopAll(casa);
      const nothing = await agent.invoke(casa.turn('sigue en la tele del dormitorio'));
      assert.equal(
        nothing.output,
        'Ahora no se está viendo nada en casa, así que no hay nada que pasar a «Tele del dormitorio».',
      );
      assert.equal(nothing.suggestedActions, undefined);
    });
  });
});
