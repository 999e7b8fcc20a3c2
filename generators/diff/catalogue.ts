/**
 * The catalogue of checks: every change `gen-card-api diff` can report, with its stable id, its default level,
 * what it means and one example. docs/diff-checks.md is rendered from this table (a test keeps them equal).
 *
 * Polarity: a request is written by the integrator and read by the service, so tightening it breaks callers;
 * a response is written by the service and read by the integrator, so loosening it breaks readers. A webhook
 * payload is written by the service and read by the integrator's receiver: it has a response's polarity.
 */
export type Level = 'breaking' | 'warning' | 'info';
export const LEVELS: readonly Level[] = ['breaking', 'warning', 'info'];

export interface CheckDoc {
  level: Level;
  meaning: string;
  example: string;
}

export const CHECKS = {
  // Operations
  'operation-removed': { level: 'breaking', meaning: 'An operation of the base is gone: no operation with its id, nor with its method and path.', example: '`DELETE /cards/{uuid}` removed' },
  'operation-added': { level: 'info', meaning: 'A new operation.', example: '`GET /cards/{uuid}/limits` added' },
  'operation-id-changed': { level: 'breaking', meaning: 'The same method and path now has another operationId: the generated `operations[...]` type and query type are renamed.', example: '`listCards` renamed `listAllCards`' },
  'operation-method-changed': { level: 'breaking', meaning: 'The same operationId now uses another HTTP method.', example: '`freezeCard` from `POST` to `PUT`' },
  'operation-path-changed': { level: 'breaking', meaning: 'The same operationId now lives at another path.', example: '`/cards/{uuid}/freeze` moved to `/cards/{uuid}/frozen`' },
  'client-method-renamed': { level: 'breaking', meaning: 'The operation\'s generated client method (`x-client`) has another name or resource.', example: '`client.cards.list()` becomes `client.cards.all()`' },
  'operation-deprecated': { level: 'warning', meaning: 'An operation became deprecated.', example: '`deprecated: true` added to `getCard`' },
  // Parameters and request body
  'request-parameter-added-required': { level: 'breaking', meaning: 'A new required path, query or cookie parameter.', example: 'required query `currency` added to `listCards`' },
  'request-parameter-became-required': { level: 'breaking', meaning: 'An optional parameter became required.', example: '`per_page` now required' },
  'request-parameter-added': { level: 'info', meaning: 'A new optional parameter.', example: 'optional query `sort` added' },
  'request-parameter-removed': { level: 'warning', meaning: 'A parameter is no longer documented; callers that send it are ignored or rejected.', example: 'query `search` removed from `listCards`' },
  'request-parameter-default-changed': { level: 'warning', meaning: 'The default of a parameter changed: callers that omit it get another behaviour.', example: '`page` default from 1 to 0' },
  'request-header-added-required': { level: 'breaking', meaning: 'A new required request header.', example: 'required `X-Workspace` header added' },
  'request-header-became-required': { level: 'breaking', meaning: 'An optional request header became required.', example: '`X-Idempotency-Key` now required on `createCard`' },
  'request-body-became-required': { level: 'breaking', meaning: 'A request body was added as required, or an optional body became required.', example: '`freezeCard` body now required' },
  'request-body-removed': { level: 'warning', meaning: 'The operation no longer documents a request body.', example: 'body of `closeCard` removed' },
  'request-body-field-added-required': { level: 'breaking', meaning: 'A new required field in a request body (at any depth).', example: 'required `purpose` added to `CreateCardRequest`' },
  'request-body-field-became-required': { level: 'breaking', meaning: 'An optional request field became required.', example: '`notes` now required' },
  'request-body-field-added': { level: 'info', meaning: 'A new optional request field.', example: 'optional `nickname` added' },
  'request-body-field-removed': { level: 'warning', meaning: 'A request field is no longer documented.', example: '`notes` removed from `CreateCardRequest`' },
  'request-body-field-became-optional': { level: 'info', meaning: 'A required request field became optional.', example: '`purpose` no longer required' },
  'request-type-changed': { level: 'breaking', meaning: 'A request value no longer accepts a type it accepted.', example: '`card_product_id` from `integer` to `string`' },
  'request-type-widened': { level: 'info', meaning: 'A request value accepts more types.', example: '`card_product_id` from `integer` to `number`' },
  'request-format-changed': { level: 'breaking', meaning: 'A request value got a `format` or another one.', example: '`reason` gets `format: email`' },
  'request-format-removed': { level: 'info', meaning: 'A request value lost its `format` (accepts more).', example: '`uuid` path parameter loses `format: uuid`' },
  'request-pattern-changed': { level: 'breaking', meaning: 'A request value got a `pattern`, or one that is not provably wider.', example: 'amount pattern from `{1,8}` decimals to `{1,2}`' },
  'request-pattern-relaxed': { level: 'info', meaning: 'A request `pattern` was removed or only had its repetition bounds widened.', example: 'amount pattern from `{1,2}` decimals to `{1,8}`' },
  'request-enum-value-removed': { level: 'breaking', meaning: 'A value of a request enum (or const) is no longer accepted, or a free value became an enum.', example: '`cardholder_type` loses `business`' },
  'request-enum-value-added': { level: 'info', meaning: 'A request enum accepts a new value.', example: '`status` filter accepts `pending`' },
  'request-max-length-decreased': { level: 'breaking', meaning: '`maxLength` of a request value added or lowered.', example: '`reason` `maxLength` 500 to 200' },
  'request-maximum-decreased': { level: 'breaking', meaning: '`maximum` (or `exclusiveMaximum`) of a request value added or lowered.', example: '`per_page` `maximum` 100 to 50' },
  'request-min-length-increased': { level: 'breaking', meaning: '`minLength` of a request value added or raised.', example: '`search` `minLength` 1 to 3' },
  'request-minimum-increased': { level: 'breaking', meaning: '`minimum` (or `exclusiveMinimum`) of a request value added or raised.', example: '`page` `minimum` 1 to 2' },
  'request-constraint-tightened': { level: 'breaking', meaning: 'Another request bound tightened: `maxItems` lowered, `minItems` raised, `multipleOf` or `uniqueItems` added.', example: '`status` filter `maxItems: 2` added' },
  'request-constraint-relaxed': { level: 'info', meaning: 'A request bound was loosened or removed.', example: '`reason` `maxLength` 500 to 1000' },
  'request-nullable-removed': { level: 'breaking', meaning: 'A request value no longer accepts `null`.', example: '`billing_address.line2` no longer nullable' },
  'request-nullable-added': { level: 'info', meaning: 'A request value now accepts `null`.', example: '`notes` accepts null' },
  'request-additional-properties-closed': { level: 'breaking', meaning: '`additionalProperties: false` added to a request object: extra fields are now rejected.', example: '`CardActionRequest` closed' },
  // Responses
  'response-success-status-changed': { level: 'breaking', meaning: 'The success status of an operation changed.', example: '`createCard` from 202 to 201' },
  'response-error-status-removed': { level: 'breaking', meaning: 'A documented error status (or `5XX` range, or `default`) is gone: the typed error for it disappears.', example: '`402` removed from `createCard`' },
  'response-error-status-added': { level: 'info', meaning: 'A new documented error status.', example: '`503` added' },
  'response-error-code-removed': { level: 'warning', meaning: 'An error code documented for an operation (in its error examples) is no longer documented there.', example: '`card_product.unavailable` no longer documented for `createCard`' },
  'response-error-code-added': { level: 'info', meaning: 'A new error code documented for an operation.', example: '`card.limit_exceeded` documented for `topupCard`' },
  'response-body-changed': { level: 'breaking', meaning: 'The success body changed shape: JSON or none, `{ data }` or another envelope, one item or a list.', example: '`getWallet` answers 204 with no body' },
  'pagination-envelope-changed': { level: 'breaking', meaning: 'A list became paginated, stopped being paginated, or its page envelope lost `data`, `meta` or `links`.', example: '`listCardProducts` becomes paginated' },
  'pagination-default-per-page-changed': { level: 'breaking', meaning: 'The default page size of a paginated list changed: callers that omit it get other pages.', example: '`per_page` default from 50 to 20' },
  'response-field-removed': { level: 'breaking', meaning: 'A response field is gone.', example: '`Card.nickname` removed' },
  'response-field-became-optional': { level: 'breaking', meaning: 'A required response field became optional.', example: '`Order.related_card_uuid` no longer required' },
  'response-field-became-nullable': { level: 'breaking', meaning: 'A response value may now be `null`.', example: '`Card.pan_last4` becomes `string | null`' },
  'response-type-changed': { level: 'breaking', meaning: 'A response value may now be of a type it was not.', example: '`Order.held_amount` from `string` to `number`' },
  'response-type-narrowed': { level: 'info', meaning: 'A response value has fewer possible types.', example: '`account_code` from `string | integer` to `string`' },
  'response-format-changed': { level: 'breaking', meaning: 'The `format` of a response value changed.', example: '`created_at` from `date-time` to `date`' },
  'response-format-removed': { level: 'warning', meaning: 'A response value lost its `format`: readers that parse it may fail.', example: '`created_at` loses `format: date-time`' },
  'response-enum-value-added': { level: 'warning', meaning: 'A response enum has a new value: an exhaustive `switch` over the generated union stops compiling or falls through.', example: '`CardStatus` gains `suspended`' },
  'response-enum-value-removed': { level: 'info', meaning: 'A response enum lost a value.', example: '`OrderStatus` loses `processing`' },
  'response-field-added': { level: 'info', meaning: 'A new response field.', example: '`Card.nickname` added' },
  'response-field-became-required': { level: 'info', meaning: 'An optional response field became required.', example: '`Card.notes` always present' },
  'response-nullable-removed': { level: 'info', meaning: 'A response value is no longer `null`.', example: '`Card.purpose` never null' },
  'response-constraint-relaxed': { level: 'warning', meaning: 'A response bound or `pattern` was loosened or removed: readers that validate or size storage may fail.', example: '`DecimalString` allows 12 decimals' },
  'response-constraint-tightened': { level: 'info', meaning: 'A response bound or `pattern` tightened.', example: '`maxLength: 64` added to `Card.purpose`' },
  // Security
  'security-ability-changed': { level: 'breaking', meaning: 'A token that was enough before may now be refused: an ability was added to, or an alternative removed from, the operation\'s requirement.', example: '`listCardProducts` no longer accepts `cards.write`' },
  'security-ability-relaxed': { level: 'info', meaning: 'The operation accepts more tokens.', example: '`getCard` also accepts `cards.write`' },
  'security-scheme-changed': { level: 'breaking', meaning: 'The security scheme an operation uses changed type, scheme or location.', example: '`bearerAuth` replaced by an API-key header' },
  // Webhooks
  'webhook-event-removed': { level: 'breaking', meaning: 'An event is no longer sent: it disappears from `EventName` and `EventMap`.', example: '`card.unfrozen` removed' },
  'webhook-event-added': { level: 'info', meaning: 'A new event: a typed dispatcher needs `onUnknownEvent` (or an update) to handle it.', example: '`card.limit_changed` added' },
  'webhook-signature-header-changed': { level: 'breaking', meaning: 'The signature header of an event has another name, is no longer required, or its format changed: receivers stop verifying.', example: '`X-Service-Signature` renamed `X-Signature`' },
  'webhook-payload-field-removed': { level: 'breaking', meaning: 'A payload field is gone.', example: '`order.completed` loses `data.card_uuid`' },
  'webhook-payload-field-became-optional': { level: 'breaking', meaning: 'A required payload field became optional.', example: '`data.completed_at` no longer required' },
  'webhook-payload-field-became-nullable': { level: 'breaking', meaning: 'A payload value may now be `null`.', example: '`data.held_amount` nullable' },
  'webhook-payload-type-changed': { level: 'breaking', meaning: 'A payload value may now be of a type it was not.', example: '`event_id` from `integer` to `string`' },
  'webhook-payload-type-narrowed': { level: 'info', meaning: 'A payload value has fewer possible types.', example: '`card_id` from `integer | string` to `integer`' },
  'webhook-payload-format-changed': { level: 'breaking', meaning: 'The `format` of a payload value changed.', example: '`occurred_at` from `date-time` to `date`' },
  'webhook-payload-format-removed': { level: 'warning', meaning: 'A payload value lost its `format`.', example: '`occurred_at` loses `format: date-time`' },
  'webhook-payload-enum-value-added': { level: 'warning', meaning: 'A payload enum has a new value: exhaustive `switch`es in receivers break.', example: '`OrderType` gains `replace_card`' },
  'webhook-payload-enum-value-removed': { level: 'info', meaning: 'A payload enum lost a value.', example: '`FreezeOrigin` loses `system`' },
  'webhook-payload-field-added': { level: 'info', meaning: 'A new payload field.', example: '`data.merchant_mcc` added' },
  'webhook-payload-field-became-required': { level: 'info', meaning: 'An optional payload field became required.', example: '`data.reason` always present' },
  'webhook-payload-nullable-removed': { level: 'info', meaning: 'A payload value is no longer `null`.', example: '`data.card_uuid` never null' },
  'webhook-payload-constraint-relaxed': { level: 'warning', meaning: 'A payload bound or `pattern` was loosened or removed.', example: '`card_last4` `maxLength` 4 to 19' },
  'webhook-payload-constraint-tightened': { level: 'info', meaning: 'A payload bound or `pattern` tightened.', example: '`minimum: 0` added to `penalty_amount`' },
  // Generated code and version
  'type-removed': { level: 'warning', meaning: 'A component schema is gone or renamed: the exported type alias of that name disappears from @card-api/types.', example: '`export type CardListItem` no longer generated' },
  'type-added': { level: 'info', meaning: 'A new component schema: a new exported type.', example: '`export type CardLimit` added' },
  'version-major-bump-missing': { level: 'breaking', meaning: 'Breaking changes remain (after overrides) but `info.version` keeps its major number.', example: '`1.0.0` to `1.1.0` with a removed field' },
} as const satisfies Record<string, CheckDoc>;

export type CheckId = keyof typeof CHECKS;
export const CHECK_IDS = Object.keys(CHECKS) as CheckId[];

export function isCheckId(value: string): value is CheckId {
  return Object.hasOwn(CHECKS, value);
}

/** The catalogue as one Markdown table (docs/diff-checks.md embeds it between markers). */
export function renderCatalogueTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = CHECK_IDS.map((id) => {
    const c: CheckDoc = CHECKS[id];
    return `| \`${id}\` | ${c.level} | ${cell(c.meaning)} | ${cell(c.example)} |`;
  });
  return ['| id | level | meaning | example |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
