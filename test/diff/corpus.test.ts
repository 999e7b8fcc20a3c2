/**
 * Our own corpus of base/revision pairs, always run: small OpenAPI documents written here, one or a few per rule
 * family that oasdiff's corpus exercises (test/diff/oasdiff.test.ts runs that one when its data is at hand), each
 * with the verdict a careful integrator expects (the highest level reported: breaking, warning, info or none), a
 * one-line reason, and, where one inspired it, the oasdiff checker test by name. The documents are our own words,
 * not copies of oasdiff's files. Component schemas added or removed (`type-added`, `type-removed`) are bookkeeping
 * of the generated types and left out of the verdict, as they are in the oasdiff table.
 */
import { describe, expect, it } from 'vitest';
import { diffModels, type Change } from '../../generators/diff/index.js';
import type { JsonObject } from '../../generators/model/index.js';

type Verdict = 'breaking' | 'warning' | 'info' | 'none';
interface Pair {
  name: string;
  verdict: Verdict;
  why: string;
  /** The oasdiff checker test this pair was written after, if any. */
  oasdiff?: string;
  base: JsonObject;
  head: JsonObject;
}

type Json = Record<string, any>;
const RANK: Record<Verdict, number> = { none: 0, info: 1, warning: 2, breaking: 3 };
const NAMES: Verdict[] = ['none', 'info', 'warning', 'breaking'];

/** A whole document: `paths`, optional `components` and anything else at the top (`webhooks`, `security`). */
function doc(paths: Json, components: Json = {}, top: Json = {}, openapi = '3.1.0'): JsonObject {
  return { openapi, info: { title: 'Shop', version: '1.0.0' }, paths, components, ...top };
}
const json = (schema: Json) => ({ 'application/json': { schema } });
/** POST /orders whose JSON request body is `schema`. */
const request = (schema: Json, extra: Json = {}, openapi?: string) =>
  doc({ '/orders': { post: { operationId: 'createOrder', requestBody: { required: true, content: json(schema) }, responses: { 201: { description: 'Created' } } } } }, extra, {}, openapi);
/** GET /orders/{id} whose 200 JSON body is `schema`. */
const response = (schema: Json, extra: Json = {}, openapi?: string) =>
  doc({ '/orders/{id}': { get: { operationId: 'getOrder', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'OK', content: json(schema) } } } } }, extra, {}, openapi);
/** GET /orders with the given parameters. */
const params = (list: Json[], openapi?: string) => doc({ '/orders': { get: { operationId: 'listOrders', parameters: list, responses: { 200: { description: 'OK' } } } } }, {}, {}, openapi);
/** GET /orders/{id} with a 200 response object as given (headers, links, content). */
const answer = (res: Json, openapi?: string) =>
  doc({ '/orders/{id}': { get: { operationId: 'getOrder', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'OK', ...res } } } } }, {}, {}, openapi);
/** An operation with the given security requirement (and one bearer scheme, one API-key scheme). */
const secured = (security: Json[] | undefined, schemes: Json = { bearer: { type: 'http', scheme: 'bearer' } }) =>
  doc({ '/orders': { get: { operationId: 'listOrders', ...(security ? { security } : {}), responses: { 200: { description: 'OK' } } } } }, { securitySchemes: schemes });
const obj = (properties: Json, required: string[] = [], extra: Json = {}) => ({ type: 'object', properties, ...(required.length ? { required } : {}), ...extra });
const str = (extra: Json = {}) => ({ type: 'string', ...extra });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const schemas = (s: Json) => ({ schemas: s });
/** A 3.1 webhook (`webhooks`) or a 3.0 one (`x-webhooks`) whose payload is `schema`. */
const hook = (schema: Json | null, openapi = '3.1.0') => {
  const key = openapi.startsWith('3.0') ? 'x-webhooks' : 'webhooks';
  return doc({}, {}, { [key]: schema ? { 'order.shipped': { post: { requestBody: { content: json(schema) }, responses: { 200: { description: 'OK' } } } } } : {} }, openapi);
};
const tagged = (kind: string, more: Json = {}) => obj({ kind: { const: kind }, ...more }, ['kind']);

