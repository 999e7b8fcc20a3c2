/**
 * Which names from a spec may become code, and what the generated code calls the things it derives from them.
 * The model checks every spec name here once (build.ts), with a pointer, so no target has to; the targets
 * take the derived names (`queryTypeName`, `resourceClassName`, `enumValuesName`) from here so that the model
 * checks exactly the names they will write. The rules are documented in generators/README.md ("A spec is
 * untrusted input").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ASSET_ROOT } from '../core/assets.js';

/** ASCII identifiers only: what every JavaScript parser, file system and shell accepts unquoted. */
export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Names also become file names (`server --scaffold` writes `<operationId>.ts`). */
export const MAX_NAME_LENGTH = 128;

/**
 * Words that cannot name a binding (a parameter, a constant, a type) in a strict-mode ES module or in
 * TypeScript: ECMAScript reserved and strict-mode reserved words, `arguments`/`eval`, the globals that must
 * not be shadowed (`undefined`, `NaN`, `Infinity`, `globalThis`), and TypeScript's predefined type names,
 * which a type alias cannot take.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
  'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new',
  'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with',
  'yield', 'let', 'static', 'implements', 'interface', 'package', 'private', 'protected', 'public',
  'arguments', 'eval', 'undefined', 'NaN', 'Infinity', 'globalThis',
  'any', 'bigint', 'boolean', 'never', 'number', 'object', 'string', 'symbol', 'unknown',
]);

/**
 * Names every JavaScript object already answers to: `Object.prototype`'s own members (computed, so a newer
 * runtime's additions count), plus `then`, which makes an object (or a module namespace) a thenable that
 * `await` calls.
 */
export const OBJECT_MEMBERS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'then']);

/** What openapi-typescript declares in every `types.gen.ts`. */
export const OPENAPI_TYPESCRIPT_NAMES = ['paths', 'webhooks', 'components', '$defs', 'operations'] as const;

/**
 * Names the generators themselves declare or import in generated modules, beside the runtime's exports.
 * test/generators/hostile-spec.test.ts checks this list against every generated file of both specs.
 */
export const GENERATED_NAMES = [
  // client
  'CardApiClient', 'OPERATIONS',
  // server and sandbox-control
  'CardApiHandlers', 'SandboxControlHandlers', 'CardApiPlugin', 'cardApi', 'cardApiFor', 'plugin', 'componentSchemas', 'routes', 'openapiYaml', 'docsOutline',
  'FastifyInstance',
  // server --scaffold
  'handlers',
  // webhooks
  'EVENT_NAMES', 'EventName', 'EventMap', 'CardApiEvent', 'EventOf', 'isEventName', 'isEvent', 'eventFixtures',
  'CardApiWebhookHandlerOptions', 'verifyGeneric', 'createHandler',
] as const;

/**
 * Globals that generated modules refer to (`Promise<...>`, `Record<...>`): a schema of that name would be
 * imported over them. test/generators/hostile-spec.test.ts finds every global the generated files use and
 * checks it is listed here.
 */
export const GLOBALS_USED = ['Promise', 'Record', 'NonNullable', 'Array', 'ReadonlyArray', 'Omit', 'Exclude', 'Extract', 'Pick', 'Partial', 'Required', 'Readonly'] as const;

/** What `server --scaffold` declares beside the handler constants named by operationId. */
export const SCAFFOLD_NAMES: readonly string[] = ['ApiError', 'CardApiHandlers', 'handlers'];

/** The locals of a generated client method that path parameters sit beside (parameters and module constants it reads). */
export const METHOD_LOCALS: readonly string[] = ['query', 'body', 'options', 'OPERATIONS', 'waitForOrder'];

/** Where a local `$ref` may point: openapi-typescript names the first segment as a type. */
export const REF_ROOTS = ['components', 'paths', 'webhooks'] as const;

/**
 * A path key: segments of unreserved characters, %-escapes and `{parameter}` templates. Anything else (quotes,
 * spaces, `*`, `:`) means something to Fastify's router or to the code the path is written into.
 */
export const PATH_KEY = /^(?:\/(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2}|\{[A-Za-z_$][A-Za-z0-9_$]*\})*)+$/;

/** Entry modules of the runtime each package copies from templates/ and re-exports. */
const RUNTIME_ENTRIES: Record<string, readonly string[]> = {
  client: ['index.ts'],
  server: ['index.ts'],
  webhooks: ['index.ts', 'web.ts', 'adapters.ts', 'secrets.ts', 'lifeline.ts'],
};

const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;
const DECLARED = /\bexport\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/g;
const LISTED = /\bexport\s+(?:type\s+)?\{([^}]*)\}/g;
const STAR = /\bexport\s+\*\s+(?:as\s+([A-Za-z_$][\w$]*)\s+)?from\s+['"](\.[^'"]+)['"]/g;

/** The names a template module exports, following its relative `export * from`; read from the source text. */
function moduleExports(file: string, seen: Set<string>, out: Set<string>): void {
  if (seen.has(file)) return;
  seen.add(file);
  const text = readFileSync(file, 'utf8').replace(COMMENTS, '');
  for (const m of text.matchAll(DECLARED)) out.add(m[1]!);
  for (const m of text.matchAll(LISTED)) {
    for (const item of m[1]!.split(',')) {
      const name = item.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()!.trim();
      if (name) out.add(name);
    }
  }
  for (const m of text.matchAll(STAR)) {
    if (m[1]) out.add(m[1]);
    else moduleExports(path.resolve(path.dirname(file), m[2]!.replace(/\.js$/, '.ts')), seen, out);
  }
}

let runtimeNames: Map<string, string> | undefined;

