import type { RequestPattern } from './account-request.ts';

/** A code as a TV shows it: 8 letters of RFC 8628's alphabet (no vowels), with or without the dash. */
const CODE = '([bcdfghjklmnpqrstvwxz]{4}[\\s-]?[bcdfghjklmnpqrstvwxz]{4})';

/**
 * "my TV shows BDWP-HQPK", "sign in my TV with code BDWP-HQPK", "mi tele muestra BDWP-HQPK", "el código
 * de la tele es BDWP-HQPK": approve that sign-in; "refuse/deny … BDWP-HQPK", "rechaza … BDWP-HQPK": refuse it.
 */
export const tvSignInPatterns: RequestPattern[] = [
  {
    pattern: new RegExp(
      `\\b(?:refuse|deny|reject|rechaza(?:r)?|deniega|no\\s+aceptes)\\b.*?\\b${CODE}\\b`,
      'i',
    ),
    request: (match) => ({
      kind: 'tool',
      tool: 'approve_tv_sign_in',
      args: { code: (match[1] ?? '').toUpperCase(), approve: false },
    }),
  },
  {
    pattern: new RegExp(
      `\\b(?:shows?|says|displays|code|muestra|pone|dice|sale|c[oó]digo)\\b.*?\\b${CODE}\\b`,
      'i',
    ),
    request: (match) => ({
      kind: 'tool',
      tool: 'approve_tv_sign_in',
      args: { code: (match[1] ?? '').toUpperCase() },
    }),
  },
];