const PAIRS: Pair[] = [
  // Request body fields
  { name: 'request: a new required field', verdict: 'breaking', why: 'a client that does not send it is refused', oasdiff: 'TestRequiredRequestPropertyAdded', base: request(obj({ sku: str() }, ['sku'])), head: request(obj({ sku: str(), quantity: { type: 'integer' } }, ['sku', 'quantity'])) },
  { name: 'request: a new optional field', verdict: 'info', why: 'callers may send it; nobody has to', oasdiff: 'TestBreaking_ReqBodyNewRequiredPropertyNew', base: request(obj({ sku: str() })), head: request(obj({ sku: str(), note: str() })) },
  { name: 'request: an optional field made required', verdict: 'breaking', why: 'a client that omitted it is refused', oasdiff: 'TestBreaking_ReqBodyRequiredPropertyEnabled', base: request(obj({ sku: str(), note: str() }, ['sku'])), head: request(obj({ sku: str(), note: str() }, ['sku', 'note'])) },
  { name: 'request: a required field made optional', verdict: 'info', why: 'every request that was valid still is', oasdiff: 'TestBreaking_ReqBodyRequiredPropertyDisabled', base: request(obj({ sku: str() }, ['sku'])), head: request(obj({ sku: str() })) },
  { name: 'request: a field removed', verdict: 'warning', why: 'a client still sending it may be ignored or refused', oasdiff: 'TestRequiredRequestPropertyRemoved', base: request(obj({ sku: str(), note: str() })), head: request(obj({ sku: str() })) },
  { name: 'request: a field nested in an array item made required', verdict: 'breaking', why: 'each line of an order that lacks it is refused', oasdiff: 'TestBreaking_Items', base: request(obj({ lines: { type: 'array', items: obj({ sku: str(), qty: { type: 'integer' } }, ['sku']) } })), head: request(obj({ lines: { type: 'array', items: obj({ sku: str(), qty: { type: 'integer' } }, ['sku', 'qty']) } })) },
  { name: 'request: additionalProperties closed', verdict: 'breaking', why: 'a client that sends a field the schema does not list is refused', base: request(obj({ sku: str() })), head: request(obj({ sku: str() }, [], { additionalProperties: false })) },

  // Types and formats
  { name: 'request: string to integer', verdict: 'breaking', why: 'a client that sends "12" is refused', oasdiff: 'TestRequestPropertyTypeChangedCheck', base: request(obj({ qty: str() })), head: request(obj({ qty: { type: 'integer' } })) },
  { name: 'request: integer to number', verdict: 'info', why: 'every integer is a number', oasdiff: 'TestBreaking_ReqQueryParamTypeIntegerToNumber', base: request(obj({ qty: { type: 'integer' } })), head: request(obj({ qty: { type: 'number' } })) },
  { name: 'request: a format added', verdict: 'breaking', why: 'a client that sends a value outside the format is refused', oasdiff: 'TestRequestQueryParamFormatChanged', base: request(obj({ email: str() })), head: request(obj({ email: str({ format: 'email' }) })) },
  { name: 'request: a format removed', verdict: 'info', why: 'more values are accepted', oasdiff: 'TestRequestPathParamFormatRemoved', base: request(obj({ id: str({ format: 'uuid' }) })), head: request(obj({ id: str() })) },
  { name: 'request: an array item type changed', verdict: 'breaking', why: 'a client that sends the old item type is refused', base: request(obj({ tags: { type: 'array', items: str() } })), head: request(obj({ tags: { type: 'array', items: { type: 'integer' } } })) },
  { name: 'response: number to string', verdict: 'breaking', why: 'a reader that does arithmetic on the value gets text', oasdiff: 'TestBreaking_RespTypeNumberToString', base: response(obj({ total: { type: 'number' } })), head: response(obj({ total: str() })) },
  { name: 'response: string | integer narrowed to string', verdict: 'info', why: 'fewer types arrive, all of them handled', base: response(obj({ code: { type: ['string', 'integer'] } })), head: response(obj({ code: str() })) },
  { name: 'response: a format removed', verdict: 'warning', why: 'a reader that parses the value as a date may meet another string', oasdiff: 'TestResponsePropertyFormatRemovedCheck', base: response(obj({ at: str({ format: 'date-time' }) })), head: response(obj({ at: str() })) },
  { name: 'response: an additionalProperties value type changed', verdict: 'breaking', why: 'a reader of the map values gets another type', oasdiff: 'TestResponseAdditionalPropertyTypeChangedCheck', base: response(obj({ labels: { type: 'object', additionalProperties: str() } })), head: response(obj({ labels: { type: 'object', additionalProperties: { type: 'integer' } } })) },

  // Bounds, enums, patterns, const
  { name: 'request: maxLength lowered', verdict: 'breaking', why: 'a client that sends a longer value is refused', oasdiff: 'TestRequestParameterMaxLengthDecreasedCheck', base: request(obj({ note: str({ maxLength: 200 }) })), head: request(obj({ note: str({ maxLength: 100 }) })) },
  { name: 'request: maxLength raised', verdict: 'info', why: 'longer values are accepted too', oasdiff: 'TestRequestParameterMaxLengthIncreasedCheck', base: request(obj({ note: str({ maxLength: 100 }) })), head: request(obj({ note: str({ maxLength: 200 }) })) },
  { name: 'request: a maxLength set where there was none', verdict: 'breaking', why: 'a client that sends a longer value is refused (oasdiff: warning)', oasdiff: 'TestRequestPropertyMaxLengthSetCheck', base: request(obj({ note: str() })), head: request(obj({ note: str({ maxLength: 50 }) })) },
  { name: 'request: minimum raised', verdict: 'breaking', why: 'a client that sends the old minimum is refused', oasdiff: 'TestRequestPropertyMinIncreasedCheck', base: request(obj({ qty: { type: 'integer', minimum: 1 } })), head: request(obj({ qty: { type: 'integer', minimum: 5 } })) },
  { name: 'request: minItems raised', verdict: 'breaking', why: 'a client that sends one item is refused', oasdiff: 'TestRequestBodyMinItemsIncreased', base: request(obj({ lines: { type: 'array', items: str(), minItems: 1 } })), head: request(obj({ lines: { type: 'array', items: str(), minItems: 2 } })) },
  { name: 'request: minItems lowered', verdict: 'info', why: 'shorter lists are accepted too', oasdiff: 'TestBreaking_RequestMinItemsSmaller', base: request(obj({ lines: { type: 'array', items: str(), minItems: 2 } })), head: request(obj({ lines: { type: 'array', items: str(), minItems: 1 } })) },
  { name: 'request: 3.0 boolean exclusiveMinimum rewritten as 3.1 number', verdict: 'none', why: 'the same bound in two spellings', oasdiff: 'TestRequestParameterExclusiveMinIncreased', base: request(obj({ price: { type: 'number', minimum: 0, exclusiveMinimum: true } }), {}, '3.0.3'), head: request(obj({ price: { type: 'number', exclusiveMinimum: 0 } })) },
  { name: 'request: exclusiveMinimum raised', verdict: 'breaking', why: 'a client that sends a value in between is refused', oasdiff: 'TestRequestParameterExclusiveMinIncreased', base: request(obj({ price: { type: 'number', exclusiveMinimum: 0 } })), head: request(obj({ price: { type: 'number', exclusiveMinimum: 10 } })) },
  { name: 'response: maximum raised', verdict: 'warning', why: 'a reader that sized storage for the old maximum may overflow', oasdiff: 'TestResponseBodyMinDecreased', base: response(obj({ qty: { type: 'integer', maximum: 99 } })), head: response(obj({ qty: { type: 'integer', maximum: 999 } })) },
  { name: 'response: maxLength lowered', verdict: 'info', why: 'values stay within a tighter bound', base: response(obj({ note: str({ maxLength: 200 }) })), head: response(obj({ note: str({ maxLength: 100 }) })) },
  { name: 'request: an enum value removed', verdict: 'breaking', why: 'a client that sends the value is refused', oasdiff: 'TestRequestPropertyEnumValueRemovedCheck', base: request(obj({ speed: str({ enum: ['standard', 'express'] }) })), head: request(obj({ speed: str({ enum: ['standard'] }) })) },
  { name: 'request: an enum value added', verdict: 'info', why: 'one more value is accepted', oasdiff: 'TestRequestPropertyEnumValueAddedCheck', base: request(obj({ speed: str({ enum: ['standard'] }) })), head: request(obj({ speed: str({ enum: ['standard', 'express'] }) })) },
  { name: 'request: a free string became an enum', verdict: 'breaking', why: 'a client that sends any other string is refused', oasdiff: 'TestBreaking_ReqPropertyBecameEnum', base: request(obj({ speed: str() })), head: request(obj({ speed: str({ enum: ['standard', 'express'] }) })) },
  { name: 'response: an enum value added', verdict: 'warning', why: 'an exhaustive switch over the values meets one it does not handle', oasdiff: 'TestBreaking_AddedResponseEnum', base: response(obj({ status: str({ enum: ['open', 'paid'] }) })), head: response(obj({ status: str({ enum: ['open', 'paid', 'refunded'] }) })) },
  { name: 'response: an enum value removed', verdict: 'info', why: 'one value no longer arrives', oasdiff: 'TestBreaking_ResponsePropertyEnumRemoved', base: response(obj({ status: str({ enum: ['open', 'paid', 'void'] }) })), head: response(obj({ status: str({ enum: ['open', 'paid'] }) })) },
  { name: 'request: const changed', verdict: 'breaking', why: 'a client that sends the old constant is refused', oasdiff: 'TestRequestBodyConstChanged', base: request(obj({ version: { const: 'v1' } })), head: request(obj({ version: { const: 'v2' } })) },
  { name: 'request: a pattern added', verdict: 'breaking', why: 'a client that sends a value outside the pattern is refused', oasdiff: 'TestRequestPropertyPatternAdded', base: request(obj({ code: str() })), head: request(obj({ code: str({ pattern: '^[A-Z]{3}$' }) })) },
  { name: 'request: a pattern removed', verdict: 'info', why: 'any string is accepted now', oasdiff: 'TestRequestPropertyPatternRemoved', base: request(obj({ code: str({ pattern: '^[A-Z]{3}$' }) })), head: request(obj({ code: str() })) },
  { name: 'request: a pattern relaxed to match anything', verdict: 'info', why: '`.*` accepts every string the old pattern did', oasdiff: 'TestBreaking_GeneralizedPattern', base: request(obj({ code: str({ pattern: '^[A-Z]{3}$' }) })), head: request(obj({ code: str({ pattern: '.*' }) })) },
  { name: 'request: a pattern widened in its repetition bounds', verdict: 'info', why: '{3,5} accepts every string {3} did', oasdiff: 'TestRequestPropertyPatternGeneralized', base: request(obj({ code: str({ pattern: '^[A-Z]{3}$' }) })), head: request(obj({ code: str({ pattern: '^[A-Z]{3,5}$' }) })) },
  { name: 'request: a pattern replaced', verdict: 'breaking', why: 'a value the old pattern accepted may be refused (oasdiff: warning)', oasdiff: 'TestBreaking_ModifyPattern', base: request(obj({ code: str({ pattern: '^[A-Z]{3}$' }) })), head: request(obj({ code: str({ pattern: '^[0-9]{3}$' }) })) },

  // Nullability, 3.0 and 3.1 forms
  { name: 'request: nullable added (3.0)', verdict: 'info', why: 'null is accepted too', oasdiff: 'TestRequestPropertyBecameNullable', base: request(obj({ note: str() }), {}, '3.0.3'), head: request(obj({ note: str({ nullable: true }) }), {}, '3.0.3') },
  { name: 'request: null dropped from a 3.1 type array', verdict: 'breaking', why: 'a client that sends null is refused', oasdiff: 'TestBreaking_ReqBodyPropertyNotNullable', base: request(obj({ note: { type: ['string', 'null'] } })), head: request(obj({ note: str() })) },
  { name: 'response: became nullable (3.1 type array)', verdict: 'breaking', why: 'a reader may get null where it expects a string', oasdiff: 'TestBreaking_RespBodyPropertyNullable', base: response(obj({ note: str() }, ['note'])), head: response(obj({ note: { type: ['string', 'null'] } }, ['note'])) },
  { name: 'response: became nullable as anyOf with null', verdict: 'breaking', why: 'a reader may get null', oasdiff: 'TestBreaking_RespBodyNullable', base: response(obj({ note: str() })), head: response(obj({ note: { anyOf: [str(), { type: 'null' }] } })) },
  { name: '3.0 nullable rewritten as a 3.1 type array, example as examples', verdict: 'none', why: 'the same schema in two dialects', oasdiff: 'TestRequestBodyBecameNullable31', base: response(obj({ note: str({ nullable: true, example: 'gift' }) }), {}, '3.0.3'), head: response(obj({ note: { type: ['string', 'null'], examples: ['gift'] } })) },
  { name: '3.0 x-webhooks rewritten as 3.1 webhooks', verdict: 'none', why: 'the same event and payload, declared the 3.1 way', base: hook(obj({ id: str() }, ['id']), '3.0.3'), head: hook(obj({ id: str() }, ['id'])) },

  // Response fields
  { name: 'response: a field removed', verdict: 'breaking', why: 'a reader of the field gets undefined', oasdiff: 'TestBreaking_RespBodyDeleteRequiredProperty', base: response(obj({ id: str(), total: str() }, ['id', 'total'])), head: response(obj({ id: str() }, ['id'])) },
  { name: 'response: an optional field removed', verdict: 'warning', why: 'a reader of an optional field already handles its absence; the generated `total?: string` disappears, so code naming it stops compiling (a policy rule, default warning, as oasdiff)', oasdiff: 'TestResponseOptionalPropertyUpdatedCheck', base: response(obj({ id: str(), total: str() })), head: response(obj({ id: str() })) },
  { name: 'response: a required field made optional', verdict: 'breaking', why: 'a reader may get undefined', oasdiff: 'TestResponsePropertyBecameOptionalCheck', base: response(obj({ id: str() }, ['id'])), head: response(obj({ id: str() })) },
  { name: 'response: an optional field made required', verdict: 'info', why: 'the field is always present now', oasdiff: 'TestResponsePropertyBecameRequiredlCheck', base: response(obj({ id: str() })), head: response(obj({ id: str() }, ['id'])) },
  { name: 'response: a new required field', verdict: 'info', why: 'a new field arrives; readers that do not know it ignore it', oasdiff: 'TestBreaking_RequiredResponsePropertyAdded', base: response(obj({ id: str() })), head: response(obj({ id: str(), total: str() }, ['total'])) },

  // allOf
  { name: 'request: an allOf part adds a required field', verdict: 'breaking', why: 'a client that does not send the new field is refused', oasdiff: 'TestRequestPropertyAllOfAdded', base: request({ allOf: [ref('Base')] }, schemas({ Base: obj({ sku: str() }), Audit: obj({ reason: str() }, ['reason']) })), head: request({ allOf: [ref('Base'), ref('Audit')] }, schemas({ Base: obj({ sku: str() }), Audit: obj({ reason: str() }, ['reason']) })) },
  { name: 'request: an allOf part that only annotates', verdict: 'none', why: 'a title and a description constrain nothing', oasdiff: 'TestRequestPropertyAllOfAdded_AnnotationOnly_EmitsInfo', base: request(obj({ sku: str() })), head: request({ ...obj({ sku: str() }), allOf: [{ title: 'Order', description: 'an order as sent' }] }) },
  { name: 'request: one schema split into allOf parts with the same meaning', verdict: 'none', why: 'the merged schema accepts the same values', oasdiff: 'TestRequestPropertyAllOfRemoved', base: request(obj({ sku: str(), qty: { type: 'integer' } }, ['sku'])), head: request({ allOf: [obj({ sku: str() }, ['sku']), obj({ qty: { type: 'integer' } })] }) },
  { name: 'response: an allOf part removed takes a field away', verdict: 'breaking', why: 'readers of the removed part\'s field get undefined', oasdiff: 'TestResponsePropertyAllOfRemoved', base: response({ allOf: [ref('Base'), ref('Totals')] }, schemas({ Base: obj({ id: str() }, ['id']), Totals: obj({ total: str() }, ['total']) })), head: response({ allOf: [ref('Base')] }, schemas({ Base: obj({ id: str() }, ['id']), Totals: obj({ total: str() }, ['total']) })) },

  // default
  { name: 'request: a field default changed', verdict: 'warning', why: 'a client that omits the field gets another behaviour', oasdiff: 'TestRequestPropertyDefaultValueChanged', base: request(obj({ speed: str({ default: 'standard' }) })), head: request(obj({ speed: str({ default: 'express' }) })) },
  { name: 'request: a parameter default added', verdict: 'warning', why: 'a client that omits the parameter gets another behaviour (oasdiff: breaking)', oasdiff: 'TestRequestParameterDefaultValueAdded', base: params([{ name: 'limit', in: 'query', schema: { type: 'integer' } }]), head: params([{ name: 'limit', in: 'query', schema: { type: 'integer', default: 20 } }]) },
  { name: 'response: a field default changed', verdict: 'none', why: 'a default tells what a caller may omit; the service always writes its values', oasdiff: 'TestResponsePropertyDefaultValueUpdatedCheck', base: response(obj({ gift: { type: 'boolean', default: false } })), head: response(obj({ gift: { type: 'boolean', default: true } })) },

  // readOnly / writeOnly
  { name: 'request: a new required readOnly field', verdict: 'none', why: 'callers never send a readOnly field', oasdiff: 'TestBreaking_ReadOnlyNewRequiredProperty', base: request(obj({ sku: str() }, ['sku'])), head: request(obj({ sku: str(), id: str({ readOnly: true }) }, ['sku', 'id'])) },
  { name: 'request: a required field became readOnly', verdict: 'warning', why: 'callers no longer send it; one that still does may be ignored', oasdiff: 'TestRequestRequiredPropertyBecameReadOnly', base: request(obj({ sku: str(), id: str() }, ['sku', 'id'])), head: request(obj({ sku: str(), id: str({ readOnly: true }) }, ['sku', 'id'])) },
  { name: 'request: a required readOnly field stopped being readOnly', verdict: 'breaking', why: 'callers must now send a field they never sent', oasdiff: 'TestRequestRequiredPropertyBecameNonReadOnly', base: request(obj({ sku: str(), id: str({ readOnly: true }) }, ['sku', 'id'])), head: request(obj({ sku: str(), id: str() }, ['sku', 'id'])) },
  { name: 'response: a new required writeOnly field', verdict: 'none', why: 'a writeOnly field is never sent in a response', oasdiff: 'TestBreaking_WriteOnlyPropertyRequiredDisabled', base: response(obj({ id: str() }, ['id'])), head: response(obj({ id: str(), secret: str({ writeOnly: true }) }, ['id', 'secret'])) },
  { name: 'response: a field became writeOnly', verdict: 'breaking', why: 'the response stops carrying it, so readers get undefined (oasdiff: info)', oasdiff: 'TestResponseRequiredPropertyBecameWriteOnly', base: response(obj({ id: str(), pin: str() }, ['id', 'pin'])), head: response(obj({ id: str(), pin: str({ writeOnly: true }) }, ['id', 'pin'])) },

  // oneOf / anyOf / discriminator
  { name: 'response: oneOf branches reordered', verdict: 'none', why: 'branches are matched by content, never by position', base: response({ oneOf: [tagged('card', { last4: str() }), tagged('bank', { iban: str() })] }), head: response({ oneOf: [tagged('bank', { iban: str() }), tagged('card', { last4: str() })] }) },
  { name: 'response: a oneOf branch added', verdict: 'breaking', why: 'a reader may get a shape it has no branch for', oasdiff: 'TestResponsePropertyOneOfAdded', base: response({ oneOf: [tagged('card'), tagged('bank')] }), head: response({ oneOf: [tagged('card'), tagged('bank'), tagged('wallet')] }) },
  { name: 'response: a oneOf branch removed', verdict: 'info', why: 'one shape no longer arrives', oasdiff: 'TestResponsePropertyOneOfRemoved', base: response({ oneOf: [tagged('card'), tagged('bank'), tagged('wallet')] }), head: response({ oneOf: [tagged('card'), tagged('bank')] }) },
  { name: 'response: an anyOf branch added', verdict: 'breaking', why: 'a value may match only the new branch (oasdiff: info)', oasdiff: 'TestResponsePropertyAnyOfAdded', base: response(obj({ pay: { anyOf: [tagged('card'), tagged('bank')] } })), head: response(obj({ pay: { anyOf: [tagged('card'), tagged('bank'), tagged('wallet')] } })) },
  { name: 'request: a oneOf branch added', verdict: 'info', why: 'one more shape is accepted', oasdiff: 'TestRequestPropertyOneOfAdded', base: request({ oneOf: [tagged('card'), tagged('bank')] }), head: request({ oneOf: [tagged('card'), tagged('bank'), tagged('wallet')] }) },
  { name: 'request: a oneOf branch removed', verdict: 'breaking', why: 'a client that sends that shape is refused', oasdiff: 'TestBreaking_RequestPropertyOneOfRemoved', base: request({ oneOf: [tagged('card'), tagged('bank')] }), head: request({ oneOf: [tagged('card')] }) },
  { name: 'request: a schema wrapped in overlapping oneOf branches', verdict: 'breaking', why: 'a body with both fields matches both branches, and oneOf refuses it', oasdiff: 'TestRequestPropertyOneOfWrappingIsBreaking', base: request(obj({ email: str(), phone: str() }, ['email', 'phone'])), head: request({ oneOf: [obj({ email: str(), phone: str() }, ['email']), obj({ email: str(), phone: str() }, ['phone'])] }) },
  { name: 'request: an anyOf branch swapped for a component of the same content', verdict: 'none', why: 'the same values are accepted under another name', oasdiff: 'TestRequestBodyAnyOfMultiMediaTypeDetails', base: request({ anyOf: [ref('Card'), ref('Bank')] }, schemas({ Card: tagged('card'), Bank: tagged('bank'), Account: tagged('bank') })), head: request({ anyOf: [ref('Card'), ref('Account')] }, schemas({ Card: tagged('card'), Bank: tagged('bank'), Account: tagged('bank') })) },
  { name: 'request: an inline anyOf enum moved into a component', verdict: 'none', why: 'a refactoring: the same values, now named', oasdiff: 'TestRequestPropertyAnyOfInlineEnumRefactorToRef', base: request(obj({ role: { anyOf: [str({ enum: ['user', 'admin'] }), { type: 'null' }] } })), head: request(obj({ role: { anyOf: [ref('Role'), { type: 'null' }] } }), schemas({ Role: str({ enum: ['user', 'admin'] }) })) },
  { name: 'response: a discriminator added to the same branches', verdict: 'none', why: 'the values sent do not change', oasdiff: 'TestResponseDiscriminatorUpdatedCheckAdded', base: response({ oneOf: [ref('Card'), ref('Bank')] }, schemas({ Card: tagged('card'), Bank: tagged('bank') })), head: response({ oneOf: [ref('Card'), ref('Bank')], discriminator: { propertyName: 'kind' } }, schemas({ Card: tagged('card'), Bank: tagged('bank') })) },
  { name: 'response: the discriminator property renamed', verdict: 'breaking', why: 'readers that dispatch on `kind` no longer find it', oasdiff: 'TestResponseDiscriminatorUpdatedCheckPropertyNameChanging', base: response({ oneOf: [ref('Card'), ref('Bank')], discriminator: { propertyName: 'kind' } }, schemas({ Card: tagged('card'), Bank: tagged('bank') })), head: response({ oneOf: [ref('Card'), ref('Bank')], discriminator: { propertyName: 'type' } }, schemas({ Card: obj({ type: { const: 'card' } }, ['type']), Bank: obj({ type: { const: 'bank' } }, ['type']) })) },

  // Media types
  { name: 'response: a media type removed', verdict: 'breaking', why: 'a client that asks for CSV no longer gets it', oasdiff: 'TestBreaking_ResponseDeleteMediaType', base: answer({ content: { ...json(obj({ id: str() })), 'text/csv': { schema: str() } } }), head: answer({ content: json(obj({ id: str() })) }) },
  { name: 'response: a media type added', verdict: 'info', why: 'a client may ask for the new one', oasdiff: 'TestBreaking_ResponseAddMediaType', base: answer({ content: json(obj({ id: str() })) }), head: answer({ content: { ...json(obj({ id: str() })), 'application/xml': { schema: obj({ id: str() }) } } }) },
  { name: 'request: a media type removed', verdict: 'breaking', why: 'a client that sends form data is refused', oasdiff: 'TestBreaking_RequestBodyMediaTypeRemoved', base: doc({ '/orders': { post: { operationId: 'createOrder', requestBody: { required: true, content: { ...json(obj({ sku: str() })), 'application/x-www-form-urlencoded': { schema: obj({ sku: str() }) } } }, responses: { 201: { description: 'Created' } } } } }), head: request(obj({ sku: str() })) },
  { name: 'request: an XML body changed from object to string', verdict: 'info', why: 'XML is text on the wire: whatever was sent is still a string', oasdiff: 'TestRequestBodyTypeLooselyTypedCompatible', base: doc({ '/orders': { post: { requestBody: { content: { 'application/xml': { schema: { type: 'object' } } } }, responses: { 201: { description: 'Created' } } } } }), head: doc({ '/orders': { post: { requestBody: { content: { 'application/xml': { schema: str() } } }, responses: { 201: { description: 'Created' } } } } }) },
  { name: 'request: a JSON body changed from object to string', verdict: 'breaking', why: 'JSON is typed: a client that sends an object is refused', oasdiff: 'TestRequestBodyTypeLooselyTypedCompatible', base: request({ type: 'object' }), head: request(str()) },
  { name: 'response: an XML body changed from string to object', verdict: 'info', why: 'a reader of XML text still reads text', oasdiff: 'TestResponseBodyTypeLooselyTypedCompatible', base: answer({ content: { 'application/xml': { schema: str() } } }), head: answer({ content: { 'application/xml': { schema: { type: 'object' } } } }) },
  { name: 'response: a media type without a schema gets one', verdict: 'info', why: 'the answer was any value; now it is described, which only narrows it', oasdiff: 'TestMediaTypeSchemaExistence', base: answer({ content: { 'application/json': {} } }), head: answer({ content: json(obj({ id: str() })) }) },

  // Security
  { name: 'security: an open operation now requires a token', verdict: 'breaking', why: 'a client that sends no credentials gets 401 (oasdiff: info)', oasdiff: 'TestAPISecurityAdded', base: secured(undefined), head: secured([{ bearer: [] }]) },
  { name: 'security: a requirement removed', verdict: 'info', why: 'credentials are no longer needed', oasdiff: 'TestAPISecurityDeleted', base: secured([{ bearer: [] }]), head: secured(undefined) },
  { name: 'security: a scope added', verdict: 'breaking', why: 'a token without the new scope is refused (oasdiff: info)', oasdiff: 'TestAPISecurityScopeAdded', base: secured([{ oauth: ['orders:read'] }], { oauth: { type: 'oauth2', flows: {} } }), head: secured([{ oauth: ['orders:read', 'orders:admin'] }], { oauth: { type: 'oauth2', flows: {} } }) },
  { name: 'security: a scope removed', verdict: 'info', why: 'more tokens are accepted', oasdiff: 'TestAPISecurityScopeRemoved', base: secured([{ oauth: ['orders:read', 'orders:admin'] }], { oauth: { type: 'oauth2', flows: {} } }), head: secured([{ oauth: ['orders:read'] }], { oauth: { type: 'oauth2', flows: {} } }) },
  { name: 'security: a bearer scheme replaced by an API-key header', verdict: 'breaking', why: 'a client that authenticates the old way is refused', oasdiff: 'TestComponentSecurityTypeUpdated', base: secured([{ auth: [] }], { auth: { type: 'http', scheme: 'bearer' } }), head: secured([{ auth: [] }], { auth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } }) },

  // Response headers and links
  { name: 'response: a required header removed', verdict: 'breaking', why: 'a reader of the header gets nothing', oasdiff: 'TestBreaking_ResponseHeaderRemoved', base: answer({ headers: { 'X-Request-Id': { required: true, schema: str() } } }), head: answer({}) },
  { name: 'response: an optional header removed', verdict: 'warning', why: 'a reader that uses the header when present stops getting it', oasdiff: 'TestBreaking_OptionalResponseHeaderRemoved', base: answer({ headers: { 'X-Rate-Remaining': { schema: { type: 'integer' } } } }), head: answer({}) },
  { name: 'response: a required header became optional', verdict: 'breaking', why: 'a reader may get nothing', oasdiff: 'TestBreaking_ResponseHeaderParamRequiredDisabled', base: answer({ headers: { 'X-Request-Id': { required: true, schema: str() } } }), head: answer({ headers: { 'X-Request-Id': { schema: str() } } }) },
  { name: 'response: a header added', verdict: 'info', why: 'a new header can be read', oasdiff: 'TestBreaking_NewRequiredResponseHeader', base: answer({}), head: answer({ headers: { 'X-Request-Id': { required: true, schema: str() } } }) },
  { name: 'response: a header value type changed', verdict: 'breaking', why: 'a reader that parses the header as a number gets text', base: answer({ headers: { 'X-Rate-Remaining': { required: true, schema: { type: 'integer' } } } }), head: answer({ headers: { 'X-Rate-Remaining': { required: true, schema: str({ format: 'uuid' }) } } }) },
  { name: 'response: a link points at another operation', verdict: 'warning', why: 'a tool that follows the link calls something else', oasdiff: 'TestBreaking_LinkOperationID', base: answer({ links: { next: { operationId: 'getOrder' } } }), head: answer({ links: { next: { operationId: 'getInvoice' } } }) },
  { name: 'response: a link removed', verdict: 'warning', why: 'a tool that follows the link can no longer find the next call', base: answer({ links: { next: { operationId: 'getOrder' } } }), head: answer({}) },

  // Parameters
  { name: 'parameter: a new required query parameter', verdict: 'breaking', why: 'a client that does not send it is refused', oasdiff: 'TestNewRequestNonPathParameter_DetectsNewRequiredPathsAndNewOperations', base: params([]), head: params([{ name: 'store', in: 'query', required: true, schema: str() }]) },
  { name: 'parameter: a new optional query parameter', verdict: 'info', why: 'callers may send it', oasdiff: 'TestNewRequestNonPathParameter_DetectsNewPathsAndNewOperations', base: params([]), head: params([{ name: 'store', in: 'query', schema: str() }]) },
  { name: 'parameter: a query parameter removed', verdict: 'warning', why: 'a client still sending it may be ignored or refused', oasdiff: 'TestBreaking_DeletedParameter', base: params([{ name: 'store', in: 'query', schema: str() }]), head: params([]) },
  { name: 'parameter: a header parameter made required', verdict: 'breaking', why: 'a client that omits the header is refused', oasdiff: 'TestBreaking_HeaderParamRequiredEnabled', base: params([{ name: 'X-Store', in: 'header', schema: str() }]), head: params([{ name: 'X-Store', in: 'header', required: true, schema: str() }]) },
  { name: 'parameter: a header made optional', verdict: 'none', why: 'every request that was valid still is', oasdiff: 'TestBreaking_HeaderParamBecameOptional', base: params([{ name: 'X-Store', in: 'header', required: true, schema: str() }]), head: params([{ name: 'X-Store', in: 'header', schema: str() }]) },
  { name: 'parameter: a query parameter became an enum', verdict: 'breaking', why: 'a client that sends another value is refused', oasdiff: 'TestRequestParameterBecameEnum', base: params([{ name: 'sort', in: 'query', schema: str() }]), head: params([{ name: 'sort', in: 'query', schema: str({ enum: ['new', 'old'] }) }]) },
  { name: 'parameter: an array parameter maxItems lowered', verdict: 'breaking', why: 'a client that filters by five values is refused', oasdiff: 'TestRequestParameterMaxItemsDecreased', base: params([{ name: 'status', in: 'query', schema: { type: 'array', items: str(), maxItems: 5 } }]), head: params([{ name: 'status', in: 'query', schema: { type: 'array', items: str(), maxItems: 2 } }]) },
  { name: 'parameter: a scalar became an array with minItems 2', verdict: 'breaking', why: 'a client that sends one value is refused', oasdiff: 'TestRequestQueryParamScalarToConstrainedArrayBreaking', base: params([{ name: 'id', in: 'query', schema: str() }]), head: params([{ name: 'id', in: 'query', schema: { type: 'array', items: str(), minItems: 2 } }]) },
  { name: 'parameter: a query parameter from integer to string', verdict: 'info', why: 'a query value is text on the wire: `?limit=20` is still accepted', base: params([{ name: 'limit', in: 'query', schema: { type: 'integer' } }]), head: params([{ name: 'limit', in: 'query', schema: str() }]) },
  { name: 'parameter: a query parameter from string to integer', verdict: 'breaking', why: '`?limit=all` is refused', base: params([{ name: 'limit', in: 'query', schema: str() }]), head: params([{ name: 'limit', in: 'query', schema: { type: 'integer' } }]) },
  { name: 'parameter: a path parameter renamed', verdict: 'none', why: 'the URL a client builds is the same', oasdiff: 'TestBreaking_PathParamRename', base: doc({ '/orders/{id}': { get: { operationId: 'getOrder', parameters: [{ name: 'id', in: 'path', required: true, schema: str() }], responses: { 200: { description: 'OK' } } } } }), head: doc({ '/orders/{orderId}': { get: { operationId: 'getOrder', parameters: [{ name: 'orderId', in: 'path', required: true, schema: str() }], responses: { 200: { description: 'OK' } } } } }) },

  // Operations and statuses
  { name: 'an operation removed', verdict: 'breaking', why: 'a client that calls it gets 404', oasdiff: 'TestBreaking_DeletedPath', base: params([]), head: doc({}) },
  { name: 'an operation added', verdict: 'info', why: 'a new call is available', oasdiff: 'TestApiAdded_DetectsNewPathsAndNewOperations', base: doc({}), head: params([]) },
  { name: 'an operation deprecated', verdict: 'warning', why: 'callers should move off it before it goes', oasdiff: 'TestApiDeprecated_DetectsDeprecatedOperations', base: params([]), head: doc({ '/orders': { get: { operationId: 'listOrders', deprecated: true, responses: { 200: { description: 'OK' } } } } }) },
  { name: 'a deprecated operation removed before its sunset date', verdict: 'breaking', why: 'callers were promised it until the date', base: doc({ '/orders': { get: { operationId: 'listOrders', deprecated: true, 'x-sunset': '2999-12-31', responses: { 200: { description: 'OK' } } } } }), head: doc({}) },
  { name: 'a deprecated operation removed after its sunset date', verdict: 'warning', why: 'the deprecation and its date were the notice', oasdiff: 'TestBreaking_DeprecationPast', base: doc({ '/orders': { get: { operationId: 'listOrders', deprecated: true, 'x-sunset': '2000-01-01', responses: { 200: { description: 'OK' } } } } }), head: doc({}) },
  { name: 'a deprecated operation removed after the date of its Sunset header', verdict: 'warning', why: 'the header announced the date', base: doc({ '/orders': { get: { operationId: 'listOrders', deprecated: true, responses: { 200: { description: 'OK', headers: { Sunset: { schema: str({ example: '2000-01-01' }) } } } } } } }), head: doc({}) },
  { name: 'an operation removed that was never deprecated, with a past x-sunset', verdict: 'breaking', why: 'a sunset date without a deprecation is no notice', base: doc({ '/orders': { get: { operationId: 'listOrders', 'x-sunset': '2000-01-01', responses: { 200: { description: 'OK' } } } } }), head: doc({}) },
  { name: 'an operationId renamed', verdict: 'warning', why: 'the call is the same on the wire; code generated from the id is renamed (a policy rule, default warning)', base: params([]), head: doc({ '/orders': { get: { operationId: 'listAllOrders', responses: { 200: { description: 'OK' } } } } }) },
  { name: 'the success status changed from 200 to 201', verdict: 'breaking', why: 'a client that checks for 200 treats the answer as a failure', oasdiff: 'TestBreaking_ResponseSuccessStatusUpdated', base: answer({}), head: doc({ '/orders/{id}': { get: { operationId: 'getOrder', parameters: [{ name: 'id', in: 'path', required: true, schema: str() }], responses: { 201: { description: 'OK' } } } } }) },
  { name: 'a request body removed', verdict: 'warning', why: 'the service may ignore a body still sent, or refuse it', oasdiff: 'TestRequestBodyRemoved', base: request(obj({ sku: str() })), head: doc({ '/orders': { post: { operationId: 'createOrder', responses: { 201: { description: 'Created' } } } } }) },

  // Webhooks (the receiver reads the payload: a response's polarity)
  { name: 'webhook: a payload field removed', verdict: 'breaking', why: 'a receiver that reads the field gets undefined (oasdiff judges payloads as requests)', oasdiff: 'TestWebhookOperationChangesDetected', base: hook(obj({ id: str(), carrier: str() }, ['id', 'carrier'])), head: hook(obj({ id: str() }, ['id'])) },
  { name: 'webhook: a payload field added', verdict: 'info', why: 'a receiver that does not know the field ignores it', base: hook(obj({ id: str() }, ['id'])), head: hook(obj({ id: str(), carrier: str() }, ['id'])) },
  { name: 'webhook: an event removed', verdict: 'breaking', why: 'a receiver waiting for it never gets it again', oasdiff: 'TestWebhookAddedAndRemoved', base: hook(obj({ id: str() })), head: hook(null) },
  { name: 'webhook: an enum value added to the payload', verdict: 'warning', why: 'an exhaustive switch in the receiver meets a value it does not handle', base: hook(obj({ status: str({ enum: ['shipped'] }) })), head: hook(obj({ status: str({ enum: ['shipped', 'lost'] }) })) },

  // 3.1 sub-schemas and `not`
  { name: 'request: a required field added under `then`', verdict: 'breaking', why: 'a body that meets `if` must now carry the field', oasdiff: 'TestSubSchemaTraversalAddedProperty', base: request({ type: 'object', if: obj({ kind: { const: 'gift' } }, ['kind']), then: obj({ note: str() }) }), head: request({ type: 'object', if: obj({ kind: { const: 'gift' } }, ['kind']), then: obj({ note: str(), to: str() }, ['to']) }) },
  { name: 'request: minLength raised inside `contains`', verdict: 'breaking', why: 'a list whose only matching item is short is refused', oasdiff: 'TestSubSchemaTraversalMinLengthChanged', base: request(obj({ tags: { type: 'array', contains: str({ minLength: 1 }) } })), head: request(obj({ tags: { type: 'array', contains: str({ minLength: 3 }) } })) },
  { name: 'request: a prefixItems entry added', verdict: 'breaking', why: 'the first item is now constrained', oasdiff: 'TestRequestBodyPrefixItemsAdded', base: request(obj({ pair: { type: 'array' } })), head: request(obj({ pair: { type: 'array', prefixItems: [str()] } })) },
  { name: 'request: a patternProperties entry removed', verdict: 'info', why: 'fields matching the pattern are free now', oasdiff: 'TestRequestBodyPatternPropertyRemoved', base: request(obj({}, [], { patternProperties: { '^x-': str() } })), head: request(obj({})) },
  { name: 'request: the schema under `not` changed', verdict: 'breaking', why: 'a body the old exclusion let through may be excluded now', oasdiff: 'TestNotSubSchemaTraversalModifiedProperty', base: request({ type: 'object', not: obj({}, ['legacy']) }), head: request({ type: 'object', not: obj({}, ['coupon']) }) },

  // Examples, renames
  { name: 'response: an example that no longer matches its schema', verdict: 'warning', why: 'an integrator who copies the documented example gets an error', base: answer({ content: { 'application/json': { schema: obj({ id: str() }), example: { id: 'o_1' } } } }), head: answer({ content: { 'application/json': { schema: obj({ id: str(), total: str() }, ['id', 'total']), example: { id: 'o_1' } } } }) },
  { name: 'response: the body now named by another component of the same content', verdict: 'warning', why: 'code that annotated the old type name must follow', base: response(ref('Order'), schemas({ Order: obj({ id: str() }) })), head: response(ref('PlacedOrder'), schemas({ PlacedOrder: obj({ id: str() }) })) },
  { name: 'a component moved and referenced by $ref instead of inline', verdict: 'none', why: 'layout is not a change', base: response(obj({ id: str() })), head: response(ref('Order'), schemas({ Order: obj({ id: str() }) })) },
];

