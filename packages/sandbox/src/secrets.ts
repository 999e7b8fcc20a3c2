import type { Context } from './context.js';
import { SandboxError } from './errors.js';
import type { CardSecrets } from './types.js';

/**
 * The only way out for PAN, CVV and expiry: the later webhook issue encrypts them into
 * `card.issued.secrets`. No REST-facing service reads the `card_secrets` table.
 */
export interface SecretsService {
  /** The card's secrets (D22 shape); 404 `card.not_found` for an unknown card. */
  forCard(cardUuid: string): CardSecrets;
}

export function createSecretsService(ctx: Context): SecretsService {
  return {
    forCard(cardUuid) {
      const row = ctx.db.prepare<[string], CardSecrets>('SELECT pan, cvv, expiry_month, expiry_year FROM card_secrets WHERE card_uuid = ?').get(String(cardUuid).toLowerCase());
      if (row === undefined) throw new SandboxError(404, 'card.not_found', `No card ${String(cardUuid)}.`);
      return { pan: row.pan, cvv: row.cvv, expiry_month: row.expiry_month, expiry_year: row.expiry_year };
    },
  };
}
