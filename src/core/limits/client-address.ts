import { isIPv4, isIPv6 } from 'node:net';

/**
 * The party a per-address limit counts: an IPv4 address as it is, an IPv6 address by its /64 (one
 * subscriber line gets a whole /64, so counting addresses apart would let it take 2^64 turns). An
 * IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) counts as its IPv4 address; anything else as it is.
 */
export function clientAddressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight hextets of an IPv6 address, lower case without leading zeros (a zone id is dropped). */
function expandIPv6(address: string): string[] {
  const bare = address.split('%')[0] ?? address;
  const [head = '', tail] = bare.split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':'));
  // An embedded IPv4 tail (`::1.2.3.4`) is two hextets.
  const withV4 = (hextets: string[]) =>
    hextets.flatMap((hextet) => {
      if (!isIPv4(hextet)) return [hextet];
      const [a = 0, b = 0, c = 0, d = 0] = hextet.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const left = withV4(part(head));
  const right = tail === undefined ? [] : withV4(part(tail));
  const zeros = Array(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...(tail === undefined ? [] : zeros), ...right].map((hextet) =>
    Number.parseInt(hextet, 16).toString(16),
  );
}
