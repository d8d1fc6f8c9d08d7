import Type from 'typebox';

const DATA_MAX_LENGTH = 4096;

const dataDescription = `AES-256-GCM sealed JSON \`{ identity, channel, exp, nonce, phoneNumber? }\`, single use, at most ${DATA_MAX_LENGTH} characters. Missing, tampered, expired or replayed: 401.`;

/** The gateway callbacks' query: `data` is their credential. */
export const callbackQuery = Type.Object({
  data: Type.String({ minLength: 1, maxLength: DATA_MAX_LENGTH, description: dataDescription }),
});

/**
 * `data` as an OpenAPI 3 query parameter: the generator leaves out a parameter that a security scheme
 * names, yet a caller must know it is a required parameter with a length limit.
 */
export const callbackDataParameter = {
  name: 'data',
  in: 'query',
  required: true,
  description: dataDescription,
  schema: { type: 'string', minLength: 1, maxLength: DATA_MAX_LENGTH },
} as const;