function verdict(changes: Change[]): Verdict {
  return NAMES[Math.max(0, ...changes.filter((c) => c.id !== 'type-added' && c.id !== 'type-removed').map((c) => RANK[c.level]))]!;
}

describe('our own corpus of base/revision pairs', () => {
  it('has at least 60 pairs, each with a reason, covering the rule families of oasdiff\'s corpus', () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(PAIRS.map((p) => p.name)).size).toBe(PAIRS.length);
    for (const p of PAIRS) expect(p.why.length).toBeGreaterThan(10);
    const text = PAIRS.map((p) => `${p.name} ${JSON.stringify(p.base)} ${JSON.stringify(p.head)}`).join('\n');
    for (const family of ['allOf', 'default', 'readOnly', 'writeOnly', 'discriminator', 'oneOf', 'anyOf', 'application/xml', 'security', 'headers', 'links', 'parameters', 'enum', 'pattern', 'maxLength', 'minimum', 'nullable', '"null"', 'x-webhooks', '"webhooks"', 'then', 'not']) {
      expect(text, family).toContain(family);
    }
  });

  it('every pair gets the verdict a careful integrator expects', () => {
    const wrong: string[] = [];
    for (const p of PAIRS) {
      const changes = diffModels({ document: p.base }, { document: p.head });
      const got = verdict(changes);
      if (got !== p.verdict) wrong.push(`${p.name}: expected ${p.verdict} (${p.why}), got ${got}: ${changes.map((c) => `${c.id} ${c.location.field ?? ''}`).join('; ')}`);
    }
    console.log(`our corpus: ${PAIRS.length - wrong.length}/${PAIRS.length} pairs get the expected verdict; ${PAIRS.filter((p) => p.oasdiff).length} of them written after an oasdiff checker test`);
    expect(wrong).toEqual([]);
  });
});
