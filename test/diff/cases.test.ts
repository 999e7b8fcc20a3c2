/**
 * The case table: one before/after pair per check and polarity, each derived from the real spec (a loaded copy of
 * spec/openapi.yaml mutated in memory), asserting the check id, its level and where it is reported. `also` lists
 * the other ids the same edit legitimately produces; anything else reported fails the case, so a check that fires
 * where it should not is caught too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS, diffModels, runDiff, type Change, type CheckId, type Level } from '../../generators/diff/index.js';
import type { ApiModel, LoadedSpec } from '../../generators/model/index.js';
import { op, param, realSpec, schemas, variant } from './helpers.js';

interface Case {
  name: string;
  id: CheckId;
  level: Level;
  at?: { operation?: string; event?: string };
  head?: (doc: any) => void;
  base?: (doc: any) => void;
  also?: CheckId[];
}

const S = schemas;
const CARD = '/cards/{uuid}';
const errorBody = { description: 'Unavailable.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** `CardTransaction.merchant` as a oneOf of named object branches (`Merchant`, and variants told apart by `channel`). */
function merchantBranches(d: any, names: string[]): void {
  const channel: Record<string, string> = { OnlineMerchant: 'online', PhoneMerchant: 'phone' };
  for (const name of Object.keys(channel)) {
    S(d)[name] = { type: 'object', required: ['channel', 'name'], properties: { channel: { const: channel[name] }, name: { type: 'string' }, [`${channel[name]}_ref`]: { type: 'string' } } };
  }
  for (const name of Object.keys(channel)) if (!names.includes(name)) delete S(d)[name];
  S(d).CardTransaction.properties.merchant = { oneOf: names.map((n) => ({ $ref: `#/components/schemas/${n}` })) };
}

/** A second media type with the JSON one's schema. */
function addMedia(content: any, type: string): void {
  content[type] = { schema: structuredClone(content['application/json'].schema) };
}

