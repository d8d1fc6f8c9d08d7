import { LRUCache } from 'lru-cache';
/** The four media types of the client API, in the server's order of preference. */
export const mediaTypes = [
  'application/json',
  'application/bson',
  'application/ubjson',
  'application/xml',
] as const;
export type MediaType = (typeof mediaTypes)[number];

interface Candidate {
  q: number;
  /** 3 exact type, 2 type/*, 1 *\/*: the most specific matching range decides the q of a type. */
  specificity: number;
  /** Position of the deciding range in the header: the client's own order breaks ties. */
  position: number;
}

function parseQ(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split('=', 2);
    if (name?.trim().toLowerCase() !== 'q') continue;
    const q = Number(value?.trim());
    return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0;
  }
  return 1;
}

function rangeSpecificity(range: string, type: MediaType): number {
  if (range === type) return 3;
  if (range === 'application/*') return 2;
  if (range === '*/*' || range === '*') return 1;
  return 0;
}

/**
 * The response type for an Accept header: highest q wins; among equals the client's first-listed range,
 * then the server's order (JSON first). Parameters other than q (charset…) are ignored: we always
 * answer UTF-8. Undefined means nothing acceptable (406).
 */
export function negotiate(accept: string | undefined): MediaType | undefined {
  if (accept === undefined || accept.trim() === '') return 'application/json';
  const cached = acceptCache.get(accept);
  if (cached !== undefined) return cached === 'none' ? undefined : cached;
  const chosen = computeNegotiation(accept);
  acceptCache.set(accept, chosen ?? 'none');
  return chosen;
}

/** Clients send a handful of distinct Accept headers; remembering them keeps negotiation off the hot path. */
const acceptCache = new LRUCache<string, MediaType | 'none'>({ max: 512 });

function computeNegotiation(accept: string): MediaType | undefined {
  const best = new Map<MediaType, Candidate>();
  accept.split(',').forEach((part, position) => {
    const [rawRange = '', ...params] = part.split(';');
    const range = rawRange.trim().toLowerCase();
    if (range === '') return;
    const q = parseQ(params);
    for (const type of mediaTypes) {
      const specificity = rangeSpecificity(range, type);
      if (specificity === 0) continue;
      const current = best.get(type);
      if (current === undefined || specificity > current.specificity)
        best.set(type, { q, specificity, position });
    }
  });
  let chosen: MediaType | undefined;
  let chosenCandidate: Candidate | undefined;
  for (const type of mediaTypes) {
    const candidate = best.get(type);
    if (candidate === undefined || candidate.q <= 0) continue;
    if (
      chosenCandidate === undefined ||
      candidate.q > chosenCandidate.q ||
      (candidate.q === chosenCandidate.q && candidate.position < chosenCandidate.position)
    ) {
      chosen = type;
      chosenCandidate = candidate;
    }
  }
  return chosen;
}

/** The bare media type of a Content-Type header, lower-cased, or '' when absent. */
export function requestMediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}
