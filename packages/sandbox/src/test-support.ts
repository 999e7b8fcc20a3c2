import { createManualClock } from './clock.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
import type { CreateCardBody } from './types.js';

/**
 * Test fixture: an in-memory sandbox on a manual clock (no real timers) with the default
 * workspace seeded. Shared by the `*.test.ts` files of this package.
 */
export function setup(options: SandboxOptions = {}): { sandbox: Sandbox; ws: number; token: string; tokenId: number; clock: ReturnType<typeof createManualClock> } {
  const clock = createManualClock('2026-03-01T12:00:00.000Z');
  const sandbox = createSandbox({ clock, orderLatencyMs: 50, closeDelayMs: 1000, ...options });
  const seeded = sandbox.seedDefaultWorkspace();
  return { sandbox, ws: seeded.workspace.id, token: seeded.token, tokenId: seeded.tokenId, clock };
}

/** A valid `POST /cards` body for the USD standard product (id 1: fee 5.00, minimum 10.00, no custom billing address). */
export function issueBody(overrides: Partial<CreateCardBody> = {}): CreateCardBody {
  return { card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace', ...overrides };
}

/** Issues a card and runs the order to completion; returns the card uuid. */
export function issueActiveCard(sandbox: Sandbox, ws: number, overrides: Partial<CreateCardBody> = {}): string {
  const order = sandbox.cards.create(ws, issueBody(overrides));
  sandbox.advance(1000);
  const done = sandbox.orders.get(ws, order.uuid);
  // D29: the order names its card from the 202 on; the card is active once the order completed.
  if (done.status !== 'completed' || typeof done.related_card_uuid !== 'string' || done.related_card_uuid !== order.related_card_uuid) throw new Error('issue did not complete');
  return done.related_card_uuid;
}

/** The uuid of the workspace's newest card (listed from the acceptance of its issue order on). */
export function newestCard(sandbox: Sandbox, ws: number): string {
  const card = sandbox.cards.list(ws, { per_page: 1 }).data[0];
  if (card === undefined) throw new Error('the workspace has no card');
  return card.uuid;
}

/** Calls `fn` and returns the SandboxError it throws (fails when it does not throw). */
export function catchError(fn: () => unknown): { status: number; code: string; message: string; fieldErrors: Record<string, string[]> | undefined } {
  try {
    fn();
  } catch (error) {
    return error as { status: number; code: string; message: string; fieldErrors: Record<string, string[]> | undefined };
  }
  throw new Error('expected an error, none was thrown');
}
