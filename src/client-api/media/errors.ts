import { defineErrors, type ErrorSpec } from '../../core/errors.ts';

/**
 * Errors of reading a request body in any of the four media types. All are 400 (the category
 * BAD_REQUEST); MALFORMED_BODY, BODY_TOO_LARGE (413) and UNSUPPORTED_MEDIA_TYPE (415) come from core.
 */
export const mediaErrors = defineErrors('client-api/media', {
  BODY_TOO_DEEP: [400, 'The request body is nested too deeply.'],
  XML_DTD_FORBIDDEN: [400, 'XML bodies may not carry a DTD, entity declarations or external references.'],
  INTEGER_OUT_OF_RANGE: [400, 'The request body holds an integer beyond 2^53-1 that cannot be kept exactly.'],
});

/** What reading a body may answer beyond core's body errors: every body-taking operation lists these. */
export const mediaBodyErrors: readonly ErrorSpec[] = Object.values(mediaErrors);