const CASES: Case[] = [
  // Operations
  { name: 'an operation removed', id: 'operation-removed', level: 'breaking', at: { operation: 'getWallet' }, head: (d) => delete d.paths['/wallet'].get },
  {
    name: 'an operation added',
    id: 'operation-added',
    level: 'info',
    at: { operation: 'getWalletLimits' },
    head: (d) => {
      d.paths['/wallet/limits'] = structuredClone(d.paths['/wallet']);
      d.paths['/wallet/limits'].get.operationId = 'getWalletLimits';
      d.paths['/wallet/limits'].get['x-client'] = { resource: 'wallet', method: 'limits' };
    },
  },
  { name: 'an operationId renamed', id: 'operation-id-changed', level: 'warning', at: { operation: 'getWallet' }, head: (d) => (op(d, '/wallet').operationId = 'readWallet') },
  {
    name: 'a method changed',
    id: 'operation-method-changed',
    level: 'breaking',
    at: { operation: 'freezeCard' },
    head: (d) => {
      d.paths[`${CARD}/freeze`].put = d.paths[`${CARD}/freeze`].post;
      delete d.paths[`${CARD}/freeze`].post;
    },
  },
  {
    name: 'a path changed',
    id: 'operation-path-changed',
    level: 'breaking',
    at: { operation: 'freezeCard' },
    head: (d) => {
      d.paths[`${CARD}/frozen`] = d.paths[`${CARD}/freeze`];
      delete d.paths[`${CARD}/freeze`];
    },
  },
  { name: 'a client method renamed', id: 'client-method-renamed', level: 'breaking', at: { operation: 'listCards' }, head: (d) => (op(d, '/cards')['x-client'].method = 'all') },
  { name: 'an operation deprecated', id: 'operation-deprecated', level: 'warning', at: { operation: 'getCard' }, head: (d) => (op(d, CARD).deprecated = true) },
  {
    name: 'a deprecated operation removed before its sunset date',
    id: 'operation-removed-before-sunset',
    level: 'breaking',
    at: { operation: 'getWallet' },
    base: (d) => Object.assign(d.paths['/wallet'].get, { deprecated: true, 'x-sunset': '2999-12-31' }),
    head: (d) => delete d.paths['/wallet'].get,
  },
  {
    name: 'a deprecated operation removed after its sunset date',
    id: 'deprecated-operation-removed',
    level: 'warning',
    at: { operation: 'getWallet' },
    base: (d) => Object.assign(d.paths['/wallet'].get, { deprecated: true, 'x-sunset': '2000-01-01' }),
    head: (d) => delete d.paths['/wallet'].get,
  },
  // Parameters
  {
    name: 'a new required query parameter',
    id: 'request-parameter-added-required',
    level: 'breaking',
    at: { operation: 'listCards' },
    head: (d) => op(d, '/cards').parameters.push({ name: 'currency', in: 'query', required: true, description: 'x', schema: { type: 'string' } }),
  },
  { name: 'a query parameter made required', id: 'request-parameter-became-required', level: 'breaking', at: { operation: 'listCards' }, head: (d) => (param(d, '/cards', 'get', 'search').required = true) },
  {
    name: 'a new optional query parameter',
    id: 'request-parameter-added',
    level: 'info',
    at: { operation: 'listCards' },
    head: (d) => op(d, '/cards').parameters.push({ name: 'sort', in: 'query', description: 'x', schema: { type: 'string' } }),
  },
  {
    name: 'a query parameter removed',
    id: 'request-parameter-removed',
    level: 'warning',
    at: { operation: 'listCards' },
    head: (d) => (op(d, '/cards').parameters = op(d, '/cards').parameters.filter((p: any) => p.name !== 'search')),
  },
  { name: 'a parameter default changed', id: 'request-parameter-default-changed', level: 'warning', at: { operation: 'listOrders' }, head: (d) => (d.components.parameters.Page.schema.default = 2) },
  { name: 'the default per_page changed', id: 'pagination-default-per-page-changed', level: 'breaking', at: { operation: 'listCards' }, head: (d) => (d.components.parameters.PerPage.schema.default = 20) },
  {
    name: 'a new required header',
    id: 'request-header-added-required',
    level: 'breaking',
    at: { operation: 'getWallet' },
    head: (d) => (op(d, '/wallet').parameters = [{ name: 'X-Workspace', in: 'header', required: true, description: 'x', schema: { type: 'string' } }]),
  },
  { name: 'a header made required', id: 'request-header-became-required', level: 'breaking', at: { operation: 'createCard' }, head: (d) => (d.components.parameters.IdempotencyKeyIssue.required = true) },
  { name: 'an optional body made required', id: 'request-body-became-required', level: 'breaking', at: { operation: 'freezeCard' }, head: (d) => (d.components.requestBodies.CardActionRequest.required = true) },
  { name: 'a request body removed', id: 'request-body-removed', level: 'warning', at: { operation: 'closeCard' }, head: (d) => delete op(d, `${CARD}/close`, 'post').requestBody },
  // Request body fields (request polarity: tightening breaks)
  {
    name: 'request: a new required field',
    id: 'request-body-field-added-required',
    level: 'breaking',
    at: { operation: 'createCard' },
    head: (d) => {
      S(d).CreateCardRequest.properties.nickname = { type: 'string' };
      S(d).CreateCardRequest.required.push('nickname');
    },
    also: ['example-no-longer-valid'],
  },
  { name: 'request: a field made required', id: 'request-body-field-became-required', level: 'breaking', at: { operation: 'createCard' }, head: (d) => S(d).CreateCardRequest.required.push('notes') },
  { name: 'request: a new optional field', id: 'request-body-field-added', level: 'info', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.nickname = { type: 'string' }) },
  { name: 'request: a field default changed', id: 'request-default-changed', level: 'warning', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.notes.default = 'none') },
  { name: 'request: a field removed', id: 'request-body-field-removed', level: 'warning', at: { operation: 'createCard' }, head: (d) => delete S(d).CreateCardRequest.properties.notes, also: ['example-no-longer-valid'] },
  {
    name: 'request: a field made optional',
    id: 'request-body-field-became-optional',
    level: 'info',
    at: { operation: 'createCard' },
    head: (d) => (S(d).CreateCardRequest.required = S(d).CreateCardRequest.required.filter((n: string) => n !== 'cardholder_last_name')),
  },
  { name: 'request: a type changed', id: 'request-type-changed', level: 'breaking', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.card_product_id.type = 'string'), also: ['example-no-longer-valid'] },
  { name: 'request: a type widened', id: 'request-type-widened', level: 'info', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.card_product_id.type = 'number') },
  { name: 'request: a format added', id: 'request-format-changed', level: 'breaking', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.purpose.format = 'email') },
  { name: 'request: a format removed', id: 'request-format-removed', level: 'info', at: { operation: 'getCard' }, head: (d) => delete d.components.parameters.CardUuid.schema.format },
  { name: 'request: a pattern changed', id: 'request-pattern-changed', level: 'breaking', at: { operation: 'createCard' }, head: (d) => (d.components.schemas.IdempotencyKey.pattern = '^[A-Za-z0-9-]+$') },
  { name: 'request: a pattern removed', id: 'request-pattern-relaxed', level: 'info', at: { operation: 'topupCard' }, head: (d) => delete d.components.schemas.IdempotencyKey.pattern },
  {
    name: 'request: a pattern only widened',
    id: 'request-pattern-relaxed',
    level: 'info',
    at: { operation: 'listCards' },
    base: (d) => (param(d, '/cards', 'get', 'search').schema.pattern = '^[a-z]{1,2}$'),
    head: (d) => (param(d, '/cards', 'get', 'search').schema.pattern = '^[a-z]{1,8}$'),
  },
  {
    name: 'request: an enum value removed',
    id: 'request-enum-value-removed',
    level: 'breaking',
    at: { operation: 'listCards' },
    base: (d) => (param(d, '/cards', 'get', 'search').schema.enum = ['a', 'b']),
    head: (d) => (param(d, '/cards', 'get', 'search').schema.enum = ['a']),
  },
  {
    name: 'request: an enum value added',
    id: 'request-enum-value-added',
    level: 'info',
    at: { operation: 'listCards' },
    base: (d) => (param(d, '/cards', 'get', 'search').schema.enum = ['a']),
    head: (d) => (param(d, '/cards', 'get', 'search').schema.enum = ['b', 'a']),
  },
  { name: 'request: maxLength lowered', id: 'request-max-length-decreased', level: 'breaking', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.purpose.maxLength = 100) },
  { name: 'request: maximum lowered', id: 'request-maximum-decreased', level: 'breaking', at: { operation: 'listCards' }, head: (d) => (d.components.parameters.PerPage.schema.maximum = 50) },
  { name: 'request: minLength raised', id: 'request-min-length-increased', level: 'breaking', at: { operation: 'listCards' }, head: (d) => (param(d, '/cards', 'get', 'search').schema.minLength = 3) },
  { name: 'request: minimum raised', id: 'request-minimum-increased', level: 'breaking', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.card_product_id.minimum = 2) },
  { name: 'request: maxItems added', id: 'request-constraint-tightened', level: 'breaking', at: { operation: 'listCards' }, head: (d) => (param(d, '/cards', 'get', 'status').schema.maxItems = 2) },
  { name: 'request: maxLength raised', id: 'request-constraint-relaxed', level: 'info', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.purpose.maxLength = 500) },
  { name: 'request: null no longer accepted', id: 'request-nullable-removed', level: 'breaking', at: { operation: 'freezeCard' }, head: (d) => (S(d).CardActionRequest.properties.reason.type = 'string') },
  { name: 'request: null now accepted', id: 'request-nullable-added', level: 'info', at: { operation: 'createCard' }, head: (d) => (S(d).CreateCardRequest.properties.purpose.type = ['string', 'null']) },
  { name: 'request: additionalProperties false added', id: 'request-additional-properties-closed', level: 'breaking', at: { operation: 'createCard' }, base: (d) => delete S(d).CreateCardRequest.additionalProperties },
  // Responses (response polarity: loosening breaks)
  {
    name: 'the success status changed',
    id: 'response-success-status-changed',
    level: 'breaking',
    at: { operation: 'createCard' },
    head: (d) => {
      op(d, '/cards', 'post').responses['201'] = op(d, '/cards', 'post').responses['202'];
      delete op(d, '/cards', 'post').responses['202'];
    },
  },
  { name: 'an error status removed', id: 'response-error-status-removed', level: 'breaking', at: { operation: 'createCard' }, head: (d) => delete op(d, '/cards', 'post').responses['402'], also: ['response-error-code-removed'] },
  { name: 'an error status added', id: 'response-error-status-added', level: 'info', at: { operation: 'getWallet' }, head: (d) => (op(d, '/wallet').responses['503'] = errorBody) },
  { name: 'an error range (5XX) added', id: 'response-error-status-added', level: 'info', at: { operation: 'ping' }, base: (d) => delete op(d, '/ping').responses['5XX'], head: (d) => (op(d, '/ping').responses['5XX'] = errorBody) },
  { name: 'an error code no longer documented', id: 'response-error-code-removed', level: 'warning', at: { operation: 'listCards' }, head: (d) => delete d.components.responses.Forbidden.content['application/json'].examples.ip_not_allowed },
  {
    name: 'an error code newly documented',
    id: 'response-error-code-added',
    level: 'info',
    at: { operation: 'createCard' },
    head: (d) => (d.components.responses.ValidationFailed.content['application/json'].examples.limit = { value: { error: { code: 'card.limit_exceeded', message: 'x', request_id: null } } }),
    also: ['example-no-longer-valid'],
  },
  {
    name: 'the success body no longer JSON',
    id: 'response-body-changed',
    level: 'breaking',
    at: { operation: 'getWallet' },
    head: (d) => (op(d, '/wallet').responses['200'] = { description: 'The wallet.' }),
    also: ['response-optional-header-removed'],
  },
  {
    name: 'a paginated list no longer paginated',
    id: 'pagination-envelope-changed',
    level: 'breaking',
    at: { operation: 'listOrders' },
    head: (d) => (op(d, '/orders').responses['200'].content['application/json'].schema = { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Order' } } } }),
    also: ['response-field-removed'],
  },
  { name: 'response: an optional field removed', id: 'response-optional-field-removed', level: 'warning', at: { operation: 'getOrder' }, head: (d) => delete S(d).Order.properties.related_card_id },
  {
    name: 'response: a required field removed',
    id: 'response-field-removed',
    level: 'breaking',
    at: { operation: 'getOrder' },
    head: (d) => {
      delete S(d).Order.properties.failure_reason;
      S(d).Order.required = S(d).Order.required.filter((n: string) => n !== 'failure_reason');
    },
    also: ['example-no-longer-valid'],
  },
  {
    name: 'response: a field made optional',
    id: 'response-field-became-optional',
    level: 'breaking',
    at: { operation: 'createCard' },
    head: (d) => (S(d).AcceptedOrder.required = S(d).AcceptedOrder.required.filter((n: string) => n !== 'held_amount')),
  },
  { name: 'response: a field made nullable', id: 'response-field-became-nullable', level: 'breaking', at: { operation: 'getCard' }, head: (d) => (S(d).Card.properties.pan_last4.type = ['string', 'null']) },
  {
    name: 'response: a field retyped',
    id: 'response-type-changed',
    level: 'breaking',
    at: { operation: 'getOrder' },
    head: (d) => (S(d).Order.properties.created_at = { type: 'integer' }),
    also: ['example-no-longer-valid', 'response-format-removed'],
  },
  {
    name: 'response: a type narrowed',
    id: 'response-type-narrowed',
    level: 'info',
    at: { operation: 'listLedgerEntries' },
    base: (d) => (S(d).LedgerEntry.properties.account_code.type = ['string', 'integer', 'null']),
  },
  { name: 'response: a format changed', id: 'response-format-changed', level: 'breaking', at: { operation: 'getOrder' }, head: (d) => (S(d).Order.properties.created_at.format = 'date') },
  { name: 'response: a format removed', id: 'response-format-removed', level: 'warning', at: { operation: 'getOrder' }, head: (d) => delete S(d).Order.properties.created_at.format },
  {
    name: 'response: a new enum value',
    id: 'response-enum-value-added',
    level: 'warning',
    at: { operation: 'listCardConsumptionBills' },
    head: (d) => {
      S(d).ConsumptionBillKind.enum.push('fee');
      S(d).ConsumptionBillKind['x-enumDescriptions'].fee = 'A fee.';
    },
  },
  { name: 'response: an enum value removed', id: 'response-enum-value-removed', level: 'info', at: { operation: 'listCardConsumptionBills' }, head: (d) => (S(d).ConsumptionBillKind.enum = S(d).ConsumptionBillKind.enum.filter((v: string) => v !== 'other')) },
  { name: 'response: a new field', id: 'response-field-added', level: 'info', at: { operation: 'getCard' }, head: (d) => (S(d).Card.properties.nickname = { type: 'string' }) },
  { name: 'response: a field made required', id: 'response-field-became-required', level: 'info', at: { operation: 'getOrder' }, head: (d) => S(d).Order.required.push('related_card_id'), also: ['example-no-longer-valid'] },
  { name: 'response: a value no longer null', id: 'response-nullable-removed', level: 'info', at: { operation: 'getWallet' }, head: (d) => (S(d).WalletBalance.properties.frozen_at.type = 'string'), also: ['example-no-longer-valid'] },
  { name: 'response: a bound loosened', id: 'response-constraint-relaxed', level: 'warning', at: { operation: 'listOrders' }, head: (d) => (S(d).PaginationMeta.properties.per_page.maximum = 200) },
  { name: 'response: a bound added', id: 'response-constraint-tightened', level: 'info', at: { operation: 'getCard' }, head: (d) => (S(d).Card.properties.cardholder_first_name.maxLength = 50) },
  // Security
  { name: 'an ability alternative removed', id: 'security-ability-changed', level: 'breaking', at: { operation: 'listCardProducts' }, head: (d) => (op(d, '/card-products').security = [{ bearerAuth: ['cards.read'] }]) },
  { name: 'an ability alternative added', id: 'security-ability-relaxed', level: 'info', at: { operation: 'getCard' }, head: (d) => op(d, CARD).security.push({ bearerAuth: ['cards.write'] }) },
  {
    name: 'the security scheme changed',
    id: 'security-scheme-changed',
    level: 'breaking',
    at: { operation: 'getCard' },
    head: (d) => (d.components.securitySchemes.bearerAuth = { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'x' }),
  },
  // Webhooks (response polarity, reported per event)
  { name: 'an event removed', id: 'webhook-event-removed', level: 'breaking', at: { event: 'card.unfrozen' }, head: (d) => delete d.webhooks['card.unfrozen'] },
  {
    name: 'an event added',
    id: 'webhook-event-added',
    level: 'info',
    at: { event: 'card.limit_changed' },
    head: (d) => {
      d.webhooks['card.limit_changed'] = structuredClone(d.webhooks['card.unfrozen']);
      d.webhooks['card.limit_changed'].post.operationId = 'onCardLimitChanged';
      d.webhooks['card.limit_changed'].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/CardLimitChangedEvent' };
      S(d).CardLimitChangedEvent = structuredClone(S(d).CardUnfrozenEvent);
      S(d).CardLimitChangedEvent.allOf[1].properties.event = { const: 'card.limit_changed' };
    },
    also: ['type-added'],
  },
  { name: 'the signature header renamed', id: 'webhook-signature-header-changed', level: 'breaking', at: { event: 'order.completed' }, head: (d) => (d.components.parameters.ServiceSignature.name = 'X-Signature') },
  { name: 'the signature header format changed', id: 'webhook-signature-header-changed', level: 'breaking', at: { event: 'card.frozen' }, head: (d) => (d.components.parameters.ServiceSignature.schema.pattern = '^v2=[0-9a-f]+$') },
  { name: 'webhook: an optional payload field removed', id: 'webhook-payload-optional-field-removed', level: 'warning', at: { event: 'card.issued.secrets' }, head: (d) => delete S(d).CardIssuedSecretsData.properties.card_bin },
  {
    name: 'webhook: a payload field removed',
    id: 'webhook-payload-field-removed',
    level: 'breaking',
    at: { event: 'order.completed' },
    head: (d) => {
      delete S(d).OrderCompletedData.properties.completed_at;
      S(d).OrderCompletedData.required = S(d).OrderCompletedData.required.filter((n: string) => n !== 'completed_at');
    },
  },
  {
    name: 'webhook: a payload field made optional',
    id: 'webhook-payload-field-became-optional',
    level: 'breaking',
    at: { event: 'order.completed' },
    head: (d) => (S(d).OrderCompletedData.required = S(d).OrderCompletedData.required.filter((n: string) => n !== 'card_uuid')),
  },
  { name: 'webhook: a payload field made nullable', id: 'webhook-payload-field-became-nullable', level: 'breaking', at: { event: 'order.completed' }, head: (d) => (S(d).OrderCompletedData.properties.completed_at.type = ['string', 'null']) },
  { name: 'webhook: a payload field retyped', id: 'webhook-payload-type-changed', level: 'breaking', at: { event: 'card.closed' }, head: (d) => (S(d).EventEnvelope.properties.event_id.type = 'string'), also: ['example-no-longer-valid'] },
  { name: 'webhook: a payload type narrowed', id: 'webhook-payload-type-narrowed', level: 'info', at: { event: 'order.failed' }, base: (d) => (S(d).EventEnvelope.properties.workspace_id.type = ['integer', 'string']) },
  { name: 'webhook: a payload format changed', id: 'webhook-payload-format-changed', level: 'breaking', at: { event: 'card.frozen' }, head: (d) => (S(d).EventEnvelope.properties.occurred_at.format = 'date') },
  { name: 'webhook: a payload format removed', id: 'webhook-payload-format-removed', level: 'warning', at: { event: 'card.frozen' }, head: (d) => delete S(d).EventEnvelope.properties.occurred_at.format },
  {
    name: 'webhook: a new enum value in a payload',
    id: 'webhook-payload-enum-value-added',
    level: 'warning',
    at: { event: 'card.frozen' },
    head: (d) => {
      S(d).ActionOrigin.enum.push('bank');
      S(d).ActionOrigin['x-enumDescriptions'].bank = 'The bank.';
    },
  },
  { name: 'webhook: a payload enum value removed', id: 'webhook-payload-enum-value-removed', level: 'info', at: { event: 'card.close_initiated' }, head: (d) => (S(d).ActionOrigin.enum = S(d).ActionOrigin.enum.filter((v: string) => v !== 'issuer')) },
  { name: 'webhook: a new payload field', id: 'webhook-payload-field-added', level: 'info', at: { event: 'order.completed' }, head: (d) => (S(d).OrderCompletedData.properties.note = { type: 'string' }) },
  { name: 'webhook: a payload field made required', id: 'webhook-payload-field-became-required', level: 'info', at: { event: 'card.issued.secrets' }, head: (d) => S(d).CardIssuedSecretsData.required.push('card_id') },
  { name: 'webhook: a payload value no longer null', id: 'webhook-payload-nullable-removed', level: 'info', at: { event: 'order.failed' }, head: (d) => (S(d).OrderFailedData.properties.card_uuid.type = 'string'), also: ['example-no-longer-valid'] },
  { name: 'webhook: a payload bound removed', id: 'webhook-payload-constraint-relaxed', level: 'warning', at: { event: 'order.completed' }, base: (d) => (S(d).OrderCompletedData.properties.completed_at.maxLength = 40) },
  { name: 'webhook: a payload bound added', id: 'webhook-payload-constraint-tightened', level: 'info', at: { event: 'card.closed' }, head: (d) => (S(d).EventEnvelope.properties.event_id.minimum = 1) },
  // Branches (matched by content), media types, headers, links, examples, security added/removed (issue 27)
  {
    name: 'request: a oneOf branch removed',
    id: 'request-variant-removed',
    level: 'breaking',
    at: { operation: 'freezeCard' },
    base: (d) => (S(d).CardActionRequest.properties.reason = { oneOf: [{ type: 'string', maxLength: 500 }, { type: 'object', required: ['code'], properties: { code: { type: 'string' } } }] }),
    head: (d) => (S(d).CardActionRequest.properties.reason = { oneOf: [{ type: 'string', maxLength: 500 }] }),
  },
  {
    name: 'request: a oneOf branch added',
    id: 'request-variant-added',
    level: 'info',
    at: { operation: 'freezeCard' },
    base: (d) => (S(d).CardActionRequest.properties.reason = { oneOf: [{ type: 'string', maxLength: 500 }, { type: 'integer' }] }),
    head: (d) => (S(d).CardActionRequest.properties.reason = { oneOf: [{ type: 'integer' }, { type: 'object', required: ['code'], properties: { code: { type: 'string' } } }, { type: 'string', maxLength: 500 }] }),
  },
  { name: 'response: a oneOf branch added (an added response branch is reported)', id: 'response-variant-added', level: 'breaking', at: { operation: 'listCardTransactions' }, base: (d) => merchantBranches(d, ['Merchant', 'OnlineMerchant']), head: (d) => merchantBranches(d, ['Merchant', 'OnlineMerchant', 'PhoneMerchant']), also: ['webhook-payload-variant-added', 'type-added'] },
  { name: 'response: a oneOf branch removed', id: 'response-variant-removed', level: 'info', at: { operation: 'listCardTransactions' }, base: (d) => merchantBranches(d, ['Merchant', 'OnlineMerchant', 'PhoneMerchant']), head: (d) => merchantBranches(d, ['Merchant', 'PhoneMerchant']), also: ['webhook-payload-variant-removed', 'type-removed'] },
  { name: 'webhook: a payload oneOf branch added (reported for receivers)', id: 'webhook-payload-variant-added', level: 'breaking', at: { event: 'card.transaction.authorized' }, base: (d) => merchantBranches(d, ['Merchant', 'OnlineMerchant']), head: (d) => merchantBranches(d, ['Merchant', 'OnlineMerchant', 'PhoneMerchant']), also: ['response-variant-added', 'type-added'] },
  { name: 'webhook: a payload oneOf branch removed', id: 'webhook-payload-variant-removed', level: 'info', at: { event: 'card.transaction.captured' }, base: (d) => merchantBranches(d, ['Merchant', 'OnlineMerchant', 'PhoneMerchant']), head: (d) => merchantBranches(d, ['OnlineMerchant', 'PhoneMerchant']), also: ['response-variant-removed', 'example-no-longer-valid'] },
  {
    name: 'response: a response schema renamed (Order → PlacedOrder)',
    id: 'response-schema-renamed',
    level: 'warning',
    at: { operation: 'getOrder' },
    head: (d) => {
      S(d).PlacedOrder = S(d).Order;
      delete S(d).Order;
      const retarget = (v: any): void => {
        if (!v || typeof v !== 'object') return;
        if (v.$ref === '#/components/schemas/Order') v.$ref = '#/components/schemas/PlacedOrder';
        Object.values(v).forEach(retarget);
      };
      retarget(d);
    },
    also: ['type-removed', 'type-added'],
  },
  {
    name: 'webhook: a payload schema renamed',
    id: 'webhook-payload-schema-renamed',
    level: 'warning',
    at: { event: 'order.completed' },
    head: (d) => {
      S(d).OrderDoneData = S(d).OrderCompletedData;
      delete S(d).OrderCompletedData;
      S(d).OrderCompletedEvent.allOf[1].properties.data.$ref = '#/components/schemas/OrderDoneData';
    },
    also: ['type-removed', 'type-added'],
  },
  { name: 'request: a media type no longer accepted', id: 'request-media-type-removed', level: 'breaking', at: { operation: 'createCard' }, base: (d) => addMedia(op(d, '/cards', 'post').requestBody.content, 'application/x-www-form-urlencoded') },
  { name: 'request: a media type accepted', id: 'request-media-type-added', level: 'info', at: { operation: 'createCard' }, head: (d) => addMedia(op(d, '/cards', 'post').requestBody.content, 'application/x-www-form-urlencoded') },
  { name: 'response: a media type no longer offered', id: 'response-media-type-removed', level: 'breaking', at: { operation: 'getWallet' }, base: (d) => addMedia(op(d, '/wallet').responses['200'].content, 'text/csv') },
  { name: 'response: JSON offered next to a non-JSON type is not breaking', id: 'response-media-type-added', level: 'info', at: { operation: 'getWallet' }, base: (d) => (op(d, '/wallet').responses['200'].content = { 'text/csv': { schema: { type: 'string' } } }), head: (d) => (op(d, '/wallet').responses['200'].content['text/csv'] = { schema: { type: 'string' } }) },
  { name: 'response: another success status documented', id: 'response-success-status-added', level: 'info', at: { operation: 'createCard' }, head: (d) => (op(d, '/cards', 'post').responses['201'] = op(d, '/cards', 'post').responses['202']) },
  { name: 'response: a required header removed', id: 'response-header-removed', level: 'breaking', at: { operation: 'getCard' }, base: (d) => (op(d, CARD).responses['200'].headers['X-Trace'] = { required: true, schema: { type: 'string' } }) },
  { name: 'response: X-RateLimit-Remaining removed from getCard 200', id: 'response-optional-header-removed', level: 'warning', at: { operation: 'getCard' }, head: (d) => delete op(d, CARD).responses['200'].headers['X-RateLimit-Remaining'] },
  { name: 'response: a header no longer required', id: 'response-header-became-optional', level: 'breaking', at: { operation: 'getCard' }, base: (d) => (op(d, CARD).responses['200'].headers['X-Trace'] = { required: true, schema: { type: 'string' } }), head: (d) => (op(d, CARD).responses['200'].headers['X-Trace'] = { schema: { type: 'string' } }) },
  { name: 'response: a header added', id: 'response-header-added', level: 'info', at: { operation: 'getCard' }, head: (d) => (op(d, CARD).responses['200'].headers['X-Trace'] = { schema: { type: 'string' } }) },
  { name: 'response: a link removed', id: 'response-link-removed', level: 'warning', at: { operation: 'createCard' }, head: (d) => delete d.components.responses.OrderAccepted.links.getOrder },
  { name: 'response: a link changed', id: 'response-link-changed', level: 'warning', at: { operation: 'createCard' }, head: (d) => (d.components.links.GetOrder.parameters.uuid = '$response.body#/data/id') },
  { name: 'response: a link added', id: 'response-link-added', level: 'info', at: { operation: 'createCard' }, head: (d) => (d.components.responses.OrderAccepted.links.Again = { operationId: 'getOrder', parameters: { uuid: '$response.body#/data/uuid' } }) },
  { name: 'an example the schema now refuses', id: 'example-no-longer-valid', level: 'warning', at: { operation: 'getCard' }, head: (d) => (S(d).Card.properties.masked_pan.maxLength = 4), also: ['response-constraint-tightened'] },
  { name: 'security added to an operation that had none', id: 'security-added', level: 'breaking', at: { operation: 'ping' }, base: (d) => (op(d, '/ping').security = []) },
  { name: 'security removed from an operation (info)', id: 'security-removed', level: 'info', at: { operation: 'ping' }, head: (d) => (op(d, '/ping').security = []) },
  // Generated code
  { name: 'an exported type removed', id: 'type-removed', level: 'warning', base: (d) => (S(d).LegacyThing = { type: 'string', description: 'x' }) },
  { name: 'an exported type added', id: 'type-added', level: 'info', head: (d) => (S(d).CardLimit = { type: 'string', description: 'x' }) },
];

/**
 * One edit of a shared component, three answers: the same schema is read in a request parameter, a response and a
 * webhook payload, so each polarity reports its own id and level.
 */
const POLARITY: Array<{ name: string; head: (doc: any) => void; expect: Array<[CheckId, Level, { operation?: string; event?: string }]> }> = [
  {
    name: 'an enum value removed from CardholderType',
    head: (d) => (S(d).CardholderType.enum = ['user']),
    expect: [
      ['request-enum-value-removed', 'breaking', { operation: 'listCards' }],
      ['response-enum-value-removed', 'info', { operation: 'getCard' }],
      ['webhook-payload-enum-value-removed', 'info', { event: 'card.frozen' }],
    ],
  },
  {
    name: 'an enum value added to CardholderType',
    head: (d) => {
      S(d).CardholderType.enum.push('business');
      S(d).CardholderType['x-enumDescriptions'].business = 'A business.';
    },
    expect: [
      ['request-enum-value-added', 'info', { operation: 'listCards' }],
      ['response-enum-value-added', 'warning', { operation: 'listCards' }],
      ['webhook-payload-enum-value-added', 'warning', { event: 'card.closed' }],
    ],
  },
  {
    // Since D28 no response shares AmountInput (the ledger answers a DecimalString): only the request side moves.
    name: 'AmountInput may be null (request bodies only)',
    head: (d) => (S(d).AmountInput.type = ['string', 'null']),
    expect: [['request-nullable-added', 'info', { operation: 'topupCard' }]],
  },
  {
    name: 'DecimalString pattern widened (responses and payloads)',
    head: (d) => (S(d).DecimalString.pattern = S(d).DecimalString.pattern.replace('{1,8}', '{1,12}')),
    expect: [
      ['response-constraint-relaxed', 'warning', { operation: 'getWallet' }],
      ['webhook-payload-constraint-relaxed', 'warning', { event: 'order.completed' }],
    ],
  },
];

let spec: LoadedSpec;
let base: ApiModel;
beforeAll(async () => {
  spec = await realSpec();
  base = variant(spec);
});

function describeChanges(changes: Change[]): string {
  return changes.map((c) => `${c.id} (${c.level}) ${c.location.operation ?? c.location.event ?? ''} ${c.location.field ?? ''}`).join('\n');
}

describe('the case table', () => {
  it('has at least 60 cases and covers every check of the catalogue', () => {
    const covered = new Set<string>([...CASES.map((c) => c.id), ...POLARITY.flatMap((p) => p.expect.map((e) => e[0])), 'version-major-bump-missing']);
    expect(CASES.length + POLARITY.reduce((n, p) => n + p.expect.length, 0)).toBeGreaterThanOrEqual(60);
    expect(Object.keys(CHECKS).filter((id) => !covered.has(id))).toEqual([]);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const before = c.base ? variant(spec, c.base) : base;
    const after = variant(spec, c.head);
    const changes = diffModels(before, after);
    const hit = changes.filter((ch) => ch.id === c.id);
    expect(hit.length, `expected ${c.id}; got:\n${describeChanges(changes)}`).toBeGreaterThan(0);
    for (const h of hit) expect(h.level).toBe(c.level);
    expect(CHECKS[c.id].level).toBe(c.level);
    if (c.at?.operation) expect(hit.map((h) => h.location.operation)).toContain(c.at.operation);
    if (c.at?.event) expect(hit.map((h) => h.location.event)).toContain(c.at.event);
    const allowed = new Set<string>([c.id, ...(c.also ?? [])]);
    expect(changes.filter((ch) => !allowed.has(ch.id)).map((ch) => ch.id), `unexpected changes:\n${describeChanges(changes)}`).toEqual([]);
    for (const h of hit) {
      expect(h.message.length).toBeGreaterThan(0);
      expect(h.location.base !== null || h.location.head !== null).toBe(true);
    }
  });

  it.each(POLARITY.map((p) => [p.name, p] as const))('one edit, one answer per polarity: %s', (_name, p) => {
    const changes = diffModels(base, variant(spec, p.head));
    for (const [id, level, at] of p.expect) {
      const hit = changes.filter((c) => c.id === id && (!at.operation || c.location.operation === at.operation) && (!at.event || c.location.event === at.event));
      expect(hit.length, `expected ${id} at ${JSON.stringify(at)}; got:\n${describeChanges(changes)}`).toBeGreaterThan(0);
      expect(hit[0]!.level).toBe(level);
    }
    const ids = new Set(p.expect.map((e) => e[0]));
    expect(changes.filter((c) => !ids.has(c.id)).map((c) => c.id)).toEqual([]);
  });
});

describe('what a change names', () => {
  it('a response change names the client methods and the exported type', () => {
    const changes = diffModels(
      base,
      variant(spec, (d) => {
        delete S(d).Order.properties.related_card_id;
        delete S(d).AcceptedOrder.properties.related_card_id;
      }),
    );
    const create = changes.find((c) => c.location.operation === 'createCard')!;
    expect(create.touches).toEqual(expect.arrayContaining(['client.cards.create()', 'type AcceptedOrder']));
    expect(create.location.endpoint).toBe('POST /cards');
    expect(create.location.field).toBe('data.related_card_id');
    expect(create.location.base).toBe('#/components/schemas/AcceptedOrder/properties/related_card_id');
    expect(create.location.head).toBe('#/components/schemas/AcceptedOrder');
    const waiter = changes.find((c) => c.location.operation === 'getOrder')!;
    expect(waiter.touches.some((t) => t.startsWith('client.orders.'))).toBe(true);
  });

  it('a payload change names the event, EventMap entry and the data type', () => {
    const changes = diffModels(base, variant(spec, (d) => delete S(d).OrderCompletedData.properties.card_uuid));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.location.event).toBe('order.completed');
    expect(changes[0]!.touches).toEqual(expect.arrayContaining(["event 'order.completed'", "EventMap['order.completed']", 'type OrderCompletedEvent', 'type OrderCompletedData']));
  });

  it('a query parameter change names the exported query type', () => {
    const changes = diffModels(base, variant(spec, (d) => (param(d, '/cards', 'get', 'search').required = true)));
    expect(changes[0]!.touches).toContain('type ListCardsQuery');
  });
});

