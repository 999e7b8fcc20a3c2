// Copied by gen-card-api from templates/webhooks/adapters/http.ts. Do not edit: change the template and run the generator.
import type { WebhookResult } from '../dispatcher.js';
import type { WebhookEvent } from '../types.js';

/** An error body shaped like the API's own errors (D2): `{ error: { code, message } }`. */
export const errorBody = (code: string, message: string) => JSON.stringify({ error: { code, message } });

/** The 500 body. The handler's error stays in the process (`onError`): it may hold data the sender should not see. */
export const HANDLER_FAILED = errorBody('handler_failed', 'The webhook handler failed; the delivery will be retried');

/** The response body for a dispatcher result. */
export function resultBody(result: WebhookResult<WebhookEvent>): string {
  return result.status === 200
    ? JSON.stringify({ received: true, outcome: result.outcome })
    : result.status === 400
      ? errorBody(result.reason, result.message)
      : result.status === 409
        ? errorBody('in_flight', 'Event being handled by another delivery')
        : HANDLER_FAILED;
}

/** The header value as one string; Node joins repeated custom headers, arrays come from hand-built requests. */
export function headerValue(value: string | readonly string[] | undefined | null): string | undefined {
  return value == null || typeof value === 'string' ? (value ?? undefined) : value.join(',');
}
