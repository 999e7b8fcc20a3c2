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
  /** One line for the integrator: what happens to a client (or receiver) that relied on the old version. */
  why: string;
}

export const CHECKS = {
  // Operations
  'operation-removed': { level: 'breaking', meaning: 'An operation of the base is gone: no operation with its id, nor with its method and path.', example: '`DELETE /cards/{uuid}` removed', why: 'a client that calls it gets 404 or 405' },
  'operation-added': { level: 'info', meaning: 'A new operation.', example: '`GET /cards/{uuid}/limits` added', why: 'nothing breaks; a new operation can be called' },
  'operation-id-changed': { level: 'warning', meaning: 'The same method and path now has another operationId: the generated `operations[...]` type and query type are renamed. A policy rule (default warning: the call on the wire is unchanged, and code generated from the id fails to compile where it must be renamed).', example: '`listCards` renamed `listAllCards`', why: 'the call is unchanged on the wire; code that names the operation by its id (generated types, routing) must be renamed' },
  'operation-method-changed': { level: 'breaking', meaning: 'The same operationId now uses another HTTP method.', example: '`freezeCard` from `POST` to `PUT`', why: 'a client that calls it with the old method is refused' },
  'operation-path-changed': { level: 'breaking', meaning: 'The same operationId now lives at another path.', example: '`/cards/{uuid}/freeze` moved to `/cards/{uuid}/frozen`', why: 'a client that calls the old path gets 404' },
  'client-method-renamed': { level: 'breaking', meaning: 'The operation\'s generated client method (`x-client`) has another name or resource.', example: '`client.cards.list()` becomes `client.cards.all()`', why: 'code that calls the old generated method no longer compiles' },
  'operation-deprecated': { level: 'warning', meaning: 'An operation became deprecated (its sunset date, `x-sunset` or a documented `Sunset` header, is named when there is one).', example: '`deprecated: true` added to `getCard`', why: 'callers keep working for now, but should move off it before it is removed' },
  'operation-removed-before-sunset': { level: 'breaking', meaning: 'A deprecated operation was removed before the sunset date it announced (`x-sunset` on the operation, or the example or default of a `Sunset` response header), judged against `--date` (today by default).', example: '`getCard` with `x-sunset: 2030-01-01` removed in 2027', why: 'callers were promised the operation until its sunset date and may still call it' },
  'deprecated-operation-removed': { level: 'warning', meaning: 'A deprecated operation was removed on or after its sunset date, or it announced none. A policy rule (default warning: the deprecation was the notice).', example: '`getCard`, deprecated with `x-sunset: 2025-01-01`, removed', why: 'callers were told to move off it; any that did not now get 404 or 405' },
  // Parameters and request body
  'request-parameter-added-required': { level: 'breaking', meaning: 'A new required path, query or cookie parameter.', example: 'required query `currency` added to `listCards`', why: 'a client that does not send the parameter is now refused' },
  'request-parameter-became-required': { level: 'breaking', meaning: 'An optional parameter became required.', example: '`per_page` now required', why: 'a client that omits the parameter is now refused' },
  'request-parameter-added': { level: 'info', meaning: 'A new optional parameter.', example: 'optional query `sort` added', why: 'nothing breaks; callers may send the new parameter' },
  'request-parameter-removed': { level: 'warning', meaning: 'A parameter is no longer documented; callers that send it are ignored or rejected.', example: 'query `search` removed from `listCards`', why: 'a client that still sends it may be ignored or refused' },
  'request-parameter-default-changed': { level: 'warning', meaning: 'The default of a parameter changed: callers that omit it get another behaviour.', example: '`page` default from 1 to 0', why: 'a client that omits the parameter gets another behaviour' },
  'request-header-added-required': { level: 'breaking', meaning: 'A new required request header.', example: 'required `X-Workspace` header added', why: 'a client that does not send the header is now refused' },
  'request-header-became-required': { level: 'breaking', meaning: 'An optional request header became required.', example: '`X-Idempotency-Key` now required on `createCard`', why: 'a client that omits the header is now refused' },
  'request-body-became-required': { level: 'breaking', meaning: 'A request body was added as required, or an optional body became required.', example: '`freezeCard` body now required', why: 'a client that sends no body is now refused' },
  'request-body-removed': { level: 'warning', meaning: 'The operation no longer documents a request body.', example: 'body of `closeCard` removed', why: 'a client that still sends a body may be ignored or refused' },
  'request-body-field-added-required': { level: 'breaking', meaning: 'A new required field in a request body (at any depth).', example: 'required `purpose` added to `CreateCardRequest`', why: 'a client that does not send the field is now refused' },
  'request-body-field-became-required': { level: 'breaking', meaning: 'An optional request field became required.', example: '`notes` now required', why: 'a client that omits the field is now refused' },
  'request-body-field-added': { level: 'info', meaning: 'A new optional request field.', example: 'optional `nickname` added', why: 'nothing breaks; callers may send the new field' },
  'request-body-field-removed': { level: 'warning', meaning: 'A request field is no longer documented.', example: '`notes` removed from `CreateCardRequest`', why: 'a client that still sends the field may be ignored or refused' },
  'request-body-field-became-optional': { level: 'info', meaning: 'A required request field became optional.', example: '`purpose` no longer required', why: 'nothing breaks; callers may omit the field' },
  'request-type-changed': { level: 'breaking', meaning: 'A request value no longer accepts a type it accepted.', example: '`card_product_id` from `integer` to `string`', why: 'a client that sends a value of the old type is now refused' },
  'request-default-changed': { level: 'warning', meaning: 'The `default` of a request body value changed, was added or removed: callers that omit the value get another behaviour (a parameter\'s is `request-parameter-default-changed`).', example: '`CreateCardRequest.currency` default from `EUR` to `USD`', why: 'a client that omits the value gets another behaviour' },
  'request-type-widened': { level: 'info', meaning: 'A request value accepts more types.', example: '`card_product_id` from `integer` to `number`', why: 'nothing breaks; more types are accepted' },
  'request-format-changed': { level: 'breaking', meaning: 'A request value got a `format` or another one.', example: '`reason` gets `format: email`', why: 'a client that sends a value outside the new format is now refused' },
  'request-format-removed': { level: 'info', meaning: 'A request value lost its `format` (accepts more).', example: '`uuid` path parameter loses `format: uuid`', why: 'nothing breaks; more values are accepted' },
  'request-pattern-changed': { level: 'breaking', meaning: 'A request value got a `pattern`, or one that is not provably wider.', example: 'amount pattern from `{1,8}` decimals to `{1,2}`', why: 'a client that sends a value the new pattern does not match is now refused' },
  'request-pattern-relaxed': { level: 'info', meaning: 'A request `pattern` was removed or only had its repetition bounds widened.', example: 'amount pattern from `{1,2}` decimals to `{1,8}`', why: 'nothing breaks; more values are accepted' },
  'request-enum-value-removed': { level: 'breaking', meaning: 'A value of a request enum (or const) is no longer accepted, or a free value became an enum.', example: '`cardholder_type` loses `business`', why: 'a client that sends the removed value is now refused' },
  'request-enum-value-added': { level: 'info', meaning: 'A request enum accepts a new value.', example: '`status` filter accepts `pending`', why: 'nothing breaks; one more value is accepted' },
  'request-max-length-decreased': { level: 'breaking', meaning: '`maxLength` of a request value added or lowered.', example: '`reason` `maxLength` 500 to 200', why: 'a client that sends a longer value is now refused' },
  'request-maximum-decreased': { level: 'breaking', meaning: '`maximum` (or `exclusiveMaximum`) of a request value added or lowered.', example: '`per_page` `maximum` 100 to 50', why: 'a client that sends a larger value is now refused' },
  'request-min-length-increased': { level: 'breaking', meaning: '`minLength` of a request value added or raised.', example: '`search` `minLength` 1 to 3', why: 'a client that sends a shorter value is now refused' },
  'request-minimum-increased': { level: 'breaking', meaning: '`minimum` (or `exclusiveMinimum`) of a request value added or raised.', example: '`page` `minimum` 1 to 2', why: 'a client that sends a smaller value is now refused' },
  'request-constraint-tightened': { level: 'breaking', meaning: 'Another request bound tightened: `maxItems` lowered, `minItems` raised, `multipleOf` or `uniqueItems` added, a sub-schema (`then`, `contains`, `prefixItems`, `patternProperties`, ...) added or tightened, or a `not` added or changed.', example: '`status` filter `maxItems: 2` added', why: 'a client that sends a value outside the new bound is now refused' },
  'request-constraint-relaxed': { level: 'info', meaning: 'A request bound was loosened or removed.', example: '`reason` `maxLength` 500 to 1000', why: 'nothing breaks; more values are accepted' },
  'request-nullable-removed': { level: 'breaking', meaning: 'A request value no longer accepts `null`.', example: '`billing_address.line2` no longer nullable', why: 'a client that sends null is now refused' },
  'request-nullable-added': { level: 'info', meaning: 'A request value now accepts `null`.', example: '`notes` accepts null', why: 'nothing breaks; null is accepted' },
  'request-additional-properties-closed': { level: 'breaking', meaning: '`additionalProperties: false` added to a request object: extra fields are now rejected.', example: '`CardActionRequest` closed', why: 'a client that sends a field the schema does not list is now refused' },
  'request-variant-removed': { level: 'breaking', meaning: 'A `oneOf`/`anyOf` branch of a request value is gone. Branches are matched by discriminator value, then by structure (component name, `const` tags, required keys, types), never by position: reordering is not a change.', example: '`payment_method` loses its `BankTransfer` branch', why: 'a client that sends a value of that branch is now refused' },
  'request-variant-added': { level: 'info', meaning: 'A request value accepts a new `oneOf`/`anyOf` branch.', example: '`payment_method` gains a `Wallet` branch', why: 'nothing breaks; one more shape is accepted' },
  'request-media-type-removed': { level: 'breaking', meaning: 'The request body no longer accepts a media type it accepted (each media type is judged on its own).', example: '`application/x-www-form-urlencoded` no longer accepted by `createCard`', why: 'a client that sends the body in that media type is now refused (415)' },
  'request-media-type-added': { level: 'info', meaning: 'The request body accepts a new media type.', example: '`application/xml` accepted next to JSON', why: 'nothing breaks; one more media type is accepted' },
  // Responses
  'response-success-status-changed': { level: 'breaking', meaning: 'A success status of an operation is no longer documented (another one is).', example: '`createCard` from 202 to 201', why: 'a client that checks for the old status treats the answer as a failure' },
  'response-error-status-removed': { level: 'breaking', meaning: 'A documented error status (or `5XX` range, or `default`) is gone: the typed error for it disappears.', example: '`402` removed from `createCard`', why: 'a client that handles that error by its status will not see it documented; the service may answer it otherwise' },
  'response-error-status-added': { level: 'info', meaning: 'A new documented error status.', example: '`503` added', why: 'nothing breaks; a client may handle the new status' },
  'response-error-code-removed': { level: 'warning', meaning: 'An error code documented for an operation (in its error examples) is no longer documented there.', example: '`card_product.unavailable` no longer documented for `createCard`', why: 'a client that handles that error code may never see it again' },
  'response-error-code-added': { level: 'info', meaning: 'A new error code documented for an operation.', example: '`card.limit_exceeded` documented for `topupCard`', why: 'nothing breaks; a client may handle the new code' },
  'response-body-changed': { level: 'breaking', meaning: 'The success body changed shape: JSON or none, `{ data }` or another envelope, one item or a list.', example: '`getWallet` answers 204 with no body', why: 'a client that parses the old body fails' },
  'pagination-envelope-changed': { level: 'breaking', meaning: 'A list became paginated, stopped being paginated, or its page envelope lost `data`, `meta` or `links`.', example: '`listCardProducts` becomes paginated', why: 'a client that reads pages (or a plain list) fails to parse the answer' },
  'pagination-default-per-page-changed': { level: 'breaking', meaning: 'The default page size of a paginated list changed: callers that omit it get other pages.', example: '`per_page` default from 50 to 20', why: 'a client that omits the page size gets other pages' },
  'response-field-removed': { level: 'breaking', meaning: 'A required response field is gone.', example: '`Card.masked_pan` (required) removed', why: 'a client that reads the field gets undefined' },
  'response-optional-field-removed': { level: 'warning', meaning: 'An optional response field is gone. A policy rule (default warning: a reader of an optional field already handles its absence; the generated type loses `field?: T`, so code that names it stops compiling).', example: '`Card.nickname` (optional) removed', why: 'a client that reads the field always gets undefined; code that names it in a generated type no longer compiles' },
  'response-field-became-optional': { level: 'breaking', meaning: 'A required response field became optional.', example: '`Order.related_card_uuid` no longer required', why: 'a client that reads the field may get undefined' },
  'response-field-became-nullable': { level: 'breaking', meaning: 'A response value may now be `null`.', example: '`Card.pan_last4` becomes `string | null`', why: 'a client that reads the value may get null' },
  'response-type-changed': { level: 'breaking', meaning: 'A response value may now be of a type it was not.', example: '`Order.held_amount` from `string` to `number`', why: 'a client that reads the value may get a type it does not handle' },
  'response-type-narrowed': { level: 'info', meaning: 'A response value has fewer possible types.', example: '`account_code` from `string | integer` to `string`', why: 'nothing breaks; fewer types arrive' },
  'response-format-changed': { level: 'breaking', meaning: 'The `format` of a response value changed.', example: '`created_at` from `date-time` to `date`', why: 'a client that parses the value by its format fails' },
  'response-format-removed': { level: 'warning', meaning: 'A response value lost its `format`: readers that parse it may fail.', example: '`created_at` loses `format: date-time`', why: 'a client that parses the value by its format may fail' },
  'response-enum-value-added': { level: 'warning', meaning: 'A response enum has a new value: an exhaustive `switch` over the generated union stops compiling or falls through.', example: '`CardStatus` gains `suspended`', why: 'a client that switches over every value meets one it does not handle' },
  'response-enum-value-removed': { level: 'info', meaning: 'A response enum lost a value.', example: '`OrderStatus` loses `processing`', why: 'nothing breaks; one value no longer arrives' },
  'response-field-added': { level: 'info', meaning: 'A new response field.', example: '`Card.nickname` added', why: 'nothing breaks; a new field arrives' },
  'response-field-became-required': { level: 'info', meaning: 'An optional response field became required.', example: '`Card.notes` always present', why: 'nothing breaks; the field is always present' },
  'response-nullable-removed': { level: 'info', meaning: 'A response value is no longer `null`.', example: '`Card.purpose` never null', why: 'nothing breaks; null no longer arrives' },
  'response-constraint-relaxed': { level: 'warning', meaning: 'A response bound or `pattern` was loosened or removed: readers that validate or size storage may fail.', example: '`DecimalString` allows 12 decimals', why: 'a client that validates or sizes storage by the old bound may fail' },
  'response-constraint-tightened': { level: 'info', meaning: 'A response bound or `pattern` tightened.', example: '`maxLength: 64` added to `Card.purpose`', why: 'nothing breaks; values stay within a tighter bound' },
  'response-variant-added': { level: 'breaking', meaning: 'A response value has a new `oneOf`/`anyOf` branch (matched by content, never by position).', example: '`CardTransaction.merchant` gains an `OnlineMerchant` branch', why: 'a client may now receive a shape it has no branch for' },
  'response-variant-removed': { level: 'info', meaning: 'A `oneOf`/`anyOf` branch of a response value is no longer sent.', example: '`merchant` loses its `LegacyMerchant` branch', why: 'nothing breaks; one shape no longer arrives' },
  'response-schema-renamed': { level: 'warning', meaning: 'A response value is now described by another component schema (the old name may still exist): code that annotated the old type name must follow.', example: 'the 202 body of `createCard` from `Order` to `AcceptedOrder`', why: 'code that names the old type for this answer no longer matches it' },
  'response-media-type-removed': { level: 'breaking', meaning: 'A response no longer comes in a media type it came in (each media type is judged on its own; a body removed altogether is `response-body-changed`).', example: '`text/csv` no longer offered by `listCards`', why: 'a client that asks for (or parses) that media type no longer gets it' },
  'response-media-type-added': { level: 'info', meaning: 'A response is offered in a new media type, next to the ones it had.', example: '`application/json` offered next to `text/csv`', why: 'nothing breaks; a client may ask for the new media type' },
  'response-success-status-added': { level: 'info', meaning: 'Another success status is documented next to the existing ones.', example: '`createCard` may also answer 201', why: 'nothing breaks for a client that treats every 2xx as success' },
  'response-header-removed': { level: 'breaking', meaning: 'A required response header is no longer documented.', example: '`X-Request-Id` (required) no longer sent by `getCard`', why: 'a client that reads the header gets nothing' },
  'response-optional-header-removed': { level: 'warning', meaning: 'An optional response header is no longer documented.', example: '`X-RateLimit-Remaining` removed from the 200 of `getCard`', why: 'a client that reads the header when present may stop getting it' },
  'response-header-became-optional': { level: 'breaking', meaning: 'A required response header is no longer required.', example: '`X-Request-Id` no longer required', why: 'a client that reads the header may get nothing' },
  'response-header-added': { level: 'info', meaning: 'A new response header is documented.', example: '`X-RateLimit-Reset` added to every 200', why: 'nothing breaks; a new header can be read' },
  'response-link-removed': { level: 'warning', meaning: 'A response link (OpenAPI `links`) is gone.', example: 'the `GetOrder` link of `createCard`\'s 202 removed', why: 'a client or tool that follows the link can no longer find the next call' },
  'response-link-changed': { level: 'warning', meaning: 'A response link points at another operation or takes other parameters.', example: '`GetCardOfOrder` now reads `$response.body#/data/card_uuid`', why: 'a client or tool that follows the link calls something else' },
  'response-link-added': { level: 'info', meaning: 'A new response link.', example: '`TopupCardOfOrder` link added', why: 'nothing breaks; a new link can be followed' },
  'example-no-longer-valid': { level: 'warning', meaning: 'An example of a request, response or payload does not match its schema in the head (patterns and formats are not run), where the base\'s example did: the documentation now shows something the contract refuses.', example: 'the `createCard` example lacks the now-required `purpose`', why: 'an integrator who copies the documented example gets an error' },
  // Security
  'security-ability-changed': { level: 'breaking', meaning: 'A token that was enough before may now be refused: an ability was added to, or an alternative removed from, the operation\'s requirement.', example: '`listCardProducts` no longer accepts `cards.write`', why: 'a client whose token was enough before may now be refused (401 or 403)' },
  'security-ability-relaxed': { level: 'info', meaning: 'The operation accepts more tokens.', example: '`getCard` also accepts `cards.write`', why: 'nothing breaks; more tokens are accepted' },
  'security-scheme-changed': { level: 'breaking', meaning: 'A security scheme changed type, scheme or location: reported once, at the scheme, with every operation that uses it.', example: '`bearerAuth` replaced by an API-key header', why: 'a client that authenticates the old way is refused' },
  'security-added': { level: 'breaking', meaning: 'An operation that could be called without credentials now requires them.', example: '`ping` now requires a bearer token', why: 'a client that sends no credentials is now refused (401)' },
  'security-removed': { level: 'info', meaning: 'An operation no longer requires credentials (or accepts a call without them).', example: '`listCardProducts` becomes public', why: 'nothing breaks; credentials are no longer needed' },
  // Webhooks
  'webhook-event-removed': { level: 'breaking', meaning: 'An event is no longer sent: it disappears from `EventName` and `EventMap`.', example: '`card.unfrozen` removed', why: 'a receiver waiting for the event never gets it again' },
  'webhook-event-added': { level: 'info', meaning: 'A new event: a typed dispatcher needs `onUnknownEvent` (or an update) to handle it.', example: '`card.limit_changed` added', why: 'a receiver gets an event it may not handle (a typed dispatcher needs onUnknownEvent)' },
  'webhook-signature-header-changed': { level: 'breaking', meaning: 'The signature header of an event has another name, is no longer required, or its format changed: receivers stop verifying.', example: '`X-Service-Signature` renamed `X-Signature`', why: 'a receiver that verifies deliveries rejects every one of them' },
  'webhook-payload-field-removed': { level: 'breaking', meaning: 'A required payload field is gone.', example: '`order.completed` loses `data.card_uuid`', why: 'a receiver that reads the field gets undefined' },
  'webhook-payload-optional-field-removed': { level: 'warning', meaning: 'An optional payload field is gone. A policy rule (default warning, as `response-optional-field-removed`).', example: '`order.failed` loses its optional `data.reason`', why: 'a receiver that reads the field always gets undefined; code that names it in a generated type no longer compiles' },
  'webhook-payload-field-became-optional': { level: 'breaking', meaning: 'A required payload field became optional.', example: '`data.completed_at` no longer required', why: 'a receiver that reads the field may get undefined' },
  'webhook-payload-field-became-nullable': { level: 'breaking', meaning: 'A payload value may now be `null`.', example: '`data.held_amount` nullable', why: 'a receiver that reads the value may get null' },
  'webhook-payload-type-changed': { level: 'breaking', meaning: 'A payload value may now be of a type it was not.', example: '`event_id` from `integer` to `string`', why: 'a receiver that reads the value may get a type it does not handle' },
  'webhook-payload-type-narrowed': { level: 'info', meaning: 'A payload value has fewer possible types.', example: '`card_id` from `integer | string` to `integer`', why: 'nothing breaks; fewer types arrive' },
  'webhook-payload-format-changed': { level: 'breaking', meaning: 'The `format` of a payload value changed.', example: '`occurred_at` from `date-time` to `date`', why: 'a receiver that parses the value by its format fails' },
  'webhook-payload-format-removed': { level: 'warning', meaning: 'A payload value lost its `format`.', example: '`occurred_at` loses `format: date-time`', why: 'a receiver that parses the value by its format may fail' },
  'webhook-payload-enum-value-added': { level: 'warning', meaning: 'A payload enum has a new value: exhaustive `switch`es in receivers break.', example: '`OrderType` gains `replace_card`', why: 'a receiver that switches over every value meets one it does not handle' },
  'webhook-payload-enum-value-removed': { level: 'info', meaning: 'A payload enum lost a value.', example: '`FreezeOrigin` loses `system`', why: 'nothing breaks; one value no longer arrives' },
  'webhook-payload-field-added': { level: 'info', meaning: 'A new payload field.', example: '`data.merchant_mcc` added', why: 'nothing breaks; a new field arrives' },
  'webhook-payload-field-became-required': { level: 'info', meaning: 'An optional payload field became required.', example: '`data.reason` always present', why: 'nothing breaks; the field is always present' },
  'webhook-payload-nullable-removed': { level: 'info', meaning: 'A payload value is no longer `null`.', example: '`data.card_uuid` never null', why: 'nothing breaks; null no longer arrives' },
  'webhook-payload-constraint-relaxed': { level: 'warning', meaning: 'A payload bound or `pattern` was loosened or removed.', example: '`card_last4` `maxLength` 4 to 19', why: 'a receiver that validates or sizes storage by the old bound may fail' },
  'webhook-payload-constraint-tightened': { level: 'info', meaning: 'A payload bound or `pattern` tightened.', example: '`minimum: 0` added to `penalty_amount`', why: 'nothing breaks; values stay within a tighter bound' },
  'webhook-payload-variant-added': { level: 'breaking', meaning: 'A payload value has a new `oneOf`/`anyOf` branch (matched by content, never by position).', example: '`data.merchant` gains an `OnlineMerchant` branch', why: 'a receiver may now get a shape it has no branch for' },
  'webhook-payload-variant-removed': { level: 'info', meaning: 'A `oneOf`/`anyOf` branch of a payload value is no longer sent.', example: '`data.merchant` loses its `LegacyMerchant` branch', why: 'nothing breaks; one shape no longer arrives' },
  'webhook-payload-schema-renamed': { level: 'warning', meaning: 'A payload value is now described by another component schema: code that annotated the old type name must follow.', example: '`data` from `OrderData` to `OrderCompletedData`', why: 'receiver code that names the old type for this payload no longer matches it' },
  // Generated code and version
  'type-removed': { level: 'warning', meaning: 'A component schema is gone or renamed: the exported type alias of that name disappears from @card-api/types.', example: '`export type CardListItem` no longer generated', why: 'code that names the type no longer compiles' },
  'type-added': { level: 'info', meaning: 'A new component schema: a new exported type.', example: '`export type CardLimit` added', why: 'nothing breaks; a new type can be named' },
  'version-major-bump-missing': { level: 'breaking', meaning: 'Breaking changes remain (after overrides) but `info.version` keeps its major number.', example: '`1.0.0` to `1.1.0` with a removed field', why: 'package managers install the breaking release as a compatible upgrade' },
} as const satisfies Record<string, CheckDoc>;

