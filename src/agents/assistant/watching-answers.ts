import type { AccountBookmark } from '../tools/account-client.ts';
import type { WatchingResult } from '../tools/watching-tools.ts';
import { andList, type Language } from './language.ts';

/** `1 h 05 min`, `12 min`, `40 s`: a position as a person reads it. */
export function position(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
  if (minutes > 0) return `${minutes} min`;
  return `${seconds} s`;
}

/** `today`, `yesterday` or the day (`25 Nov`), in the person's language. */
function when(at: string, language: Language, now = Date.now()): string {
  const day = (time: number) => new Date(time).toISOString().slice(0, 10);
  if (day(Date.parse(at)) === day(now)) return language === 'es' ? 'hoy' : 'today';
  if (day(Date.parse(at)) === day(now - 86_400_000)) return language === 'es' ? 'ayer' : 'yesterday';
  return new Date(at).toLocaleDateString(language === 'es' ? 'es-ES' : 'en-GB', {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}

const item = (bookmark: AccountBookmark, language: Language) =>
  language === 'es'
    ? `el contenido ${bookmark.contentId} en ${position(bookmark.offset)} (${when(bookmark.at, language)})`
    : `content ${bookmark.contentId} at ${position(bookmark.offset)} (${when(bookmark.at, language)})`;

/** A watching tool's result in words. */
export function sayWatching(result: WatchingResult, language: Language): string {
  const es = language === 'es';
  switch (result.status) {
    case 'continue_watching': {
      if (result.bookmarks.length === 0)
        return es
          ? 'Todavía no tienes nada a medias: no hay posiciones guardadas en tu cuenta.'
          : 'You have nothing part-watched yet: there are no saved positions on your account.';
      const items = andList(
        result.bookmarks.map((bookmark) => item(bookmark, language)),
        language,
      );
      return es
        ? `Lo último que estabas viendo: ${items}.`
        : `What you were watching, newest first: ${items}.`;
    }
    case 'position':
      if (!result.bookmark)
        return es
          ? `No tengo ninguna posición guardada del contenido ${result.contentId}.`
          : `I have no saved position for content ${result.contentId}.`;
      return es
        ? `Ibas por ${position(result.bookmark.offset)} en el contenido ${result.contentId} (${when(result.bookmark.at, language)}).`
        : `You stopped at ${position(result.bookmark.offset)} in content ${result.contentId} (${when(result.bookmark.at, language)}).`;
    case 'device_limit': {
      const { devices, enabled, limit, free } = result;
      if (es) {
        const more =
          free === 0 ? 'No caben más: desactiva uno para poder añadir otro.' : `Puedes añadir ${free} más.`;
        return `Tienes ${devices} ${devices === 1 ? 'dispositivo' : 'dispositivos'}, ${enabled} ${enabled === 1 ? 'activado' : 'activados'}; tu cuenta admite hasta ${limit} activados. ${more}`;
      }
      const more = free === 0 ? 'No more fit: disable one to add another.' : `You can add ${free} more.`;
      return `You have ${devices} ${devices === 1 ? 'device' : 'devices'}, ${enabled} enabled; your account can hold up to ${limit} enabled. ${more}`;
    }
  }
}

/** Words for the device states a person tells apart: enabled or disabled, signed in or out, playing. */
export function deviceStates(
  device: { enabled: boolean; playing: boolean; signedIn?: boolean },
  language: Language,
): string[] {
  const es = language === 'es';
  return [
    device.enabled ? (es ? 'activo' : 'enabled') : es ? 'desactivado' : 'disabled',
    ...(device.signedIn === undefined
      ? []
      : [device.signedIn ? (es ? 'sesión iniciada' : 'signed in') : es ? 'sesión cerrada' : 'signed out']),
    ...(device.playing ? [es ? 'reproduciendo ahora' : 'playing now'] : []),
  ];
}

/** What signing out everywhere does, as the confirmation asks it. */
export function everywhereWords(language: Language): string {
  return language === 'es'
    ? 'cerrar la sesión en todos los dispositivos de tu cuenta, también en este chat (tendrán que volver a iniciar sesión)'
    : 'sign out every device of your account, this chat included (each will have to sign in again)';
}

export function everywhereDone(language: Language): string {
  return language === 'es'
    ? 'Hecho: he cerrado la sesión en todos tus dispositivos. Para seguir gestionando tu cuenta aquí, vuelve a iniciar sesión.'
    : 'Done: every device of your account is signed out. To manage your account here again, sign in again.';
}
