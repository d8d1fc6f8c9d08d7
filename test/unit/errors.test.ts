import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authErrors, definedErrors, defineErrors, httpErrors, ProblemError } from '../../src/core/errors.ts';
import { errorResponses, inputErrors, withErrors } from '../../src/core/http/route-errors.ts';

describe('error catalogues', () => {
  const probe = defineErrors('probe/widgets', {
    WIDGET_NOT_FOUND: [404, 'No such widget.'],
    WIDGET_BUSY: [409, 'The widget is busy; retry later.', ['retry-after']],
  });

  it('makes each entry a spec and a factory of ProblemErrors', () => {
    assert.equal(probe.WIDGET_NOT_FOUND.type, 'WIDGET_NOT_FOUND');
    assert.equal(probe.WIDGET_NOT_FOUND.status, 404);
    assert.equal(probe.WIDGET_NOT_FOUND.domain, 'probe/widgets');
    const error = probe.WIDGET_BUSY('Busy for 3 s.', { headers: { 'retry-after': '3' } });
    assert.ok(error instanceof ProblemError);
    assert.deepEqual(error.toBody(), {
      code: 'CONFLICT',
      message: 'Busy for 3 s.',
      errors: [{ type: 'WIDGET_BUSY', message: 'Busy for 3 s.' }],
    });
    assert.deepEqual(error.headers, { 'retry-after': '3' });
    assert.equal(probe.WIDGET_NOT_FOUND().message, 'No such widget.');
  });

  it('refuses a type defined twice within one service, naming both places', () => {
    assert.throws(
      () => defineErrors('probe/gadgets', { WIDGET_NOT_FOUND: [404, 'Again.'] }),
      /WIDGET_NOT_FOUND is defined twice: in probe\/widgets and in probe\/gadgets/,
    );
  });

  it("refuses a service's type that the family already defines", () => {
    assert.throws(
      () => defineErrors('probe/auth', { ACCESS_DENIED: [403, 'Mine.'] }),
      /ACCESS_DENIED is defined twice: in family\/auth and in probe\/auth/,
    );
  });

  it('lets two services each have a type of the same name', () => {
    defineErrors('other/widgets', { WIDGET_NOT_FOUND: [404, 'No such widget here.'] });
    const found = definedErrors().filter((spec) => spec.type === 'WIDGET_NOT_FOUND');
    assert.deepEqual(found.map((spec) => spec.domain).sort(), ['other/widgets', 'probe/widgets']);
  });
});

describe('error responses of a route', () => {
  const probe = defineErrors('probe2/things', {
    THING_LOCKED: [409, 'Locked.', ['retry-after']],
    THING_GONE: [409, 'Gone.'],
  });

  it('groups the named types by status, each once, with the headers they carry', () => {
    const derived = errorResponses([
      probe.THING_LOCKED,
      authErrors.ACCESS_DENIED,
      probe.THING_GONE,
      probe.THING_LOCKED,
    ]);
    assert.deepEqual(derived['x-error-types'], {
      403: ['ACCESS_DENIED'],
      409: ['THING_LOCKED', 'THING_GONE'],
    });
    assert.deepEqual(derived.response[409], {
      $ref: 'Error#',
      description: 'THING_LOCKED, THING_GONE',
      headers: { 'Retry-After': { type: 'integer', description: 'Seconds until a retry may pass.' } },
    });
    assert.deepEqual(derived.response[403], { $ref: 'Error#', description: 'ACCESS_DENIED' });
  });

  it('adds what reading the request implies: validation for parameters, the body errors for a body', () => {
    assert.deepEqual(inputErrors({}), []);
    assert.deepEqual(
      inputErrors({ params: {} }).map((spec) => spec.type),
      ['VALIDATION_ERROR'],
    );
    assert.deepEqual(
      inputErrors({ body: {} }).map((spec) => spec.type),
      ['VALIDATION_ERROR', 'MALFORMED_BODY', 'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
    );
  });

  it('keeps the success responses and the rest of the schema; any operation may find the store unreachable', () => {
    const schema = withErrors(
      { summary: 'S', querystring: { type: 'object' }, response: { 200: { type: 'string' } } },
      [httpErrors.SERVICE_UNAVAILABLE],
    );
    assert.equal(schema.summary, 'S');
    assert.deepEqual(Object.keys(schema.response ?? {}), ['200', '400', '503']);
    assert.deepEqual((schema as Record<string, unknown>)['x-error-types'], {
      400: ['VALIDATION_ERROR'],
      503: ['SERVICE_UNAVAILABLE', 'STORE_UNAVAILABLE'],
    });
  });
});
