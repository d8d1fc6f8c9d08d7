import { isIPv4, isIPv6 } from 'node:net';

/**
 * What a TV says of itself is the TV's word, not ours: anyone who can reach the OAuth endpoint chooses it.
 * These shape it so that, shown to the person who approves, it cannot pass for the question around it.
 */

/** A TV's name is shown at most this long: room for "Living room TV", not for a sentence. */
export const UNTRUSTED_NAME_MAX_LENGTH = 32;

// Control, format (bidi overrides, zero-width) and separator characters, and every quoting or bracketing
// mark a name could use to close the question's own quotes and open a new sentence.
const STRIPPED = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Pi}\p{Pf}"'`«»‹›„‚“”‘’<>()[\]{}\\]/gu;

/** The TV's name as shown: stripped of control and quoting characters, spaces collapsed, length-capped. */
export function untrustedName(raw: string | null | undefined): string {
  const text = (raw ?? '').normalize('NFKC').replace(STRIPPED, ' ').replace(/\s+/g, ' ').trim();
  // Cut by code points, so a capped name never ends in half a surrogate pair.
  return Array.from(text).slice(0, UNTRUSTED_NAME_MAX_LENGTH).join('').trim();
}

/**
 * Where a request came from, coarsely: the IPv4 /24 or the IPv6 /48 of the address, enough for a person
 * to tell "my home" from "far away" without the service showing anyone a full address.
 */
export function coarseAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const v4 = mapped ?? address;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (!isIPv6(address)) return 'unknown';
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 3)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/48`;
}

/** A time as a person reads it on the page and in the assistant: `2026-11-28 01:20 UTC`. */
export const readableTime = (epochMs: number) =>
  `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
