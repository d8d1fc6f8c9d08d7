import type { AccountRequest, RequestPattern } from './account-request.ts';
import { householdPatterns } from './household-intents.ts';
import { tvSignInPatterns } from './tv-sign-in-intents.ts';
import { watchingRequestOf } from './watching-intents.ts';

/**
 * The account requests about single devices, and yes or no to a pending one. Device names are whatever
 * follows the verb; the tools match them loosely.
 */

/** A name the person said, without quotes, a trailing question mark or full stop. */
const clean = (text: string | undefined) =>
  (text ?? '')
    .trim()
    .replace(/[?.!]+$/, '')
    .replace(/^["'«“]|["'»”]$/g, '')
    .trim();

const patterns: RequestPattern[] = [
  {
    pattern: /^\s*(yes|yeah|yep|sure|confirm|ok(ay)?|s[ií]|vale|claro|confirmo|de acuerdo|adelante)[\s.!]*$/i,
    request: () => ({ kind: 'yes' }),
  },
  {
    pattern: /^\s*(no|nope|cancel|cancela(r)?|mejor no|d[eé]jalo)[\s.!]*$/i,
    request: () => ({ kind: 'no' }),
  },
  {
    pattern: /\b(?:rename|call)\s+(.+?)\s+(?:to|as)\s+(.+)$/i,
    request: (match) => ({
      kind: 'tool',
      tool: 'rename_device',
      args: { device: clean(match[1]), name: clean(match[2]) },
    }),
  },
  {
    pattern:
      /\b(?:cambia(?:r)?\s+(?:el\s+)?nombre\s+(?:de(?:l)?\s+)?|renombra(?:r)?\s+)(.+?)\s+(?:a|por|como)\s+(.+)$/i,
    request: (match) => ({
      kind: 'tool',
      tool: 'rename_device',
      args: { device: clean(match[1]), name: clean(match[2]) },
    }),
  },
  {
    pattern: /\b(?:sign|log)\s*(?:out|off)\s+(?:of\s+|from\s+)?(.+)$/i,
    request: (match) => ({ kind: 'tool', tool: 'sign_out_device', args: { device: clean(match[1]) } }),
  },
  {
    pattern: /\b(?:cierra(?:r)?\s+(?:la\s+)?sesi[oó]n\s+(?:de(?:l)?|en)\s+|desconecta(?:r)?\s+)(.+)$/i,
    request: (match) => ({ kind: 'tool', tool: 'sign_out_device', args: { device: clean(match[1]) } }),
  },
  {
    pattern: /\b(?:disable|block|turn\s+off)\s+(.+)$|\b(?:desactiva(?:r)?|bloquea(?:r)?)\s+(.+)$/i,
    request: (match) => ({
      kind: 'tool',
      tool: 'set_device_enabled',
      args: { device: clean(match[1] ?? match[2]), enabled: false },
    }),
  },
  {
    pattern: /\b(?:enable|unblock)\s+(.+)$|\b(?:activa(?:r)?|desbloquea(?:r)?)\s+(.+)$/i,
    request: (match) => ({
      kind: 'tool',
      tool: 'set_device_enabled',
      args: { device: clean(match[1] ?? match[2]), enabled: true },
    }),
  },
  {
    pattern:
      /\bwhat(?:'s| is)\s+(?:being\s+)?(?:playing|on\s+now|watched)|\bqu[eé]\s+(?:se\s+)?est[aá]n?\s+(?:viendo|reproduciendo|poniendo)|\bqu[eé]\s+se\s+(?:ve|est[aá]\s+viendo)/i,
    request: () => ({ kind: 'tool', tool: 'whats_playing', args: {} }),
  },
  {
    pattern:
      /\b(?:what|which)\s+devices\b|\b(?:list|show)\s+(?:me\s+)?(?:my\s+)?devices\b|\bmy\s+devices\b|\bqu[eé]\s+dispositivos\b|\bmis\s+dispositivos\b|\bdispositivos\s+tengo\b/i,
    request: () => ({ kind: 'tool', tool: 'list_devices', args: {} }),
  },
  ...tvSignInPatterns,
];

/** The account request in what the person said, if there is one. */
export function accountRequestOf(input: string): AccountRequest | undefined {
  for (const { pattern, request } of householdPatterns) {
    const match = pattern.exec(input);
    if (match) return request(match);
  }
  const watching = watchingRequestOf(input);
  if (watching) return watching;
  for (const { pattern, request } of patterns) {
    const match = pattern.exec(input);
    if (match) return request(match);
  }
  return undefined;
}
