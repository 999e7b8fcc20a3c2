import type { WebhookResult } from '../dispatcher.js';
import type { WebhookEvent } from '../types.js';

/** The part of the response body an adapter sends, shaped like the API's own errors (`{ error: { code, message } }`). */
export function resultBody(result: WebhookResult<WebhookEvent>): string {
  switch (result.status) {
    case 400:
      return JSON.stringify({ error: { code: result.reason, message: result.message } });
    case 409:
      return JSON.stringify({ error: { code: 'in_flight', message: 'This event is being handled by another delivery; retry later' } });
    case 500:
      return HANDLER_FAILED;
    default:
      return JSON.stringify({ received: true, outcome: result.outcome });
  }
}

/** The header value as one string; Node joins repeated custom headers, arrays come from hand-built requests. */
export function headerValue(value: string | readonly string[] | undefined | null): string | undefined {
  if (value == null) return undefined;
  return typeof value === 'string' ? value : value.join(',');
}

/** The 500 body. The handler's error stays in the process (`onError`): it may hold data the sender should not see. */
export const HANDLER_FAILED = JSON.stringify({
  error: { code: 'handler_failed', message: 'The webhook handler failed; the delivery will be retried' },
});
