import { createHash, createPublicKey, randomBytes } from 'node:crypto';
import { referenceCached, type Context } from './context.js';
import { FieldErrors, SandboxError } from './errors.js';
import { requireWorkspace } from './ledger.js';
import { WEBHOOK_EVENT_CODES, type CreatedWebhookEndpoint, type SandboxEvent, type WebhookEndpoint, type WorkspacePublicKey } from './types.js';

/** Input of `registerEndpoint`. */
export interface RegisterEndpointInput {
  /** `http://` or `https://` URL the events are POSTed to. */
  url: string;
  /**
   * Event codes (section 6.4) or `<prefix>.*` patterns such as `card.transaction.*`; `'*'` or
   * absent = every event.
   */
  events?: readonly string[] | '*' | undefined;
  description?: string | null | undefined;
}

/** Input of `updateEndpoint`: the fields to change (at least one). */
export interface UpdateEndpointInput {
  url?: string | undefined;
  events?: readonly string[] | '*' | undefined;
  description?: string | null | undefined;
}

/**
 * Webhook endpoints and the RSA public key of a workspace: what the contract puts in the
 * developer settings screen (sections 1, 2.10, 6.6), with no public API. A future
 * `/sandbox/...` control API exposes it.
 */
export interface WebhooksService {
  /**
   * Registers an endpoint, active at once. Events recorded from now on are delivered to it;
   * earlier ones are not. The answer is the only place its signing secret (`whsec_...`) appears.
   * 422 `validation.failed` for a bad URL or an unknown event code.
   */
  registerEndpoint(workspaceId: number, input: RegisterEndpointInput): CreatedWebhookEndpoint;
  /** The workspace's endpoints, oldest first, without secrets. */
  listEndpoints(workspaceId: number): WebhookEndpoint[];
  /**
   * Disables an endpoint (idempotent): nothing more is sent to it and its waiting deliveries
   * become `cancelled`. 404 `api.not_found` for an endpoint of another workspace.
   */
  disableEndpoint(workspaceId: number, endpointId: number): WebhookEndpoint;
  /**
   * Makes a disabled endpoint active again (idempotent), with the same secret. Events recorded while it was
   * disabled were not queued for it; its failed or cancelled deliveries stay as they are until redelivered
   * (`deliveries.deliverNow`). 404 `api.not_found` for an endpoint of another workspace.
   */
  enableEndpoint(workspaceId: number, endpointId: number): WebhookEndpoint;
  /**
   * Changes an endpoint's URL, subscription or description, keeping its id, secret, status and deliveries (those
   * still waiting go to the new URL). 404 `api.not_found` for an endpoint of another workspace, 422 as
   * `registerEndpoint` for a bad URL or event code.
   */
  updateEndpoint(workspaceId: number, endpointId: number, input: UpdateEndpointInput): WebhookEndpoint;
  /**
   * The endpoint's signing secret. The real service shows it once; the sandbox keeps it readable so that a tool
   * can reuse its endpoint (and the secret its receiver was configured with) across runs.
   */
  endpointSecret(workspaceId: number, endpointId: number): string;
  /**
   * Uploads (or replaces) the workspace's one RSA public key: SPKI (`PUBLIC KEY`) or PKCS#1
   * (`RSA PUBLIC KEY`) PEM, at least 2048 bits. Private keys are refused. The fingerprint is
   * D15's: hex SHA-256 of the DER SubjectPublicKeyInfo.
   */
  setPublicKey(workspaceId: number, publicKeyPem: string): WorkspacePublicKey;
  /** The workspace's public key, or null. */
  getPublicKey(workspaceId: number): WorkspacePublicKey | null;
  /** Removes the public key (idempotent); `card.issued.secrets` stops. */
  removePublicKey(workspaceId: number): void;
}

interface EndpointRow {
  id: number;
  workspace_id: number;
  url: string;
  events: string;
  secret: string;
  status: 'active' | 'disabled';
  disabled_reason: 'manual' | 'failing' | null;
  description: string | null;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    url: row.url,
    events: row.events === '*' ? '*' : (JSON.parse(row.events) as string[]),
    status: row.status,
    disabled_reason: row.disabled_reason,
    description: row.description,
    created_at: row.created_at,
    disabled_at: row.disabled_at,
  };
}

