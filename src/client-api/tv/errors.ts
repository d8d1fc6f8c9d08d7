import { defineErrors } from '../../core/errors.ts';

export const tvPageErrors = defineErrors('client-api/tv', {
  TV_ASSET_NOT_FOUND: [404, 'The TV page has no such file.'],
});
