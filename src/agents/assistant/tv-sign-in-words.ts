import { readableTime } from '../../core/untrusted-text.ts';
import type { TvSignInAction, TvSignInNotFound } from '../tools/tv-sign-in.ts';
import type { Language } from './language.ts';

/**
 * The TV sign-in said in the person's language: what it would do, what it did, why not. The TV's name is
 * its own word, so it never stands inside a sentence of ours: only on a line of its own, labelled as such.
 */
const device = (action: TvSignInAction, language: Language) =>
  language === 'es' ? `el dispositivo ${action.deviceClass}` : `the ${action.deviceClass} device`;

export function tvSignInActionWords(action: TvSignInAction, language: Language): string {
  if (language === 'es') {
    return action.approve
      ? `iniciar sesión en ${device(action, language)} con el código ${action.userCode} en tu cuenta`
      : `rechazar el inicio de sesión del dispositivo ${action.deviceClass} con el código ${action.userCode}`;
  }
  return action.approve
    ? `sign ${device(action, language)} with the code ${action.userCode} in to your account`
    : `refuse the sign-in of ${device(action, language)} with the code ${action.userCode}`;
}

const WARNING: Record<Language, string> = {
  es: 'Aprueba solo un código que veas en una pantalla delante de ti. Nadie de Sintonia te pedirá nunca un código: si alguien te lo ha pedido, recházalo.',
  en: 'Approve only a code shown on a screen in front of you. Nobody from Sintonia will ever ask you for a code: if someone did, refuse it.',
};

/** The question before the yes: what would happen, then the TV's own name, when and whence it asked. */
export function tvSignInQuestion(action: TvSignInAction, language: Language): string {
  const es = language === 'es';
  const asked = action.requestedAt ? readableTime(Date.parse(action.requestedAt)) : undefined;
  const from = action.requestedFrom ?? (es ? 'desconocido' : 'unknown');
  const lines = [
    es
      ? `¿Quieres que vaya a ${tvSignInActionWords(action, language)}?`
      : `Do you want me to ${tvSignInActionWords(action, language)}?`,
    es
      ? `El nombre que se da a sí mismo (sin comprobar): «${action.deviceName}»`
      : `The name it gives itself (not checked): «${action.deviceName}»`,
    ...(asked === undefined
      ? []
      : [es ? `Lo pidió: ${asked}, desde ${from}.` : `Asked: ${asked}, from ${from}.`]),
    ...(action.approve ? [WARNING[language]] : []),
  ];
  return lines.join('\n');
}

export function tvSignInDoneWords(action: TvSignInAction, language: Language): string {
  const code = action.userCode;
  if (language === 'es') {
    return action.approve
      ? `Hecho: ${device(action, language)} con el código ${code} ha iniciado sesión en tu cuenta; empezará en unos segundos.`
      : `Hecho: he rechazado el inicio de sesión del dispositivo ${action.deviceClass} con el código ${code}.`;
  }
  return action.approve
    ? `Done: ${device(action, language)} with the code ${code} is signed in to your account; it starts within a few seconds.`
    : `Done: I refused the sign-in of ${device(action, language)} with the code ${code}.`;
}

export function tvSignInNotFoundWords(result: TvSignInNotFound, language: Language): string {
  if (result.refusal.type === 'USER_CODE_THROTTLED') {
    return language === 'es'
      ? 'Has probado demasiados códigos que no son; espera un rato antes de volver a intentarlo.'
      : 'Too many of those codes were wrong; wait a while before you try again.';
  }
  return language === 'es'
    ? `No hay ninguna tele esperando con el código ${result.code}. Comprueba el código en la pantalla (caduca a los 10 minutos).`
    : `No TV is waiting with the code ${result.code}. Check the code on the screen (it expires after 10 minutes).`;
}
