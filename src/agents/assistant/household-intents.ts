import type { RequestPattern } from './account-request.ts';

/**
 * The household requests (issue 43), in Spanish or English: who is watching at home, stop / pause /
 * resume a device, continue on another device (handoff). Checked before the other account requests, so
 * "continue watching on the bedroom TV" is a handoff, not continue watching. "Stop recording …" / "para la
 * grabación …" names no device: it is left to the recordings answer.
 */

/** A device name as said: no quotes, no trailing punctuation. */
const clean = (text: string | undefined) =>
  (text ?? '')
    .trim()
    .replace(/[?.!]+$/, '')
    .replace(/^["'«“]|["'»”]$/g, '')
    .trim();

const COMMANDS: Record<string, 'stop' | 'pause' | 'resume'> = {
  stop: 'stop',
  pause: 'pause',
  resume: 'resume',
  unpause: 'resume',
  para: 'stop',
  detén: 'stop',
  deten: 'stop',
  quita: 'stop',
  pausa: 'pause',
  reanuda: 'resume',
  continúa: 'resume',
  continua: 'resume',
};

export const householdPatterns: RequestPattern[] = [
  {
    pattern:
      /\bwhat(?:'s|’s| is)\s+(?:being\s+)?(?:playing|on|watched)\s+(?:at\s+home|in\s+the\s+house)|\bwho(?:'s|’s| is)\s+watching\b|\bqu[eé]\s+se\s+(?:est[aá]\s+viendo|ve)\s+en\s+casa|\bqui[eé]n\s+est[aá]\s+viendo\b/i,
    request: () => ({ kind: 'tool', tool: 'whos_watching', args: {} }),
  },
  {
    pattern:
      /\b(?:continue|keep\s+(?:playing|watching)|move\s+(?:it|this|playback)|hand\s+(?:it\s+)?off|switch)\s+(?:it\s+|watching\s+|playing\s+)?(?:on|to)\s+(.+?)(?:\s+from\s+(.+))?$|\b(?:sigue|seguir|contin[uú]a|continuar|p[aá]salo|pasa(?:r)?lo|mu[eé]velo)\s+(?:viendo\s+)?(?:en|a)\s+(.+?)(?:\s+desde\s+(.+))?$/i,
    request: (match) => {
      const to = clean(match[1] ?? match[3]);
      const from = clean(match[2] ?? match[4]);
      return { kind: 'tool', tool: 'hand_off', args: from ? { to, from } : { to } };
    },
  },
  {
    pattern:
      /^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(stop|pause|resume|unpause)\s+(?!(?:the\s+|my\s+)?record)(?:playing\s+on\s+|playback\s+on\s+)?(.+)$|^\s*(?:por\s+favor,?\s+)?(para|det[eé]n|quita|pausa|reanuda|contin[uú]a)\s+((?:la|el|los|las|mi|mis)\s+(?!grabaci)\S.*)$/i,
    request: (match) => ({
      kind: 'tool',
      tool: 'control_device',
      args: {
        device: clean(match[2] ?? match[4]),
        command: COMMANDS[(match[1] ?? match[3] ?? '').toLowerCase()] ?? 'stop',
      },
    }),
  },
];
