import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SandboxError } from './errors.js';
import { catchError, issueActiveCard, issueBody, setup } from './test-support.js';

/**
 * Checks service outputs against the component schemas of `spec/openapi.yaml`, so that the
 * sandbox and the spec cannot drift apart unnoticed. A small validator for the keywords the
 * spec uses ($ref, allOf, anyOf, oneOf, type, enum, const, pattern, format, required,
 * properties, additionalProperties, items, minimum, maximum), in strict mode: a property that
 * no schema along the allOf chain declares is an error too.
 */
type Schema = Record<string, unknown>;
const specPath = fileURLToPath(new URL('../../../spec/openapi.yaml', import.meta.url));
const spec = existsSync(specPath) ? (parse(readFileSync(specPath, 'utf8')) as { components: { schemas: Record<string, Schema> } }) : undefined;

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = spec!.components.schemas[name];
  if (target === undefined) throw new Error(`unresolved ${ref}`);
  return resolve(target);
}

/** Property names declared along the allOf chain of an object schema. */
function declared(schema: Schema): Set<string> {
  const s = resolve(schema);
  const names = new Set(Object.keys((s.properties as Record<string, Schema> | undefined) ?? {}));
  for (const part of (s.allOf as Schema[] | undefined) ?? []) for (const n of declared(part)) names.add(n);
  return names;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const FORMATS: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
};

function validate(schemaIn: Schema, value: unknown, path: string, errors: string[], strict = true): void {
  const schema = resolve(schemaIn);
  for (const part of (schema.allOf as Schema[] | undefined) ?? []) validate(part, value, path, errors, false);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options !== undefined && !options.some((o) => (validate(o, value, path, [], true), check(o, value)))) errors.push(`${path}: matches no ${key} branch`);
  }
  const types = schema.type === undefined ? undefined : ([] as string[]).concat(schema.type as string | string[]);
  const actual = typeOf(value);
  if (types !== undefined && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
    errors.push(`${path}: ${actual} is not ${types.join('|')}`);
    return;
  }
  if (schema.enum !== undefined && !(schema.enum as unknown[]).includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if (schema.const !== undefined && schema.const !== value) errors.push(`${path}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
    const format = FORMATS[schema.format as string];
    if (format !== undefined && !format.test(value)) errors.push(`${path}: ${JSON.stringify(value)} is not a ${String(schema.format)}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: ${value} < ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: ${value} > ${schema.maximum}`);
  }
  if (Array.isArray(value) && schema.items !== undefined) value.forEach((item, i) => validate(schema.items as Schema, item, `${path}[${i}]`, errors));
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const name of (schema.required as string[] | undefined) ?? []) if (!(name in obj)) errors.push(`${path}: missing ${name}`);
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [name, sub] of Object.entries(props)) if (name in obj) validate(sub, obj[name], `${path}.${name}`, errors);
    const extra = schema.additionalProperties;
    if (typeof extra === 'object' && extra !== null) for (const [name, v] of Object.entries(obj)) if (!(name in props)) validate(extra as Schema, v, `${path}.${name}`, errors);
    const names = declared(schema);
    if ((extra === false || (strict && extra === undefined && names.size > 0)) && schema.additionalProperties !== true) {
      for (const name of Object.keys(obj)) if (!names.has(name)) errors.push(`${path}: undeclared property ${name}`);
    }
  }
}

function check(schema: Schema, value: unknown): boolean {
  const errors: string[] = [];
  validate(schema, value, '$', errors);
  return errors.length === 0;
}

function conform(name: string, value: unknown): string[] {
  const errors: string[] = [];
  validate({ $ref: `#/components/schemas/${name}` }, value, name, errors);
  return errors;
}

/** `card.close_initiated` -> `CardCloseInitiatedEvent`. */
function eventSchema(code: string): string {
  return `${code
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;
}

describe.runIf(spec !== undefined)('outputs conform to spec/openapi.yaml', () => {
  it('every resource, page, event and error shape', () => {
    const { sandbox, ws, token } = setup();
    const a = issueActiveCard(sandbox, ws);
    const b = issueActiveCard(sandbox, ws, { card_product_id: 2, initial_topup_amount: '75.00', billing_address: { line1: '1 A St', line2: null, city: 'B', state: null, postal_code: '1', country: 'US' } });
    const accepted = [sandbox.cards.topup(ws, a, { amount: '10.00' }), sandbox.cards.freeze(ws, a, { reason: 'x' })];
    sandbox.advance(200);
    accepted.push(sandbox.cards.unfreeze(ws, a), sandbox.cards.close(ws, b, null));
    sandbox.admin.failNextOrder('next-issue', 'business4xx');
    accepted.push(sandbox.cards.create(ws, issueBody()));
    sandbox.advance(10_000);

    const problems: string[] = [];
    for (const p of sandbox.catalogue.list(ws)) problems.push(...conform('CardProduct', p));
    problems.push(...conform('CardPage', sandbox.cards.list(ws)));
    for (const uuid of [a, b]) problems.push(...conform('CardDetail', sandbox.cards.get(ws, uuid)));
    for (const o of accepted) problems.push(...conform('AcceptedOrder', o));
    for (const o of accepted) problems.push(...conform('Order', sandbox.orders.get(ws, o.uuid)));
    problems.push(...conform('OrderPage', sandbox.orders.list(ws, { per_page: 3, page: 2 })));
    problems.push(...conform('Wallet', sandbox.wallet.get(ws)));
    problems.push(...conform('LedgerEntryPage', sandbox.ledger.list(ws)));
    const events = sandbox.events.since(0);
    expect(new Set(events.map((e) => e.event))).toEqual(new Set(['order.completed', 'order.failed', 'card.frozen', 'card.unfrozen', 'card.close_initiated', 'card.closed']));
    for (const e of events) problems.push(...conform(eventSchema(e.event), e));
    const auth = sandbox.auth.authenticate(token, '1.1.1.1');
    problems.push(...conform('PingResult', { workspace_slug: auth.workspace.slug, workspace_name: auth.workspace.name, abilities: auth.abilities }));
    for (const fail of [() => sandbox.cards.create(ws, issueBody({ initial_topup_amount: '1.00' })), () => sandbox.cards.freeze(ws, b), () => sandbox.auth.authenticate(undefined, '1.1.1.1')]) {
      const e = catchError(fail) as SandboxError;
      problems.push(...conform('Error', { error: { code: e.code, message: e.message, request_id: 'req-1', ...(e.fieldErrors ? { errors: e.fieldErrors } : {}) } }));
    }
    expect(problems).toEqual([]);
  });
});

describe.runIf(spec !== undefined)('the conformance check itself', () => {
  const order = { uuid: '0f1a63f8-66b5-4b24-9d9f-447172c9c345', type: 'freeze', status: 'pending', related_card_uuid: null, held_amount: '0.00', currency: 'USD', created_at: '2026-03-01T12:00:00.000Z', failure_reason: null };
  it.each([
    ['a missing field', { ...order, failure_reason: undefined }, 'missing failure_reason'],
    ['an undeclared field', { ...order, card_id: 1 }, 'undeclared property card_id'],
    ['a float amount', { ...order, held_amount: 0 }, 'is not string'],
    ['an unknown enum value', { ...order, status: 'done' }, 'not in enum'],
    ['a bad uuid', { ...order, uuid: 'x' }, 'is not a uuid'],
  ])('flags %s', (_name, value, message) => {
    const clean = JSON.parse(JSON.stringify(value)) as unknown;
    expect(conform('Order', clean).join('\n')).toContain(message);
  });
  it('accepts a valid order', () => expect(conform('Order', order)).toEqual([]));
});
