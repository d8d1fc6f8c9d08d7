/** The languages the rule-based assistant answers in. */
export type Language = 'es' | 'en';

const SPANISH =
  /[¿¡ñáéíóú]|\b(hola|buenas|qu[eé]|como|c[oó]mo|puedo|quiero|mis?|grabar|ayuda|gracias|dispositivos?|tele|programaci[oó]n|echan|adi[oó]s|s[ií]|vale|cierra|sesi[oó]n|cambia|nombre|desactiva|activa|tengo|est[aá]n?|pausa|reanuda|sigue|casa)\b/i;

/** Spanish when the words look Spanish; else the locale's language when it is Spanish; else English. */
export function languageOf(words: string, locale?: string): Language {
  if (SPANISH.test(words)) return 'es';
  if (words.trim().length === 0 && locale?.toLowerCase().startsWith('es')) return 'es';
  return 'en';
}

/** `a, b or c` (`a, b o c`): one of the names. */
export function orList(names: string[], language: Language): string {
  return joined(names, language === 'es' ? 'o' : 'or');
}

/** `a, b and c` (`a, b y c`): all of the names. */
export function andList(names: string[], language: Language): string {
  return joined(names, language === 'es' ? 'y' : 'and');
}

function joined(names: string[], last: string): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)}`;
}
