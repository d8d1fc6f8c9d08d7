import type { SuggestedActions } from '../schemas.ts';
import type { ConfirmableAction, ToolResult } from '../tools/account-tools.ts';
import {
  householdActionWords,
  householdDoneWords,
  householdRefusal,
  sayHousehold,
} from './household-answers.ts';
import { andList, type Language, orList } from './language.ts';
import {
  tvSignInActionWords,
  tvSignInDoneWords,
  tvSignInNotFoundWords,
  tvSignInQuestion,
} from './tv-sign-in-words.ts';
import { deviceStates, everywhereDone, everywhereWords, sayWatching } from './watching-answers.ts';

/** An account answer in the person's language (Spanish or English), with its buttons, if any. */
export interface SaidAnswer {
  output: string;
  suggestedActions?: SuggestedActions;
}

function actionWords(action: ConfirmableAction, language: Language): string {
  if (action.tool === 'sign_out_everywhere') return everywhereWords(language);
  if (action.tool === 'control_device' || action.tool === 'hand_off')
    return householdActionWords(action, language);
  const device = `«${action.deviceName}»`;
  switch (action.tool) {
    case 'rename_device':
      return language === 'es'
        ? `cambiar el nombre de ${device} a «${action.name}»`
        : `rename ${device} to «${action.name}»`;
    case 'set_device_enabled':
      return language === 'es'
        ? `${action.enabled ? 'activar' : 'desactivar'} ${device}`
        : `${action.enabled ? 'enable' : 'disable'} ${device}`;
    case 'sign_out_device':
      return language === 'es'
        ? `cerrar la sesión de ${device} (tendrá que volver a iniciar sesión)`
        : `sign ${device} out (it will have to sign in again)`;
    case 'approve_tv_sign_in':
      return tvSignInActionWords(action, language);
  }
}

function doneWords(action: ConfirmableAction, language: Language): string {
  if (action.tool === 'sign_out_everywhere') return everywhereDone(language);
  if (action.tool === 'control_device' || action.tool === 'hand_off')
    return householdDoneWords(action, language);
  const device = `«${action.deviceName}»`;
  switch (action.tool) {
    case 'rename_device':
      return language === 'es'
        ? `Hecho: ${device} ahora se llama «${action.name}».`
        : `Done: ${device} is now called «${action.name}».`;
    case 'set_device_enabled':
      return language === 'es'
        ? `Hecho: ${device} está ${action.enabled ? 'activado' : 'desactivado'}.`
        : `Done: ${device} is ${action.enabled ? 'enabled' : 'disabled'}.`;
    case 'sign_out_device':
      return language === 'es'
        ? `Hecho: he cerrado la sesión de ${device}.`
        : `Done: ${device} is signed out.`;
    case 'approve_tv_sign_in':
      return tvSignInDoneWords(action, language);
  }
}

const refusals: Record<string, Record<Language, string>> = {
  DEVICE_LIMIT_REACHED: {
    es: 'tu cuenta ya tiene el máximo de dispositivos activos; desactiva otro primero',
    en: 'your account already has the most enabled devices it may hold; disable another one first',
  },
  DEVICE_NOT_FOUND: {
    es: 'ese dispositivo ya no está en tu cuenta',
    en: 'that device is no longer on your account',
  },
  USER_CODE_INVALID: {
    es: 'ese código ya se usó o ha caducado',
    en: 'that code was used already or has expired',
  },
  USER_CODE_THROTTLED: {
    es: 'has probado demasiados códigos que no son; espera un rato',
    en: 'too many of those codes were wrong; wait a while',
  },
  SIGN_IN_REFUSALS_LIMITED: {
    es: 'tu cuenta ha rechazado demasiados inicios de sesión hace poco; el código caducará solo',
    en: 'your account refused too many sign-ins lately; the code will expire on its own',
  },
  DEVICE_DISABLED: {
    es: 'ese dispositivo está desactivado en tu cuenta; actívalo primero',
    en: 'that device is disabled on your account; enable it first',
  },
};

/** Yes and no, as buttons in the person's language; their values are what a person would type. */
function yesNo(language: Language): SuggestedActions {
  const [yes, no] = language === 'es' ? ['Sí', 'No'] : ['Yes', 'No'];
  return {
    actions: [
      { type: 'imBack', title: yes, value: yes },
      { type: 'imBack', title: no, value: no },
    ],
  };
}

