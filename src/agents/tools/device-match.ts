import type { AccountDevice } from './account-client.ts';

/** Lower case, no accents, no punctuation, single spaces: how device names are compared. */
export function normalizeName(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Words that name no device: articles and possessives. */
const STOP_WORDS = new Set(['the', 'my', 'el', 'la', 'los', 'las', 'mi', 'mis', 'del', 'de', 'en']);
/** Words that fit many devices: used only when nothing more specific was said. */
const GENERIC_WORDS = new Set(['tv', 'tele', 'television', 'device', 'dispositivo', 'box', 'deco']);
const wordsOf = (text: string) =>
  normalizeName(text)
    .split(' ')
    .filter((word) => word && !STOP_WORDS.has(word));

export type DeviceMatch =
  | { kind: 'one'; device: AccountDevice }
  | { kind: 'none' }
  | { kind: 'many'; candidates: AccountDevice[] };

/**
 * The device a person means: its exact id, else the one whose name equals what they said, else the ones
 * whose name contains all their words (or whose words all appear in what they said).
 */
export function matchDevice(devices: AccountDevice[], said: string): DeviceMatch {
  const byId = devices.find((device) => device.mediaPlayerId === said);
  if (byId) return { kind: 'one', device: byId };
  const wanted = normalizeName(said);
  const exact = devices.filter((device) => normalizeName(device.name) === wanted);
  if (exact.length === 1 && exact[0]) return { kind: 'one', device: exact[0] };
  const allWords = wordsOf(said);
  const specific = allWords.filter((word) => !GENERIC_WORDS.has(word));
  // Only generic words ("the TV"): every device whose name holds them all is a candidate.
  const saidWords = specific.length > 0 ? specific : allWords;
  if (saidWords.length === 0) return { kind: 'none' };
  const loose = devices.filter((device) => {
    const nameWords = wordsOf(device.name);
    if (nameWords.length === 0) return false;
    return (
      saidWords.every((word) => nameWords.some((name) => name.startsWith(word))) ||
      nameWords.every((name) => saidWords.includes(name))
    );
  });
  if (loose.length === 1 && loose[0]) return { kind: 'one', device: loose[0] };
  return loose.length === 0 ? { kind: 'none' } : { kind: 'many', candidates: loose };
}