export type CheckId = keyof typeof CHECKS;

/**
 * The checks whose level is a team's policy rather than a fact about the wire, with why each default is what it is.
 * A reviewer sets them in the override file (`policy:`) or with `--policy <id>=<level>`. For comparison, oasdiff
 * (github.com/oasdiff/oasdiff, checker/rules.go) reports an optional response property removed and a response enum
 * value added as warnings, and an operationId change only when its optional check is enabled.
 */
export const POLICY = {
  'operation-id-changed': 'the call on the wire is unchanged; only code generated from the id is renamed, and its compiler says where',
  'response-optional-field-removed': 'a reader of an optional field already handles its absence at run time; typed code that names it stops compiling',
  'webhook-payload-optional-field-removed': 'as for a response: a receiver already handles the absence of an optional field',
  'response-enum-value-added': 'a reader that switches over every value meets one it does not know; most readers have a default branch',
  'webhook-payload-enum-value-added': 'as for a response: a receiver that switches over every value meets one it does not know',
  'deprecated-operation-removed': 'the deprecation (and its sunset date, when past) was the notice; removing the operation before that date is breaking',
} as const satisfies Partial<Record<CheckId, string>>;

export type PolicyRule = keyof typeof POLICY;
export const POLICY_RULES = Object.keys(POLICY) as PolicyRule[];

