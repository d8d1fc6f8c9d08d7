import assert from 'node:assert/strict';

/** `body` has exactly the fields `names` (given in any order): none missing, none more. */
export function assertFields(body: object, names: readonly string[]): void {
  assert.deepEqual(Object.keys(body).sort(), [...names].sort());
}
