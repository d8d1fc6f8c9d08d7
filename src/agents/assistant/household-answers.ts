import type { HouseholdAction, HouseholdResult } from '../tools/household-tools.ts';
import { andList, type Language, orList } from './language.ts';
import { position } from './watching-answers.ts';

/** The household tools' results and actions in words (issue 43): who is watching, commands, handoff. */

const VERBS = {
  stop: { en: 'stop', es: 'parar', told: { en: 'to stop', es: 'que pare' } },
  pause: { en: 'pause', es: 'pausar', told: { en: 'to pause', es: 'que haga una pausa' } },
  resume: { en: 'resume', es: 'reanudar', told: { en: 'to resume', es: 'que siga' } },
} as const;

const screens = (count: number, language: Language) =>
  language === 'es' ? (count === 1 ? 'pantalla' : 'pantallas') : count === 1 ? 'screen' : 'screens';

/** What the person is asked to confirm: "stop «Kids' tablet»", "move what «A» is playing to «B» (…)". */
export function householdActionWords(action: HouseholdAction, language: Language): string {
  const es = language === 'es';
  if (action.tool === 'control_device') {
    return `${VERBS[action.command][language]} «${action.deviceName}»`;
  }
  const [from, to] = [`«${action.from.deviceName}»`, `«${action.to.deviceName}»`];
  return es
    ? `pasar lo que se ve en ${from} a ${to} (${from} se detiene y ${to} lo pone desde el mismo punto)`
    : `move what ${from} is playing to ${to} (${from} stops, ${to} plays it from the same point)`;
}

/** After the yes, once client-api took it: the command or the handoff was sent. */
export function householdDoneWords(action: HouseholdAction, language: Language): string {
  const es = language === 'es';
  if (action.tool === 'control_device') {
    const told = VERBS[action.command].told[language];
    return es
      ? `Enviado: he pedido a «${action.deviceName}» ${told}.`
      : `Sent: «${action.deviceName}» was told ${told}.`;
  }
  const what =
    action.contentId === undefined
      ? ''
      : es
        ? ` el contenido ${action.contentId} desde ${position(action.offset ?? 0)}`
        : ` content ${action.contentId} from ${position(action.offset ?? 0)}`;
  return es
    ? `Enviado: he pedido a «${action.from.deviceName}» que pare y a «${action.to.deviceName}» que ponga${what || ' lo mismo'}.`
    : `Sent: «${action.from.deviceName}» was told to stop and «${action.to.deviceName}» to play${what || ' the same'}.`;
}

/** Why client-api refused a household action, in words naming the device concerned; undefined if unknown. */
export function householdRefusal(
  action: HouseholdAction,
  type: string,
  language: Language,
): string | undefined {
  const es = language === 'es';
  const target = `«${action.tool === 'control_device' ? action.deviceName : action.to.deviceName}»`;
  switch (type) {
    case 'DEVICE_NOT_CONNECTED':
      if (action.tool === 'hand_off') {
        return es
          ? `${target} no está conectado ahora mismo; no he cambiado nada`
          : `${target} isn't connected right now; nothing changed`;
      }
      return es
        ? 'ahora mismo no está conectado (tiene que tener abierta la app de Sintonia)'
        : "it isn't connected right now (its Sintonia app must be open)";
    case 'COMMANDS_LIMITED':
    case 'COMMANDS_PENDING_LIMITED':
      return es
        ? 'se han enviado demasiadas órdenes hace poco; prueba dentro de un minuto'
        : 'too many commands were sent just now; try again in a minute';
    case 'STREAM_LIMIT_REACHED':
      return es
        ? 'tu cuenta ya usa todas las pantallas que puede a la vez; para otro dispositivo primero'
        : 'your account already uses all the screens it may at once; stop another device first';
    case 'NOTHING_PLAYING':
      return action.tool === 'hand_off'
        ? es
          ? `«${action.from.deviceName}» ya no está reproduciendo nada`
          : `«${action.from.deviceName}» is not playing anything any more`
        : undefined;
    case 'HANDOFF_SAME_DEVICE':
      return es ? 'es el mismo dispositivo' : 'that is the same device';
    default:
      return undefined;
  }
}

/** Who is watching, nothing to hand off, or which device to hand off from. */
export function sayHousehold(result: HouseholdResult, language: Language): string {
  const es = language === 'es';
  switch (result.status) {
    case 'watching': {
      const { limit, streams } = result;
      if (streams.length === 0) {
        return es
          ? `Ahora no se está viendo nada en casa (tu cuenta permite ${limit} ${screens(limit, language)} a la vez).`
          : `Nothing is playing at home right now (your account allows ${limit} ${screens(limit, language)} at once).`;
      }
      const items = streams.map((stream) =>
        es
          ? `«${stream.name}» (contenido ${stream.contentId}, va por ${position(stream.offset)})`
          : `«${stream.name}» (content ${stream.contentId}, at ${position(stream.offset)})`,
      );
      return es
        ? `${streams.length} de ${limit} ${screens(limit, language)} en uso: ${andList(items, language)}.`
        : `${streams.length} of ${limit} ${screens(limit, language)} in use: ${andList(items, language)}.`;
    }
    case 'nothing_playing':
      if (result.playingThere) {
        return es
          ? `Solo se está viendo algo en «${result.to}»: no hay nada que pasarle.`
          : `Only «${result.to}» is playing something: there is nothing to move to it.`;
      }
      return es
        ? `Ahora no se está viendo nada en casa, así que no hay nada que pasar a «${result.to}».`
        : `Nothing is playing at home right now, so there is nothing to move to «${result.to}».`;
    case 'source_ambiguous': {
      const [first] = result.candidates;
      return es
        ? `Se está viendo en varios dispositivos: ${orList(result.candidates, language)}. ¿Cuál sigo en «${result.to}»? Dime, por ejemplo: «sigue en ${result.to} desde ${first}».`
        : `Several devices are playing: ${orList(result.candidates, language)}. Which one should continue on «${result.to}»? Say, for example: "continue on ${result.to} from ${first}".`;
    }
  }
}
