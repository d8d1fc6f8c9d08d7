import type { TvSignInAction, TvSignInNotFound } from '../tools/tv-sign-in.ts';
import type { Language } from './language.ts';

/** The TV sign-in said in the person's language: what it would do, what it did, why not. */
const device = (action: TvSignInAction) => `«${action.deviceName}» (${action.deviceClass})`;

export function tvSignInActionWords(action: TvSignInAction, language: Language): string {
  if (language === 'es') {
    return action.approve
      ? `iniciar sesión en ${device(action)} con el código ${action.userCode} en tu cuenta`
      : `rechazar el inicio de sesión de ${device(action)} con el código ${action.userCode}`;
  }
  return action.approve
    ? `sign ${device(action)} in to your account with the code ${action.userCode}`
    : `refuse the sign-in of ${device(action)} with the code ${action.userCode}`;
}

export function tvSignInDoneWords(action: TvSignInAction, language: Language): string {
  if (language === 'es') {
    return action.approve
      ? `Hecho: ${device(action)} ha iniciado sesión en tu cuenta; empezará en unos segundos.`
      : `Hecho: he rechazado el inicio de sesión de ${device(action)}.`;
  }
  return action.approve
    ? `Done: ${device(action)} is signed in to your account; it starts within a few seconds.`
    : `Done: I refused the sign-in of ${device(action)}.`;
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
