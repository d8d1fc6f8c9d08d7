import type { AccountRequest, RequestPattern } from './account-request.ts';

/**
 * The account requests beyond single devices, in Spanish or English: checked before the device ones, so
 * "sign out everywhere" is not heard as signing out a device called "everywhere".
 */
const patterns: RequestPattern[] = [
  {
    pattern:
      /\b(?:sign|log)\s*(?:out|off)\s+(?:of\s+|from\s+)?(?:everywhere|everything|all(?:\s+(?:my|the))?\s+devices|every\s+device)\b|\bcierra(?:r)?\s+(?:la\s+)?sesi[oó]n\s+(?:en\s+)?(?:todas\s+partes|todos\s+(?:mis\s+|los\s+)?dispositivos)|\bdesconecta(?:r)?\s+todo/i,
    request: () => ({ kind: 'tool', tool: 'sign_out_everywhere', args: {} }),
  },
  {
    pattern:
      /\bhow\s+many\s+(?:more\s+)?devices\b|\bdevice\s+limit\b|\bmore\s+devices\s+(?:can|may|fit)\b|\bcu[aá]ntos\s+dispositivos\b|\bl[ií]mite\s+de\s+dispositivos\b/i,
    request: () => ({ kind: 'tool', tool: 'device_limit', args: {} }),
  },
  {
    pattern:
      /\b(?:where\s+(?:was\s+I|did\s+I\s+(?:stop|leave\s+off))|por\s+d[oó]nde\s+(?:iba|me\s+qued[eé])|d[oó]nde\s+lo\s+dej[eé])\b\D*(\d{1,18})/i,
    request: (match) => ({ kind: 'tool', tool: 'where_was_i', args: { contentId: Number(match[1]) } }),
  },
  {
    pattern:
      /\bwhat\s+was\s+I\s+watching\b|\bcontinue\s+watching\b|\bkeep\s+watching\b|\bwhere\s+(?:was\s+I|did\s+I\s+(?:stop|leave\s+off))\b|\bqu[eé]\s+estaba\s+viendo\b|\bseguir\s+viendo\b|\bpor\s+d[oó]nde\s+(?:iba|me\s+qued[eé])\b|\bd[oó]nde\s+lo\s+dej[eé]\b/i,
    request: () => ({ kind: 'tool', tool: 'continue_watching', args: {} }),
  },
];

/** The request among these, if the person made one. */
export function watchingRequestOf(input: string): AccountRequest | undefined {
  for (const { pattern, request } of patterns) {
    const match = pattern.exec(input);
    if (match) return request(match);
  }
  return undefined;
}