/**
 * Every name the copied runtimes export, mapped to the runtime that exports it (`client`, `server`,
 * `webhooks`), read from templates/ once per process. A generated `index.ts` re-exports its runtime beside
 * the spec's types, so a schema of one of these names would clash.
 */
export function runtimeExports(): ReadonlyMap<string, string> {
  if (!runtimeNames) {
    runtimeNames = new Map();
    for (const [runtime, entries] of Object.entries(RUNTIME_ENTRIES)) {
      const names = new Set<string>();
      const seen = new Set<string>();
      for (const entry of entries) moduleExports(path.join(ASSET_ROOT, 'templates', runtime, entry), seen, names);
      for (const name of names) if (!runtimeNames.has(name)) runtimeNames.set(name, runtime);
    }
  }
  return runtimeNames;
}

/** A UTF-16 surrogate without its pair: not encodable as UTF-8, so text holding one is not well-formed. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `String.prototype.isWellFormed` (ES2024; Node 20 has it), typed for the ES2023 library this project compiles against. */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** `get-card` / `get_card` / `getCard` → `GetCard`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** The exported query type of an operation with query parameters: `listCards` → `ListCardsQuery`. */
export function queryTypeName(operationId: string): string {
  return `${pascalCase(operationId)}Query`;
}

/** The client class of a resource: `cards` → `CardsResource`. */
export function resourceClassName(resource: string): string {
  return `${pascalCase(resource)}Resource`;
}

/** The `as const` array of an enumeration's values: `CardStatus` → `CardStatusValues`. */
export function enumValuesName(schema: string): string {
  return `${schema}Values`;
}

/**
 * How a spec name is used in generated code, which decides what it may be:
 * - `member`: a property or method name (`client.cards`, `.freeze()`, a handler key): any identifier that
 *   every object does not already have (`constructor`, `then`, `__proto__`, `toString`, ...). Reserved words
 *   are valid and idiomatic here (`client.cards.delete()`).
 * - `binding`: also a parameter, constant or file name: no reserved word either.
 * - `type`: also an exported type name in the types module, which every generated module imports from and
 *   re-exports beside its runtime: no clash with the runtime's exports, openapi-typescript's or the
 *   generators' own names, or the globals generated code uses.
 */
export type NameRole = 'member' | 'binding' | 'type';

const JS_LITERAL = (name: string): string => JSON.stringify(name);

/** Why `name` cannot serve as a `role` in generated code, or null when it can. */
export function nameProblem(name: string, role: NameRole): string | null {
  if (!IDENTIFIER.test(name) || name.length > MAX_NAME_LENGTH) {
    return `${JS_LITERAL(name)} is not a plain identifier: names from the spec become code and file names, so they must match ${IDENTIFIER.source} (at most ${MAX_NAME_LENGTH} characters)`;
  }
  if (name === 'then') return '"then" would make the generated object thenable (`await` would call it)';
  if (OBJECT_MEMBERS.has(name)) return `${JS_LITERAL(name)} is a member of every JavaScript object (Object.prototype); generated code would shadow it or read the inherited one`;
  if (role === 'member') return null;
  if (RESERVED_WORDS.has(name)) return `${JS_LITERAL(name)} is a reserved word in JavaScript or TypeScript and cannot name a ${role === 'type' ? 'type' : 'parameter or constant'}`;
  if (role === 'binding') return null;
  const runtime = runtimeExports().get(name);
  if (runtime) return `${JS_LITERAL(name)} is already exported by the @card-api/${runtime} runtime, which generated code imports and re-exports beside the spec's types`;
  if ((OPENAPI_TYPESCRIPT_NAMES as readonly string[]).includes(name)) return `${JS_LITERAL(name)} is declared by openapi-typescript in the generated types`;
  if ((GENERATED_NAMES as readonly string[]).includes(name)) return `${JS_LITERAL(name)} is a name the generated code already declares`;
  if ((GLOBALS_USED as readonly string[]).includes(name)) return `${JS_LITERAL(name)} is a global that generated code refers to, which a type of that name would hide`;
  return null;
}

/**
 * Object keys that Redocly's bundler cannot take: it looks keys up in plain objects, finds an inherited
 * `Object.prototype` function (`hasOwnProperty`, `valueOf`, ...) and calls it as its own type information,
 * which throws. Computed as exactly those members that throw when called that way.
 */
export const BUNDLER_UNSAFE_KEYS: ReadonlySet<string> = new Set(
  Object.getOwnPropertyNames(Object.prototype).filter((key) => {
    const member = (Object.prototype as Record<string, unknown>)[key];
    if (key === '__proto__' || typeof member !== 'function') return false;
    try {
      member.call(undefined, {}, key);
      return false;
    } catch {
      return true;
    }
  }),
);

/** Why a key of {@link BUNDLER_UNSAFE_KEYS} is refused. */
export function bundlerUnsafeKeyReason(key: string): string {
  return `the key ${JSON.stringify(key)} is an Object.prototype member, which the bundler (Redocly, also inside openapi-typescript) cannot take as a name; rename it`;
}

/** Pointers (`#/a/b`) of every object key in `value` that the bundler cannot take ({@link BUNDLER_UNSAFE_KEYS}). */
export function bundlerUnsafeKeyPointers(value: unknown): string[] {
  const out: string[] = [];
  // The path is kept as a stack of keys and written out only for a key found: this walk visits every node of every
  // document read, and a pointer string per node was most of its cost.
  const tokens: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (typeof node !== 'object' || node === null || depth > 256) return;
    const array = Array.isArray(node);
    for (const key of Object.keys(node)) {
      tokens.push(key);
      if (!array && BUNDLER_UNSAFE_KEYS.has(key)) out.push(`#/${tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`);
      walk((node as Record<string, unknown>)[key], depth + 1);
      tokens.pop();
    }
  };
  walk(value, 0);
  return out;
}
