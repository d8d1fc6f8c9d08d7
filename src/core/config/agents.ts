import Type from 'typebox';
import { optionalUrl, secret } from './kinds.ts';

/** The agents server's variables: how it reaches assistant-auth and the model. */
export const agentsVariables = {
  AGENTS_URL: optionalUrl('Agents server the embedded channel calls. Default http://HOST:AGENTS_PORT.'),
  ASSISTANT_RUNTIME_KEY: secret({
    minLength: 1,
    description:
      'An API key of class runtime with which the agents server asks assistant-auth for delegated tokens, to act on a linked person’s pay-TV account. Unset: the account tools answer 400 AGENT_CONFIG_ERROR.',
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
  MODEL_TIMEOUT_MS: Type.Integer({
    minimum: 10,
    maximum: 600000,
    default: 30000,
    description: 'Timeout of one model call.',
  }),
};