describe('recursive schemas', () => {
  it('a self-referencing schema is walked once per path and its changes still found', () => {
    const recursive = (d: any) => (S(d).Card.properties.parent = { anyOf: [{ $ref: '#/components/schemas/Card' }, { type: 'null' }] });
    const a = variant(spec, recursive);
    expect(diffModels(a, variant(spec, recursive))).toEqual([]);
    const changes = diffModels(a, variant(spec, (d) => { recursive(d); delete S(d).Card.properties.masked_pan; }));
    const found = changes.filter((c) => c.location.operation === 'getCard').map((c) => `${c.id} ${c.location.field}`);
    expect(found).toContain('response-field-removed data.masked_pan');
    // The recursion is cut where a pair of schemas repeats on the path: at most one level of `parent` is reported.
    expect(found.every((f) => /^response-field-removed data\.(parent\.)?masked_pan$/.test(f))).toBe(true);
  });
});

describe('info.version', () => {
  const removeField = (d: any) => {
    delete S(d).Order.properties.failure_reason;
    S(d).Order.required = S(d).Order.required.filter((n: string) => n !== 'failure_reason');
  };
  it('a breaking change without a major bump is itself reported', () => {
    const result = runDiff({ label: 'a', model: base }, { label: 'b', model: variant(spec, (d) => { removeField(d); d.info.version = '1.1.0'; }) });
    // The verdict is reported apart from the changes it judges: it is not counted as a breaking change.
    expect(result.changes.map((c) => c.id)).not.toContain('version-major-bump-missing');
    expect(result.summary.breaking).toBe(result.changes.filter((c) => c.level === 'breaking').length);
    expect(result.verdict?.id).toBe('version-major-bump-missing');
    expect(result.verdict?.level).toBe('breaking');
    expect(result.verdict?.message).toContain('1.0.0 to 1.1.0');
  });
  it('is not reported with a major bump, nor without a breaking change', () => {
    const bumped = runDiff({ label: 'a', model: base }, { label: 'b', model: variant(spec, (d) => { removeField(d); d.info.version = '2.0.0'; }) });
    expect(bumped.verdict).toBeNull();
    const harmless = runDiff({ label: 'a', model: base }, { label: 'b', model: variant(spec, (d) => (S(d).Card.properties.nickname = { type: 'string' })) });
    expect(harmless.verdict).toBeNull();
  });
});