/** Whether a stored subscription (`'*'` or a JSON array of codes and `prefix.*` patterns) covers `code`. */
export function subscribes(stored: string, code: string): boolean {
  if (stored === '*') return true;
  return (JSON.parse(stored) as string[]).some((p) => p === code || (p.endsWith('.*') && code.startsWith(p.slice(0, -1))));
}

function checkEvents(errors: FieldErrors, events: RegisterEndpointInput['events']): string {
  if (events === undefined || events === '*') return '*';
  if (!Array.isArray(events) || events.length === 0) {
    errors.add('events', "must be a non-empty array of event codes, or '*'");
    return '*';
  }
  const codes = [...new Set(events as string[])];
  codes.forEach((code, i) => {
    const known =
      typeof code === 'string' &&
      ((WEBHOOK_EVENT_CODES as readonly string[]).includes(code) || (code.endsWith('.*') && WEBHOOK_EVENT_CODES.some((c) => c.startsWith(code.slice(0, -1)))));
    if (!known) errors.add(`events.${i}`, 'must be an event code of the catalogue (section 6.4) or a prefix pattern such as card.transaction.*');
  });
  return codes.includes('*') ? '*' : JSON.stringify(codes.sort());
}

/** An absolute http(s) URL without credentials, normalised; undefined (with a field error) otherwise. */
function checkUrl(errors: FieldErrors, value: unknown): string | undefined {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || !['http:', 'https:'].includes(url.protocol)) errors.add('url', 'must be an absolute http:// or https:// URL');
  else if (url.username !== '' || url.password !== '') errors.add('url', 'must not carry credentials');
  else return url.toString();
  return undefined;
}

function checkDescription(errors: FieldErrors, description: unknown): void {
  if (description !== undefined && description !== null && (typeof description !== 'string' || description.length > 500)) errors.add('description', 'must be a string of at most 500 characters');
}

/** A signing secret: `whsec_` + 32 random bytes, base64url. */
function mintSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * Marks an endpoint disabled and cancels what still waits for it. Shared by the manual
 * disable and the delivery worker's D19 rule; must run inside a write transaction.
 */
export function disableEndpointRow(ctx: Context, endpointId: number, reason: 'manual' | 'failing'): void {
  const now = ctx.nowIso();
  ctx.db.prepare(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, disabled_at = ?, updated_at = ? WHERE id = ? AND status = 'active'`).run(reason, now, now, endpointId);
  ctx.db
    .prepare(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at_ms = NULL, last_error = COALESCE(last_error, 'endpoint disabled'), updated_at = ? WHERE endpoint_id = ? AND status = 'pending'`)
    .run(now, endpointId);
}

/**
 * Queues one delivery of `event` per active endpoint of its workspace that subscribes to it.
 * Called by `recordEvent` in the transaction that records the event, so that an event and its
 * deliveries exist together. The envelope is serialised here, once: every attempt sends these bytes.
 */
