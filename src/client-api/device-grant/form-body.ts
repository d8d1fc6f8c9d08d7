import { deviceGrantErrors } from './errors.ts';

/**
 * Reads an `application/x-www-form-urlencoded` body into a plain record (no prototype, so no name is
 * special); a repeated parameter is refused (OAuth: "parameters MUST NOT be included more than once").
 * URLSearchParams walks the text once and never throws: bad percent-escapes are kept as they came.
 */
export function readForm(body: string): Record<string, string> {
  const form: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(form, name)) {
      throw deviceGrantErrors.OAUTH_REQUEST_INVALID(`The parameter ${name} is repeated.`);
    }
    form[name] = value;
  }
  return form;
}
