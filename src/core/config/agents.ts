import Type from 'typebox';
import { optionalUrl, secret } from './kinds.ts';

/** The agents server's variables: how it reaches assistant-auth and the model. */
export const agentsVariables = {
  AGENTS_URL: optionalUrl('Agents server the embedded channel calls. Default http://HOST:AGENTS_PORT.'),
  ASSISTANT_RUNTIME_KEY: secret({
    minLength: 1,
    description:
      'An API key of class runtime with which the agents server asks assistant-auth for delegated tokens, to act on a linked person’s pay-TV account, and the chat page vouches for a person’s address to client-api. Unset: the family’s own runtime key, derived from the master key and recorded in the store (`sintonia key list` shows it).',
  }),
  ASSISTANT_JWKS_URL: optionalUrl(
    'JWKS the agents server verifies JWTs with. Default: assistant-auth /openid/jwk.',
  ),
  MODEL_BASE_URL: optionalUrl('OpenAI-compatible endpoint of the chat agent (…/v1).'),
  MODEL_API_KEY: secret({ minLength: 1, description: 'Bearer key of the model endpoint.' }),
  MODEL_NAME: Type.String({
    default: 'gpt-4o-mini',
    minLength: 1,
    description: 'Model the chat agent asks for.',
  }),
  CHAT_HISTORY_TOKENS: Type.Integer({
    minimum: 0,
    maximum: 100000,
    default: 2000,
    description:
      'How much of a conversation the chat agent remembers: its most recent whole turns, tool calls and results included, up to about this many tokens (4 characters each). 0: none.',
  }),
  AGENT_RUNS_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 20,
    description:
      'Agent turns per party per minute: per person the channel bound (assistantId), per anonymous conversation, per API key for other calls; then 429 AGENT_RATE_LIMIT_ERROR with Retry-After. A chat turn makes at most 4 model calls. Counted in the store: every process shares it.',
  }),
  AGENT_RUNS_PER_MINUTE_TOTAL: Type.Integer({
    minimum: 1,
    maximum: 10000000,
    default: 1200,
    description:
      'Agent turns per minute, all parties together (the model budget); then 429 AGENT_RATE_LIMIT_ERROR with Retry-After. Counted in the store.',
  }),
  AGENT_CONCURRENT_RUNS: Type.Integer({
    minimum: 1,
    maximum: 100000,
    default: 64,
    description:
      'Agent turns one agents-server process runs at once; one more is 429 AGENT_RATE_LIMIT_ERROR with Retry-After 1. Counted in the process.',
  }),
  CHAT_HISTORY_TURNS: Type.Integer({
    minimum: 1,
    maximum: 10000,
    default: 50,
    description:
      'Turns the chat agent keeps of one conversation; older ones are deleted as new ones are remembered (CHAT_HISTORY_TOKENS decides how many the model hears).',
  }),
  MODEL_TIMEOUT_MS: Type.Integer({
    minimum: 10,
    maximum: 600000,
    default: 30000,
    description: 'Timeout of one model call.',
  }),
};
