import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import { project } from '../../../src/client-api/media/project.ts';
import type { JsonSchema } from '../../../src/client-api/media/schema.ts';
import { typedValue } from './arbitraries.ts';

const noRefs = () => undefined;

/** Adds keys the schema does not declare, at every object level: both serialisers must drop them. */
function withExtras(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withExtras);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = { secret: 'never shown' };
    for (const [key, item] of Object.entries(value)) copy[key] = withExtras(item);
    return copy;
  }
  return value;
}

describe('schema projection (what BSON, UBJSON and XML encode)', () => {
  it('gives exactly the data Fastify’s JSON serialiser writes for the same schema', () => {
    fc.assert(
      fc.property(typedValue, ({ schema, value }) => {
        const declared = (schema.properties ?? {}) as Record<string, JsonSchema>;
        fc.pre(!('secret' in declared));
        const input = withExtras(value);
        let json: unknown;
        try {
          json = JSON.parse(fastJson(schema as Parameters<typeof fastJson>[0])(input));
        } catch (error) {
          // The oracle's own limit: fast-json-stringify sometimes cannot resolve an anyOf branch below a
          // property named '' (its pointer `…/properties//properties/ /anyOf/0` has an empty segment) and
          // throws "no schema with key or ref" (seed -1362065260). No reference answer for such a case;
          // any other error is a failure.
          fc.pre(!(error as Error).message.startsWith('no schema with key or ref'));
          throw error;
        }
        assert.deepStrictEqual(JSON.parse(JSON.stringify(project(schema, input, { resolve: noRefs }))), json);
      }),
      { numRuns: 200 },
    );
  });

  it('coerces like fast-json-stringify and applies toJSON', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        at: { type: 'string', format: 'date-time' },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        label: { type: 'string' },
        flag: { type: 'boolean' },
        maybe: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
    };
    const input = {
      at: new Date(0),
      count: 2.7,
      ratio: '0.5',
      label: 12,
      flag: 'yes',
      maybe: null,
      hidden: 1,
    };
    assert.deepStrictEqual(project(schema, input, { resolve: noRefs }), {
      at: '1970-01-01T00:00:00.000Z',
      count: 2,
      ratio: 0.5,
      label: '12',
      flag: true,
      maybe: null,
    });
  });
});