/** A tool's result in words (and, for a confirmation, the yes / no buttons). */
export function say(result: ToolResult, language: Language): SaidAnswer {
  const es = language === 'es';
  switch (result.status) {
    case 'devices': {
      if (result.devices.length === 0)
        return { output: es ? 'No tienes dispositivos registrados.' : 'You have no registered devices.' };
      const described = result.devices.map(
        (device) => `${device.name} (${deviceStates(device, language).join(', ')})`,
      );
      const count = result.devices.length;
      return {
        output: es
          ? `Tienes ${count} ${count === 1 ? 'dispositivo' : 'dispositivos'}: ${andList(described, language)}.`
          : `You have ${count} ${count === 1 ? 'device' : 'devices'}: ${andList(described, language)}.`,
      };
    }
    case 'playing': {
      if (result.devices.length === 0)
        return {
          output: es
            ? 'Ahora mismo no se está reproduciendo nada en tus dispositivos.'
            : 'Nothing is playing on your devices right now.',
        };
      const names = andList(
        result.devices.map((device) => device.name),
        language,
      );
      return { output: es ? `Ahora se está reproduciendo en: ${names}.` : `Playing now on: ${names}.` };
    }
    case 'confirmation_required':
      if (result.action.tool === 'approve_tv_sign_in') {
        return { output: tvSignInQuestion(result.action, language), suggestedActions: yesNo(language) };
      }
      return {
        output: es
          ? `¿Quieres que vaya a ${actionWords(result.action, language)}?`
          : `Do you want me to ${actionWords(result.action, language)}?`,
        suggestedActions: yesNo(language),
      };
    case 'done':
      return { output: doneWords(result.action, language) };
    case 'refused': {
      const { action, refusal } = result;
      const household =
        action.tool === 'control_device' || action.tool === 'hand_off'
          ? householdRefusal(action, refusal.type, language)
          : undefined;
      const why = household ?? refusals[refusal.type]?.[language];
      return {
        output: es
          ? `No he podido ${actionWords(result.action, language)}${why ? `: ${why}` : ''}.`
          : `I could not ${actionWords(result.action, language)}${why ? `: ${why}` : ''}.`,
      };
    }
    case 'device_not_found':
      return {
        output: es
          ? `No encuentro ningún dispositivo llamado «${result.device}». Tus dispositivos son: ${andList(result.devices, language)}.`
          : `I can't find a device called «${result.device}». Your devices are: ${andList(result.devices, language)}.`,
      };
    case 'device_ambiguous':
      return {
        output: es
          ? `¿Cuál de ellos: ${orList(result.candidates, language)}? Dímelo con su nombre completo.`
          : `Which one do you mean: ${orList(result.candidates, language)}? Tell me its full name.`,
      };
    case 'nothing_to_confirm':
      return {
        output: es
          ? 'No hay nada pendiente de confirmar (las confirmaciones caducan a los 2 minutos). Pídemelo de nuevo.'
          : 'There is nothing waiting for your confirmation (confirmations expire after 2 minutes). Ask me again.',
      };
    case 'continue_watching':
    case 'position':
    case 'device_limit':
      return { output: sayWatching(result, language) };
    case 'watching':
    case 'nothing_playing':
    case 'source_ambiguous':
      return { output: sayHousehold(result, language) };
    case 'tv_sign_in_not_found':
      return { output: tvSignInNotFoundWords(result, language) };
    case 'invalid_arguments':
    case 'unknown_tool':
      return {
        output: es
          ? 'No he entendido qué quieres hacer con tu cuenta.'
          : "I didn't understand what to do with your account.",
      };
  }
}

/** What an unlinked or anonymous person is told instead of any account data. */
export function linkFirst(language: Language): SaidAnswer {
  return {
    output:
      language === 'es'
        ? 'Para consultar o cambiar tu cuenta (tus dispositivos, lo que estabas viendo) necesito que vincules tu cuenta de Sintonia: inicia sesión con tu cuenta en el canal donde hablas conmigo y vuelve a preguntarme.'
        : 'To look at or change your account (your devices, what you were watching) I need your Sintonia account linked: sign in with your Sintonia account in the channel where you talk to me, then ask me again.',
  };
}

/** What "no" answers. */
export function cancelled(language: Language, anything: boolean): SaidAnswer {
  if (!anything) return { output: language === 'es' ? 'De acuerdo.' : 'All right.' };
  return { output: language === 'es' ? 'De acuerdo, no hago nada.' : "All right, I won't do it." };
}
