/** Which pages may open a conversation's WebSocket stream, by the `Origin` of the upgrade. */
export interface StreamOrigins {
  allows(origin: string | undefined): boolean;
}

/** The origin of an `http(s):` address, normalised as browsers send it; undefined for anything else. */
function originOf(address: string): string | undefined {
  try {
    const url = new URL(address);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * DIRECTLINE_ALLOWED_ORIGINS (comma-separated, or `*`) and always the service's own origin, where the
 * chat page runs; `address` is read per call, as it is known only once the service listens. No Origin
 * passes: browsers always send one, so only other clients (DirectLineJS under Node) come without.
 */
export function createStreamOrigins(allowed: string, address: () => string): StreamOrigins {
  const anyOrigin = allowed.trim() === '*';
  const listed = new Set(
    allowed
      .split(',')
      .map((entry) => originOf(entry.trim()))
      .filter((origin) => origin !== undefined),
  );
  return {
    allows(origin) {
      if (origin === undefined || anyOrigin) return true;
      const given = originOf(origin);
      return given !== undefined && (listed.has(given) || given === originOf(address()));
    },
  };
}
