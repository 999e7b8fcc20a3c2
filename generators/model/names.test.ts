// runtimeExports, GENERATED_NAMES and GLOBALS_USED are checked against the TypeScript checker in
// test/generators/hostile-spec.test.ts, which has the runtimes and the generated code in one program.
import { describe, expect, it } from 'vitest';
import { BUNDLER_UNSAFE_KEYS, nameProblem, OBJECT_MEMBERS, type NameRole } from './names.js';

describe('nameProblem', () => {
  const CASES: Array<[string, NameRole, RegExp | null]> = [
    ['cards', 'member', null],
    ['delete', 'member', null],
    ['delete', 'binding', /reserved word/],
    ['class', 'type', /reserved word/],
    ['string', 'type', /reserved word/],
    ['then', 'member', /thenable/],
    ['constructor', 'member', /Object\.prototype/],
    ['__proto__', 'member', /Object\.prototype/],
    ['hasOwnProperty', 'member', /Object\.prototype/],
    ['ClientCore', 'binding', null],
    ['ClientCore', 'type', /@card-api\/client runtime/],
    ['WebhookVerificationError', 'type', /@card-api\/webhooks runtime/],
    ['components', 'type', /openapi-typescript/],
    ['EventMap', 'type', /generated code already declares/],
    ['Promise', 'type', /global/],
    ['Card', 'type', null],
    ['u: any = console.log(1), uuid', 'member', /not a plain identifier/],
    ['caf\u00e9', 'member', /not a plain identifier/],
    ['a'.repeat(129), 'member', /at most 128/],
  ];
  it.each(CASES)('%s as a %s', (name, role, want) => {
    const problem = nameProblem(name, role);
    if (want === null) expect(problem).toBeNull();
    else expect(problem).toMatch(want);
  });

  it('knows the Object.prototype members of this runtime, and which of them crash the bundler', () => {
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'then']) expect(OBJECT_MEMBERS.has(name)).toBe(true);
    expect([...BUNDLER_UNSAFE_KEYS]).toEqual(expect.arrayContaining(['hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable']));
    expect(BUNDLER_UNSAFE_KEYS.has('toString')).toBe(false);
    expect(BUNDLER_UNSAFE_KEYS.has('constructor')).toBe(false);
  });
});
