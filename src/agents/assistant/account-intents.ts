import type { SuggestedActions } from '../schemas.ts';
import type { ConfirmableAction, ToolResult } from '../tools/account-tools.ts';
import type { Language } from './language.ts';

/**
 * What a person asks about their own account, in Spanish or English, as a call of the account tools;
 * and the tools' results said back in the person's language. Device names are whatever follows the
 * verb; the tools match them loosely.
 */
export type AccountRequest =
  | { kind: 'tool'; tool: string; args: Record<string, unknown> }
  | { kind: 'yes' }
  | { kind: 'no' };

/** A name the person said, without quotes, a trailing question mark or full stop. */
const clean = (text: string | undefined) =>
  (text ?? '')
    .trim()
    .replace(/[?.!]+$/, '')
    .replace(/^["'«“]|["'»”]$/g, '')
    .trim();

const patterns: Array<{ pattern: RegExp; request(match: RegExpExecArray): AccountRequest }> = [
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
];

/** The account request in what the person said, if there is one. */
export function accountRequestOf(input: string): AccountRequest | undefined {
  for (const { pattern, request } of patterns) {
    const match = pattern.exec(input);
    if (match) return request(match);
  }
  return undefined;
}

export interface SaidAnswer {
  output: string;
  suggestedActions?: SuggestedActions;
}

const list = (names: string[], language: Language) => {
  if (names.length <= 1) return names.join('');
  const last = names.at(-1);
  return `${names.slice(0, -1).join(', ')} ${language === 'es' ? 'o' : 'or'} ${last}`;
};
const listAll = (names: string[], language: Language) =>
  names.length <= 1
    ? names.join('')
    : `${names.slice(0, -1).join(', ')} ${language === 'es' ? 'y' : 'and'} ${names.at(-1)}`;

function actionWords(action: ConfirmableAction, language: Language): string {
  const device = `«${action.deviceName}»`;
  switch (action.tool) {
    case 'rename_device':
      return language === 'es'
        ? `cambiar el nombre de ${device} a «${action.name}»`
        : `rename ${device} to «${action.name}»`;
    case 'set_device_enabled':
      return language === 'es'
        ? `${action.enabled ? 'activar' : 'desactivar'} ${device}`
        : `${action.enabled ? 'enable' : 'disable'} ${device}`;
    case 'sign_out_device':
      return language === 'es'
        ? `cerrar la sesión de ${device} (tendrá que volver a iniciar sesión)`
        : `sign ${device} out (it will have to sign in again)`;
  }
}

function doneWords(action: ConfirmableAction, language: Language): string {
  const device = `«${action.deviceName}»`;
  switch (action.tool) {
    case 'rename_device':
      return language === 'es'
        ? `Hecho: ${device} ahora se llama «${action.name}».`
        : `Done: ${device} is now called «${action.name}».`;
    case 'set_device_enabled':
      return language === 'es'
        ? `Hecho: ${device} está ${action.enabled ? 'activado' : 'desactivado'}.`
        : `Done: ${device} is ${action.enabled ? 'enabled' : 'disabled'}.`;
    case 'sign_out_device':
      return language === 'es'
        ? `Hecho: he cerrado la sesión de ${device}.`
        : `Done: ${device} is signed out.`;
  }
}

const refusals: Record<string, Record<Language, string>> = {
  DEVICE_LIMIT_REACHED: {
    es: 'tu cuenta ya tiene el máximo de dispositivos activos; desactiva otro primero',
    en: 'your account already has the most enabled devices it may hold; disable another one first',
  },
  DEVICE_NOT_FOUND: {
    es: 'ese dispositivo ya no está en tu cuenta',
    en: 'that device is no longer on your account',
  },
};

/** Yes and no, as buttons in the person's language; their values are what a person would type. */
export function yesNo(language: Language): SuggestedActions {
  const [yes, no] = language === 'es' ? ['Sí', 'No'] : ['Yes', 'No'];
  return {
    actions: [
      { type: 'imBack', title: yes, value: yes },
      { type: 'imBack', title: no, value: no },
    ],
  };
}

/** A tool's result in words (and, for a confirmation, the yes / no buttons). */
export function say(result: ToolResult, language: Language): SaidAnswer {
  const es = language === 'es';
  switch (result.status) {
    case 'devices': {
      if (result.devices.length === 0)
        return { output: es ? 'No tienes dispositivos registrados.' : 'You have no registered devices.' };
      const described = result.devices.map((device) => {
        const state = [
          device.enabled ? (es ? 'activo' : 'enabled') : es ? 'desactivado' : 'disabled',
          ...(device.playing ? [es ? 'reproduciendo ahora' : 'playing now'] : []),
        ];
        return `${device.name} (${state.join(', ')})`;
      });
      const count = result.devices.length;
      return {
        output: es
          ? `Tienes ${count} ${count === 1 ? 'dispositivo' : 'dispositivos'}: ${listAll(described, language)}.`
          : `You have ${count} ${count === 1 ? 'device' : 'devices'}: ${listAll(described, language)}.`,
      };
    }
    case 'playing':
      if (result.devices.length === 0)
        return {
          output: es
            ? 'Ahora mismo no se está reproduciendo nada en tus dispositivos.'
            : 'Nothing is playing on your devices right now.',
        };
      return {
        output: es
          ? `Ahora se está reproduciendo en: ${listAll(
              result.devices.map((device) => device.name),
              language,
            )}.`
          : `Playing now on: ${listAll(
              result.devices.map((device) => device.name),
              language,
            )}.`,
      };
    case 'confirmation_required':
      return {
        output: es
          ? `¿Quieres que vaya a ${actionWords(result.action, language)}?`
          : `Do you want me to ${actionWords(result.action, language)}?`,
        suggestedActions: yesNo(language),
      };
    case 'done':
      return { output: doneWords(result.action, language) };
    case 'refused': {
      const why = refusals[result.refusal.type]?.[language];
      return {
        output: es
          ? `No he podido ${actionWords(result.action, language)}${why ? `: ${why}` : ''}.`
          : `I could not ${actionWords(result.action, language)}${why ? `: ${why}` : ''}.`,
      };
    }
    case 'device_not_found':
      return {
        output: es
          ? `No encuentro ningún dispositivo llamado «${result.device}». Tus dispositivos son: ${listAll(result.devices, language)}.`
          : `I can't find a device called «${result.device}». Your devices are: ${listAll(result.devices, language)}.`,
      };
    case 'device_ambiguous':
      return {
        output: es
          ? `¿Cuál de ellos: ${list(result.candidates, language)}? Dímelo con su nombre completo.`
          : `Which one do you mean: ${list(result.candidates, language)}? Tell me its full name.`,
      };
    case 'nothing_to_confirm':
      return {
        output: es
          ? 'No hay nada pendiente de confirmar (las confirmaciones caducan a los 2 minutos). Pídemelo de nuevo.'
          : 'There is nothing waiting for your confirmation (confirmations expire after 2 minutes). Ask me again.',
      };
    case 'invalid_arguments':
    case 'unknown_tool':
      return {
        output: es
          ? 'No he entendido qué quieres hacer con tu cuenta.'
          : "I didn't understand what to do with your account.",
      };
  }
}

/** What an unlinked or anonymous person is told instead of any account data. */
export function linkFirst(language: Language): SaidAnswer {
  return {
    output:
      language === 'es'
        ? 'Para consultar o cambiar tus dispositivos necesito que vincules tu cuenta de Sintonia: inicia sesión con tu cuenta en el canal donde hablas conmigo (vinculación de cuenta) y vuelve a preguntarme.'
        : 'To look at or change your devices I need your Sintonia account linked: sign in with your Sintonia account in the channel where you talk to me (account linking), then ask me again.',
  };
}

/** What "no" answers. */
export function cancelled(language: Language, anything: boolean): SaidAnswer {
  if (!anything) return { output: language === 'es' ? 'De acuerdo.' : 'All right.' };
  return { output: language === 'es' ? 'De acuerdo, no hago nada.' : "All right, I won't do it." };
}