export function enqueueDeliveries(ctx: Context, event: SandboxEvent): void {
  const targets = activeEndpoints(ctx, event.workspace_id).filter((e) => subscribes(e.events, event.event));
  if (targets.length === 0) return;
  // D13: card.issued.secrets may be sent as the contract's example shows it, without event_id and occurred_at.
  const body =
    event.event === 'card.issued.secrets' && ctx.options.cardSecretsEnvelope === 'example'
      ? JSON.stringify({ event: event.event, workspace_id: event.workspace_id, data: event.data })
      : JSON.stringify({ event: event.event, event_id: event.event_id, occurred_at: event.occurred_at, workspace_id: event.workspace_id, data: event.data });
  const now = ctx.nowIso();
  const insert = ctx.db.prepare(
    `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, body, status, attempts, next_attempt_at_ms, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
  );
  for (const endpoint of targets) insert.run(event.workspace_id, endpoint.id, event.event_id, event.event, body, ctx.nowMs(), now, now);
}

/**
 * Called when an issue order completes: if the workspace has an RSA key and an active endpoint
 * subscribed to `card.issued.secrets`, queues the card for the delivery worker, which encrypts
 * the secrets (asynchronously, outside any transaction) and records the event.
 */
export function queueSecretsEvent(ctx: Context, workspaceId: number, cardUuid: string): boolean {
  if (!hasPublicKey(ctx, workspaceId) || !hasSecretsSubscriber(ctx, workspaceId)) return false;
  ctx.db.prepare('INSERT OR IGNORE INTO secrets_event_jobs (card_uuid, workspace_id, created_at) VALUES (?, ?, ?)').run(cardUuid, workspaceId, ctx.nowIso());
  return true;
}

/** The workspace's active endpoints, by id (cached between changes of the reference tables, which include the endpoints). */
const activeEndpoints = referenceCached(
  (ctx: Context, workspaceId: number): readonly Readonly<{ id: number; events: string }>[] =>
    ctx.db.prepare<[number], { id: number; events: string }>(`SELECT id, events FROM webhook_endpoints WHERE workspace_id = ? AND status = 'active' ORDER BY id`).all(workspaceId),
);

/** Whether the workspace has registered an RSA public key (cached likewise). */
const hasPublicKey = referenceCached((ctx: Context, workspaceId: number): boolean => ctx.db.prepare('SELECT 1 FROM workspace_public_keys WHERE workspace_id = ?').get(workspaceId) !== undefined);

/** Whether an active endpoint of the workspace subscribes to `card.issued.secrets`. */
export function hasSecretsSubscriber(ctx: Context, workspaceId: number): boolean {
  return activeEndpoints(ctx, workspaceId).some((e) => subscribes(e.events, 'card.issued.secrets'));
}

const PUBLIC_PEM = /^-----BEGIN (RSA )?PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END (RSA )?PUBLIC KEY-----\s*$/;

/** D15 fingerprint and normalised PEM of an RSA public key, or a 422. */
export function inspectPublicKey(pem: unknown): { pem: string; fingerprint: string } {
  const invalid = (message: string) => new SandboxError(422, 'validation.failed', `The public key ${message}.`, { public_key: [message] });
  if (typeof pem !== 'string') throw invalid('must be a PEM string');
  // Checked before parsing: createPublicKey would happily derive a public key from a private one, and we never want to hold a private key.
  if (/PRIVATE KEY/.test(pem)) throw invalid('must be a public key; a private key was given and was not stored');
  if (!PUBLIC_PEM.test(pem.trim() + '\n')) throw invalid('must be a PEM "PUBLIC KEY" (SPKI) or "RSA PUBLIC KEY" (PKCS#1) block');
  let key;
  try {
    key = createPublicKey(pem.trim());
  } catch {
    throw invalid('could not be parsed');
  }
  if (key.asymmetricKeyType !== 'rsa') throw invalid('must be an RSA key (RSA-OAEP-256)');
  if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw invalid('must be at least 2048 bits');
  const der = key.export({ type: 'spki', format: 'der' });
  return { pem: key.export({ type: 'spki', format: 'pem' }).toString(), fingerprint: createHash('sha256').update(der).digest('hex') };
}

export function loadPublicKey(ctx: Context, workspaceId: number): WorkspacePublicKey | null {
  const row = ctx.db
    .prepare<[number], { workspace_id: number; public_key_pem: string; fingerprint: string; created_at: string }>('SELECT * FROM workspace_public_keys WHERE workspace_id = ?')
    .get(workspaceId);
  return row === undefined ? null : { workspace_id: row.workspace_id, public_key_pem: row.public_key_pem, key_fingerprint: row.fingerprint, created_at: row.created_at };
}

export function createWebhooksService(ctx: Context): WebhooksService {
  const owned = (workspaceId: number, endpointId: number): EndpointRow => {
    const row = ctx.db.prepare<[number], EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?').get(endpointId);
    if (row === undefined || row.workspace_id !== workspaceId) throw new SandboxError(404, 'api.not_found', `No webhook endpoint ${String(endpointId)} in this workspace.`);
    return row;
  };

  return {
    registerEndpoint(workspaceId, input) {
      const errors = new FieldErrors();
      const raw = (input ?? {}) as RegisterEndpointInput;
      const url = checkUrl(errors, raw.url);
      const events = checkEvents(errors, raw.events);
      checkDescription(errors, raw.description);
      errors.throwIfAny();
      return ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        const now = ctx.nowIso();
        const secret = mintSecret();
        const id = ctx.db
          .pluck<unknown[], number>(`INSERT INTO webhook_endpoints (workspace_id, url, events, secret, status, description, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?, ?) RETURNING id`)
          .get(workspaceId, url!, events, secret, raw.description ?? null, now, now)!;
        return { ...toEndpoint(owned(workspaceId, id)), secret };
      });
    },

    listEndpoints(workspaceId) {
      return ctx.db.prepare<[number], EndpointRow>('SELECT * FROM webhook_endpoints WHERE workspace_id = ? ORDER BY id').all(workspaceId).map(toEndpoint);
    },

    disableEndpoint(workspaceId, endpointId) {
      return ctx.write(() => {
        owned(workspaceId, endpointId);
        disableEndpointRow(ctx, endpointId, 'manual');
        return toEndpoint(owned(workspaceId, endpointId));
      });
    },

    enableEndpoint(workspaceId, endpointId) {
      return ctx.write(() => {
        owned(workspaceId, endpointId);
        ctx.db.prepare(`UPDATE webhook_endpoints SET status = 'active', disabled_reason = NULL, disabled_at = NULL, updated_at = ? WHERE id = ? AND status = 'disabled'`).run(ctx.nowIso(), endpointId);
        return toEndpoint(owned(workspaceId, endpointId));
      });
    },

    updateEndpoint(workspaceId, endpointId, input) {
      const errors = new FieldErrors();
      const raw = (input ?? {}) as UpdateEndpointInput;
      const url = raw.url === undefined ? undefined : checkUrl(errors, raw.url);
      const events = raw.events === undefined ? undefined : checkEvents(errors, raw.events);
      checkDescription(errors, raw.description);
      if (raw.url === undefined && raw.events === undefined && raw.description === undefined) errors.add('body', 'must change at least one of url, events, description');
      errors.throwIfAny();
      return ctx.write(() => {
        const row = owned(workspaceId, endpointId);
        ctx.db
          .prepare('UPDATE webhook_endpoints SET url = ?, events = ?, description = ?, updated_at = ? WHERE id = ?')
          .run(url ?? row.url, events ?? row.events, raw.description === undefined ? row.description : raw.description, ctx.nowIso(), endpointId);
        return toEndpoint(owned(workspaceId, endpointId));
      });
    },

    endpointSecret(workspaceId, endpointId) {
      return owned(workspaceId, endpointId).secret;
    },

    setPublicKey(workspaceId, publicKeyPem) {
      const { pem, fingerprint } = inspectPublicKey(publicKeyPem);
      return ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        ctx.db
          .prepare(
            `INSERT INTO workspace_public_keys (workspace_id, public_key_pem, fingerprint, created_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (workspace_id) DO UPDATE SET public_key_pem = excluded.public_key_pem, fingerprint = excluded.fingerprint, created_at = excluded.created_at`,
          )
          .run(workspaceId, pem, fingerprint, ctx.nowIso());
        return loadPublicKey(ctx, workspaceId)!;
      });
    },

    getPublicKey: (workspaceId) => loadPublicKey(ctx, workspaceId),

    removePublicKey(workspaceId) {
      ctx.write(() => {
        ctx.db.prepare('DELETE FROM workspace_public_keys WHERE workspace_id = ?').run(workspaceId);
      });
    },
  };
}

/** Loads an endpoint's URL and secret for the delivery worker (never for a service output). */
export function endpointForDelivery(ctx: Context, endpointId: number): { url: string; secret: string; status: string } | undefined {
  return ctx.db.prepare<[number], { url: string; secret: string; status: string }>('SELECT url, secret, status FROM webhook_endpoints WHERE id = ?').get(endpointId);
}
