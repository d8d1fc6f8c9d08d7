import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * The codes of a TV sign-in. The user code is what a person reads off the screen: 8 letters of a
 * 20-letter alphabet with no vowels (no words) and none easily confused, shown as `XXXX-XXXX`; a person
 * may type it in either case, with or without the dash or spaces. The device code is the TV's secret.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A fresh user code, `XXXX-XXXX`. */
export function newUserCode(): string {
  let letters = '';
  for (let index = 0; index < USER_CODE_LENGTH; index++) {
    letters += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  }
  return displayUserCode(letters);
}

/** The 8 letters of what a person typed, upper-cased, without dashes or spaces; undefined if not a code. */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== USER_CODE_LENGTH) return undefined;
  for (const letter of letters) if (!USER_CODE_ALPHABET.includes(letter)) return undefined;
  return letters;
}

export const displayUserCode = (letters: string) => `${letters.slice(0, 4)}-${letters.slice(4)}`;

/** The TV's secret: 32 random bytes, base64url. */
export const newDeviceCode = () => randomBytes(32).toString('base64url');

/** What the store keeps of a device code. */
export const deviceCodeHash = (code: string) => createHash('sha256').update(code).digest('hex');
