import type { Context } from './context.js';
import { SandboxError } from './errors.js';
import type { CardSecrets } from './types.js';

/**
 * The only way out for PAN, CVV and expiry: the later webhook issue encrypts them into
 * `card.issued.secrets`. No REST-facing service reads the `card_secrets` table, and a card's row lives only
 * from issuance until that event is encrypted (or known not to be sent): then it is deleted, and the store
 * zeroes freed pages (SQLite's `secure_delete`) instead of keeping the digits in the file.
 */
export interface SecretsService {
  /**
   * The card's secrets (D22 shape) while the sandbox still holds them, that is until `card.issued.secrets`
   * was encrypted for it or the card's issue ended without it; 404 `card.not_found` otherwise.
   */
  forCard(cardUuid: string): CardSecrets;
}

export function createSecretsService(ctx: Context): SecretsService {
  return {
    forCard(cardUuid) {
      const row = ctx.db.prepare<[string], CardSecrets>('SELECT pan, cvv, expiry_month, expiry_year FROM card_secrets WHERE card_uuid = ?').get(String(cardUuid).toLowerCase());
      if (row === undefined) throw new SandboxError(404, 'card.not_found', `No secrets held for card ${String(cardUuid)}: they are kept only until card.issued.secrets is encrypted.`);
      return { pan: row.pan, cvv: row.cvv, expiry_month: row.expiry_month, expiry_year: row.expiry_year };
    },
  };
}

/** Deletes a card's secrets; runs inside the caller's write transaction. */
export function purgeSecrets(ctx: Context, cardUuid: string): void {
  ctx.db.prepare('DELETE FROM card_secrets WHERE card_uuid = ?').run(cardUuid);
}
