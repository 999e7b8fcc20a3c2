/**
 * Target `webhooks`: @card-api/webhooks. The event types come from the spec's `webhooks`; the runtime from
 * templates/webhooks, whose generic functions the entry files bind to the generated `CardApiEvent`.
 */
import { copyTemplates } from '../core/templates.js';
import { printFile } from '../core/print.js';
import { generatedHeader, type GeneratedFile, type Target } from '../core/target.js';
import type { ApiModel } from '../model/index.js';
import { transformEvents, transformFixtures } from './events.js';

const DIR = 'packages/webhooks/src';

/** An entry that binds the runtime's generic verifier and dispatcher to `CardApiEvent`. */
function boundEntry(header: string, runtime: string, verify: string, extraExports: string[]): string {
  return printFile([
    `import { ${verify} as verifyGeneric, createWebhookHandler as createHandler, type ConstructEventOptions, type RawBody, type WebhookHandler, type WebhookHandlerOptions, type WebhookSecrets } from './runtime/${runtime}.js';`,
    "import { EVENT_NAMES, type CardApiEvent } from './events.gen.js';",
    "export * from './events.gen.js';",
    `export { ${extraExports.join(', ')}, parseSignatureHeader, WebhookVerificationError, createMemoryDedupeStore, dedupeKey, type ConstructEventOptions, type DedupeClaim, type DedupeKey, type DedupeStore, type EventForPattern, type EventPattern, type MemoryDedupeOptions, type OrderEvent, type OrderEventSource, type ParsedSignatureHeader, type RawBody, type WebhookHandler, type WebhookHandlerOptions, type WebhookEvent, type WebhookResult, type WebhookSecrets, type WebhookVerificationReason } from './runtime/${runtime}.js';`,
    "/** Options of {@link createWebhookHandler}: the event catalogue is the spec's, so only codes outside it reach `onUnknownEvent`. */\nexport type CardApiWebhookHandlerOptions = Omit<WebhookHandlerOptions<CardApiEvent>, 'knownEvents'>;",
    [
      '/**',
      ' * Verifies a delivery against the raw body bytes (`X-Service-Signature`, HMAC-SHA256, 300 s tolerance)',
      ' * and returns the typed event; throws `WebhookVerificationError` with a `reason`.',
      ' *',
      ' * @example',
      ' * ```ts',
      " * const event = constructEvent(rawBody, req.headers['x-service-signature'], process.env.CARD_API_WEBHOOK_SECRET!);",
      " * if (event.event === 'order.completed') console.log(event.data.card_uuid);",
      ' * ```',
      ' */',
      `export function ${verify}(rawBody: RawBody, signatureHeader: string | null | undefined, secrets: WebhookSecrets, options?: ConstructEventOptions)${verify.endsWith('Async') ? ': Promise<CardApiEvent>' : ': CardApiEvent'} {`,
      `  return verifyGeneric<CardApiEvent>(rawBody, signatureHeader, secrets, options);`,
      '}',
    ].join('\n'),
    [
      '/**',
      ' * A typed dispatcher: `.on(name, handler)` infers the payload, `card.transaction.*` matches every',
      ' * transaction event, duplicates are dropped by `event_id`, `handle(rawBody, header)` returns the status to answer.',
      ' */',
      'export function createWebhookHandler(options: CardApiWebhookHandlerOptions): WebhookHandler<CardApiEvent> {',
      '  return createHandler<CardApiEvent>({ knownEvents: EVENT_NAMES, ...options });',
      '}',
    ].join('\n'),
  ], { header });
}

export async function renderWebhooks(model: ApiModel, typesModule: string): Promise<GeneratedFile[]> {
  const header = generatedHeader(model.specName);
  return [
    { path: `${DIR}/events.gen.ts`, contents: printFile(transformEvents(model, typesModule), { header }) },
    { path: `${DIR}/fixtures.gen.ts`, contents: printFile(transformFixtures(model), { header }) },
    { path: `${DIR}/index.ts`, contents: boundEntry(header, 'index', 'constructEvent', ['signPayload']) },
    { path: `${DIR}/web.ts`, contents: boundEntry(header, 'web', 'constructEventAsync', ['signPayloadAsync', 'toFetchHandler']) },
    { path: `${DIR}/adapters.ts`, contents: printFile(["export * from './runtime/adapters.js';"], { header }) },
    { path: `${DIR}/secrets.ts`, contents: printFile(["export * from './runtime/secrets.js';"], { header }) },
    { path: `${DIR}/lifeline.ts`, contents: printFile(["export * from './runtime/lifeline.js';"], { header }) },
    {
      path: `${DIR}/testing.ts`,
      contents: printFile(["export { signPayload } from './runtime/index.js';", "export { signPayloadAsync } from './runtime/web.js';", "export { eventFixtures } from './fixtures.gen.js';"], { header }),
    },
    ...(await copyTemplates('webhooks', DIR)),
  ];
}

export const webhooksTarget: Target = {
  name: 'webhooks',
  packageDir: 'packages/webhooks',
  render: (model) => renderWebhooks(model, '@card-api/types'),
};
