import type { Agent, AgentAnswer, AgentTurn } from '../agent.ts';
import { AgentValidationException } from '../exceptions.ts';
import type { TurnAttachment } from '../schemas.ts';
import { type AccountAccess, createAccountTools } from '../tools/account-tools.ts';
import { cancelled, linkFirst, say } from './account-answers.ts';
import { accountRequestOf } from './account-intents.ts';
import { andList, type Language, languageOf } from './language.ts';

/** Facts of this deployment the answers quote, so they stay true when the operator changes them. */
export interface AssistantFacts {
  maxDevicesPerAccount: number;
  deviceDeleteCooldownSeconds: number;
}

interface Intent {
  name: string;
  pattern: RegExp;
  answer(language: Language, facts: AssistantFacts): string;
}

function hours(seconds: number): string {
  return String(Math.round((seconds / 3600) * 10) / 10);
}

/** Checked top to bottom; the first match answers (a greeting only when nothing more was asked). */
const intents: Intent[] = [
  {
    name: 'guide',
    pattern:
      /(qu[eé] (echan|hay|ponen|dan)|programaci[oó]n|gu[ií]a|parrilla|what'?s on|tv guide|schedule|tonight|on tv)/i,
    answer: (language) =>
      language === 'es'
        ? 'Para ver qué hay ahora, pulsa GUÍA en el mando o abre «Programación» en la app: verás cada canal con lo que emite ahora y a continuación. Desde la ficha de un programa puedes grabarlo o pedir un recordatorio.'
        : "To see what's on, press GUIDE on the remote or open 'TV guide' in the app: each channel shows what is on now and next. From a programme's page you can record it or set a reminder.",
  },
  {
    name: 'recordings',
    pattern: /(\bgrab[a-záéíóú]*|record(ing|ings)?|npvr|cloud dvr)/i,
    answer: (language) =>
      language === 'es'
        ? 'Para grabar, abre la ficha del programa en la guía y pulsa «Grabar»; para una serie, «Grabar serie». Tus grabaciones están en «Mis grabaciones», en cualquier dispositivo de tu cuenta.'
        : "To record, open the programme in the guide and choose 'Record', or 'Record series' for every episode. Your recordings are under 'My recordings', on any device of your account.",
  },
  {
    name: 'devices',
    pattern:
      /(dispositivos?|decodificador|deco\b|device|set-?top|players?\b|too many|m[aá]ximo|register|remove|desvincular|dar de baja)/i,
    answer: (language, facts) =>
      language === 'es'
        ? `Tu cuenta admite hasta ${facts.maxDevicesPerAccount} dispositivos activos. Un dispositivo se registra al iniciar sesión en él; puedes desactivarlo, renombrarlo o eliminarlo en «Mi cuenta › Dispositivos». Un dispositivo recién activado no se puede eliminar hasta pasadas ${hours(facts.deviceDeleteCooldownSeconds)} horas.`
        : `Your account can hold up to ${facts.maxDevicesPerAccount} enabled devices. A device is registered when you sign in on it; you can disable, rename or remove it under 'My account › Devices'. A newly activated device cannot be removed for ${hours(facts.deviceDeleteCooldownSeconds)} hours.`,
  },
  {
    name: 'resume',
    pattern: /(seguir viendo|continuar|donde lo dej[eé]|resume|continue watching|where i left)/i,
    answer: (language) =>
      language === 'es'
        ? 'Sintonia guarda por dónde vas en cada contenido: abre «Seguir viendo» en cualquier dispositivo de tu cuenta y continúa desde ese punto.'
        : "Sintonia remembers where you stopped in each title: open 'Continue watching' on any device of your account to pick up from there.",
  },
  {
    name: 'cannot',
    pattern:
      /(password|contrase[nñ]a|\bpay\b|payment|\bbill|invoice|factura|\bpag(o|ar)\b|subscription|suscripci[oó]n|\bplan\b|contratar|darme de baja|cancel my)/i,
    answer: (language) =>
      language === 'es'
        ? 'Eso no puedo hacerlo aquí: no cambio contraseñas, pagos, facturas ni suscripciones. Para eso entra en «Mi cuenta» en la app o llama a atención al cliente. Sí puedo decirte qué dispositivos tienes, cerrar su sesión, decirte qué se ve en casa y qué estabas viendo, y cuántos dispositivos más caben.'
        : "I can't do that here: I don't change passwords, payments, bills or subscriptions. For those, open 'My account' in the app or call customer service. I can tell you which devices you have, sign them out, tell you what's playing at home and what you were watching, and how many more devices fit.",
  },
  {
    name: 'help',
    pattern: /(ayuda|qu[eé] puedes hacer|help|what can you do)/i,
    answer: (language) =>
      language === 'es'
        ? 'Puedo contarte cómo ver la programación y grabar programas. Si inicias sesión, también puedo decirte qué se está viendo en casa, parar, pausar o reanudar un dispositivo, pasar lo que ves a otra tele, decirte qué dispositivos tienes y su estado, cerrar la sesión de uno o de todos, decirte qué estabas viendo y por dónde ibas, y cuántos dispositivos más caben. No puedo cambiar contraseñas, pagos ni suscripciones. Pregúntame, por ejemplo: «¿Cómo grabo una serie?».'
        : "I can explain how to check what's on and record programmes. Once you sign in, I can also tell you what's playing at home, stop, pause or resume a device, move what you watch to another TV, tell you which devices you have and their state, sign one or all of them out, tell you what you were watching and where you stopped, and how many more devices fit. I can't change passwords, payments or subscriptions. Try: 'How do I record a series?'",
  },
  {
    name: 'thanks',
    pattern: /(gracias|thanks|thank you)/i,
    answer: (language) =>
      language === 'es'
        ? '¡De nada! ¿Algo más en lo que pueda ayudarte?'
        : "You're welcome! Anything else I can help with?",
  },
  {
    name: 'goodbye',
    pattern: /(adi[oó]s|hasta luego|\bbye\b|goodbye)/i,
    answer: (language) => (language === 'es' ? '¡Hasta pronto!' : 'Goodbye!'),
  },
  {
    name: 'greeting',
    pattern:
      /^\s*(hola|buenas|buenos d[ií]as|buenas (tardes|noches)|hello|hi|hey|good (morning|afternoon|evening))\b/i,
    answer: (language) =>
      language === 'es'
        ? '¡Hola! Soy el asistente de Sintonia. Puedo ayudarte con la programación, cómo grabar, tus dispositivos y lo que se ve en casa. ¿Qué necesitas?'
        : "Hello! I'm the Sintonia assistant. I can help with what's on, how to record, your devices and what's playing at home. What do you need?",
  },
];

function fallback(language: Language): string {
  return language === 'es'
    ? 'No estoy seguro de haberte entendido. Puedo ayudarte con la programación, las grabaciones, seguir viendo y tus dispositivos.'
    : "I'm not sure I understood. I can help with what's on, recordings, continue watching and your devices.";
}

/** The answer and the intent that produced it (`fallback` when none matched). */
export function answerFor(input: string, facts: AssistantFacts): { intent: string; output: string } {
  const language = languageOf(input);
  const intent = intents.find((candidate) => candidate.pattern.test(input));
  return intent
    ? { intent: intent.name, output: intent.answer(language, facts) }
    : { intent: 'fallback', output: fallback(language) };
}

/** `12 KB`, `1.5 MB` (`1,5 MB` in Spanish), `512 bytes`. */
function fileSize(bytes: number, language: Language): string {
  const figure = (value: number) => {
    const rounded = String(Math.round(value * 10) / 10);
    return language === 'es' ? rounded.replace('.', ',') : rounded;
  };
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${figure(bytes / (1024 * 1024))} MB`;
}

/** "I received your file report.pdf (12 KB)." — each file by name and size, in the user's language. */
function acknowledgeFiles(files: readonly TurnAttachment[], language: Language): string {
  const list = andList(
    files.map((file) => `${file.name} (${fileSize(file.size, language)})`),
    language,
  );
  if (language === 'es')
    return files.length === 1 ? `He recibido tu archivo ${list}.` : `He recibido tus archivos ${list}.`;
  return files.length === 1 ? `I received your file ${list}.` : `I received your files ${list}.`;
}

/**
 * A turn with files: their acknowledgement, then the answer to the words sent with them when those
 * ask something the assistant knows (a message of files alone arrives as their names). The language
 * is the words', or the user's locale when there are none.
 */
function answerWithFiles(turn: AgentTurn, files: readonly TurnAttachment[], facts: AssistantFacts): string {
  const names = files.map((file) => file.name).join(', ');
  const words = turn.input.trim() === names ? '' : turn.input.trim();
  const language = languageOf(words, turn.locale);
  const acknowledgement = acknowledgeFiles(files, language);
  if (!words) return acknowledgement;
  const reply = answerFor(words, facts);
  return reply.intent === 'fallback' ? acknowledgement : `${acknowledgement} ${reply.output}`;
}

/**
 * The account part of a turn: the person's devices through the account tools, when they ask for them or
 * answer a confirmation; undefined for anything else (which also cancels what was waiting for a yes).
 */
async function accountAnswer(turn: AgentTurn, accounts: AccountAccess): Promise<AgentAnswer | undefined> {
  const request = accountRequestOf(turn.input);
  const speaker = turn.speaker?.assistantId;
  const owner = speaker ? { assistantId: speaker, conversationId: turn.conversationId ?? '' } : undefined;
  if (!request) {
    if (owner) await accounts.confirmations.cancel(owner);
    return undefined;
  }
  const language = languageOf(turn.input, turn.locale);
  // A yes or no with nothing of the account asked is small talk for an anonymous person.
  if (!owner) return request.kind === 'tool' ? linkFirst(language) : undefined;
  if (request.kind === 'no') return cancelled(language, await accounts.confirmations.cancel(owner));
  const linked = await accounts.client.forSpeaker(owner.assistantId, turn.requestId);
  if (!linked.linked) {
    await accounts.confirmations.cancel(owner);
    return linkFirst(language);
  }
  const tools = createAccountTools(linked.session, accounts.confirmations, owner, accounts);
  const result =
    request.kind === 'yes' ? await tools.confirm() : await tools.call(request.tool, request.args);
  return say(result, language);
}

/** The embedded default: rule-based, no network, answers in Spanish or English; without `accounts` it answers questions only. */
export function createAssistantAgent(facts: AssistantFacts, accounts?: AccountAccess): Agent {
  function answer(turn: AgentTurn): string {
    if (turn.input.trim().length === 0) throw new AgentValidationException('The input is empty.');
    if (turn.attachments?.length) return answerWithFiles(turn, turn.attachments, facts);
    return answerFor(turn.input, facts).output;
  }
  async function respond(turn: AgentTurn): Promise<AgentAnswer> {
    if (turn.input.trim().length > 0 && !turn.attachments?.length && accounts) {
      const account = await accountAnswer(turn, accounts);
      if (account) return account;
    }
    return { output: answer(turn) };
  }
  return {
    name: 'assistant',
    description:
      'Rule-based pay-TV assistant (guide, recordings, continue watching, devices), in Spanish or English; acknowledges the files it is sent; for a linked person lists, renames, enables, disables and signs out their devices, tells who is watching at home, stops, pauses or resumes a device and hands playback to another (changes after a yes). Needs no network beyond the family.',
    configured: () => true,
    // Its answers quote device names, file names and the person's words as they are, and use no markdown.
    textFormat: () => 'plain',
    invoke: respond,
    async *stream(turn) {
      // Word by word, so clients render it as it comes, like a model's stream; its buttons go with the end.
      const { output, ...extras } = await respond(turn);
      for (const word of output.match(/\S+\s*/g) ?? []) {
        turn.signal.throwIfAborted();
        yield word;
      }
      return extras;
    },
  };
}