export function isPolicyRule(value: string): value is PolicyRule {
  return Object.hasOwn(POLICY, value);
}

export type Bump = 'major' | 'minor' | 'patch' | 'none';

/** Info-level checks that add nothing a caller can use: the service only promises more about what it sends. */
const PATCH_ONLY = new Set<string>([
  'response-type-narrowed', 'response-enum-value-removed', 'response-field-became-required', 'response-nullable-removed', 'response-constraint-tightened', 'response-variant-removed',
  'webhook-payload-type-narrowed', 'webhook-payload-enum-value-removed', 'webhook-payload-field-became-required', 'webhook-payload-nullable-removed', 'webhook-payload-constraint-tightened', 'webhook-payload-variant-removed',
  'response-error-status-added', 'response-error-code-added',
]);

/**
 * The semver bump a change asks of the generated packages: breaking → major; a warning or an addition (an
 * operation, a field, a value accepted) → minor; a promise kept tighter → patch.
 */
export function bumpOf(id: CheckId, level: Level): Exclude<Bump, 'none'> {
  if (level === 'breaking') return 'major';
  if (level === 'warning') return 'minor';
  return PATCH_ONLY.has(id) ? 'patch' : 'minor';
}
export const CHECK_IDS = Object.keys(CHECKS) as CheckId[];

export function isCheckId(value: string): value is CheckId {
  return Object.hasOwn(CHECKS, value);
}

/** The catalogue as one Markdown table (docs/diff-checks.md embeds it between markers). */
export function renderCatalogueTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = CHECK_IDS.map((id) => {
    const c: CheckDoc = CHECKS[id];
    return `| \`${id}\` | ${c.level} | ${cell(c.meaning)} | ${cell(c.why)} | ${cell(c.example)} |`;
  });
  return ['| id | level | meaning | why (the reason printed with the change) | example |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** The policy rules as one Markdown table: rule, default level, why (docs/diff-checks.md embeds it between markers). */
export function renderPolicyTable(): string {
  const rows = POLICY_RULES.map((id) => `| \`${id}\` | ${CHECKS[id].level} | ${POLICY[id]} |`);
  return ['| rule | default | why |', '| --- | --- | --- |', ...rows].join('\n');
}
