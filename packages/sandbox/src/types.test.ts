/**
 * One source of truth (issue 13): the sandbox's enumerations are the arrays `@card-api/types` generates from
 * the spec, not copies, so a value added to or removed from the spec reaches the sandbox through the compiler.
 */
import * as generated from '@card-api/types';
import { EVENT_NAMES } from '@card-api/webhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { DeliveryStatusValues } from './control/types.gen.js';
import * as sandbox from './types.js';

describe('sandbox enumerations and shapes come from the generated types', () => {
  it.each([
    ['CARD_STATUSES', sandbox.CARD_STATUSES, generated.CardStatusValues],
    ['CARDHOLDER_TYPES', sandbox.CARDHOLDER_TYPES, generated.CardholderTypeValues],
    ['ORDER_STATUSES', sandbox.ORDER_STATUSES, generated.OrderStatusValues],
    ['ORDER_TYPES', sandbox.ORDER_TYPES, generated.OrderTypeValues],
    ['ORDER_FAILURE_REASONS', sandbox.ORDER_FAILURE_REASONS, generated.OrderFailureReasonValues],
    ['LEDGER_REASON_CODES', sandbox.LEDGER_REASON_CODES, generated.LedgerReasonCodeValues],
    ['ABILITIES', sandbox.ABILITIES, generated.AbilityValues],
    ['TRANSACTION_TYPES', sandbox.TRANSACTION_TYPES, generated.TransactionTypeValues],
    ['TRANSACTION_STATUSES', sandbox.TRANSACTION_STATUSES, generated.TransactionStatusValues],
    ['DECLINE_REASONS', sandbox.DECLINE_REASONS, generated.DeclineReasonValues],
    ['CONSUMPTION_BILL_KINDS', sandbox.CONSUMPTION_BILL_KINDS, generated.ConsumptionBillKindValues],
    ['CONSUMPTION_BILL_STATUSES', sandbox.CONSUMPTION_BILL_STATUSES, generated.ConsumptionBillStatusValues],
    ['WEBHOOK_EVENT_CODES', sandbox.WEBHOOK_EVENT_CODES, EVENT_NAMES],
    ['DELIVERY_STATUSES', sandbox.DELIVERY_STATUSES, DeliveryStatusValues],
  ] as const)('%s is the generated array itself', (_name, ours, theirs) => {
    expect(ours).toBe(theirs);
  });

  it('types the resources as the spec does', () => {
    expectTypeOf<sandbox.CardDetail>().toEqualTypeOf<generated.CardDetail>();
    expectTypeOf<sandbox.CardListRow>().toEqualTypeOf<generated.Card>();
    expectTypeOf<sandbox.Order>().toEqualTypeOf<generated.Order>();
    expectTypeOf<sandbox.LedgerRow>().toEqualTypeOf<generated.LedgerEntry>();
    expectTypeOf<sandbox.Wallet>().toEqualTypeOf<generated.Wallet>();
    expectTypeOf<sandbox.CardProduct>().toEqualTypeOf<generated.CardProduct>();
    expectTypeOf<sandbox.AcceptedOrder>().toMatchTypeOf<generated.AcceptedOrder>();
    expectTypeOf<sandbox.CardTransaction>().toMatchTypeOf<generated.CardTransaction>();
  });
});
