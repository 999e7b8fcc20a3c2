/**
 * `gen-card-api trigger <event>`: produces one webhook event of the spec through a recipe (recipes.ts), prints each
 * call with the ids it returned, then finds the event in the sandbox's delivery log and prints its event id and
 * where it is being delivered. `trigger --fixture <file>` runs a scenario instead (fixtures.ts).
 */
import { resolveTarget, SandboxApi, type Target } from './api.js';
import { loadDocs, type Docs } from './docs.js';
import { CliError, type Output } from './errors.js';
import { listEndpoints, newestDeliveryId, subscribes, waitForDeliveries, type Delivery } from './deliveries.js';
import { RECIPES, type Recipe } from './recipes.js';
import { unknownName } from './suggest.js';

/** Options of {@link runTrigger}. */
export interface TriggerOptions {
  event: string;
  card?: string | undefined;
  /** Who acts, for a recipe that knows several causes (card.frozen: workspace, platform_risk, issuer). */
  origin?: string | undefined;
  baseUrl?: string | undefined;
  token?: string | undefined;
  /** Longest wait for the event to appear in the delivery log. Default 15 s. */
  deliveryWaitMs?: number;
}

/** What a trigger did. */
export interface TriggerResult {
  event: string;
  /** The event's `event_id`, null when no endpoint subscribes to it (the sandbox records it but sends nothing). */
  eventId: number | null;
  deliveries: Delivery[];
}

/** The recipe of a spec event, or a CliError: a did-you-mean for a name the spec lacks, "no recipe yet" for one it has. */
export function recipeFor(docs: Pick<Docs, 'events'>, event: string, recipes: Readonly<Record<string, Recipe>> = RECIPES): Recipe {
  if (!docs.events.includes(event)) {
    const { message, hint } = unknownName('event', event, docs.events);
    throw new CliError(message, hint);
  }
  const recipe = recipes[event];
  if (!recipe) throw new CliError(`no recipe yet for ${event}: the spec has this event, but trigger does not know how to produce it`, 'add one to RECIPES in packages/cli/src/sandbox-tools/recipes.ts, or produce it with a fixture (trigger --fixture)');
  return recipe;
}

/** Produces `options.event` on the sandbox and reports it; see the module comment. */
export async function runTrigger(options: TriggerOptions, output: Output): Promise<TriggerResult> {
  const docs = await loadDocs();
  const recipe = recipeFor(docs, options.event);
  if (options.card !== undefined && recipe.card !== true) throw new CliError(recipe.card, `run gen-card-api trigger ${options.event} without --card`);
  if (options.origin !== undefined && !(recipe.origins ?? []).includes(options.origin)) {
    throw new CliError(
      recipe.origins === undefined ? `--origin does not apply to ${options.event}: it has one cause` : `--origin ${JSON.stringify(options.origin)} is not one of ${recipe.origins.join(', ')}`,
      recipe.origins === undefined ? `run gen-card-api trigger ${options.event} without --origin` : `gen-card-api trigger ${options.event} --origin ${recipe.origins[0]}`,
    );
  }
  if (options.card !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(options.card)) {
    throw new CliError(`--card ${JSON.stringify(options.card)} is not a card uuid`, 'pass the uuid of a card of this workspace (GET /cards lists them), or leave out --card to issue a new one');
  }
  const target: Target = resolveTarget(options, docs);
  const api = new SandboxApi(target, docs, { print: output.out });
  // Read first: it proves the sandbox and the token before anything changes, and marks where this run's deliveries start.
  const after = await newestDeliveryId(api);
  output.out(`trigger ${options.event}: ${recipe.summary}${options.card !== undefined ? ` (card ${options.card})` : ''}${options.origin !== undefined ? ` (origin ${options.origin})` : ''}`);
  const produced = await recipe.run({ api, card: options.card, origin: options.origin, note: output.out });
  let deliveries: Delivery[] = [];
  let urls = new Map<number, string>();
  try {
    const subscribed = (await listEndpoints(api)).filter((e) => e.status === 'active' && subscribes(e.events, options.event));
    urls = new Map(subscribed.map((e) => [e.id, e.url]));
    if (subscribed.length > 0) deliveries = await waitForDeliveries(api, { event: options.event, after, matches: produced.matches, timeoutMs: options.deliveryWaitMs ?? 15_000 });
  } finally {
    await produced.cleanup?.();
  }
  if (urls.size === 0) {
    output.log(`note: no active webhook endpoint subscribes to ${options.event}, so it was not sent anywhere; run \`gen-card-api listen --forward-to <url>\` first`);
    return { event: options.event, eventId: null, deliveries: [] };
  }
  if (deliveries.length === 0) throw new CliError(`the sandbox recorded no ${options.event} for this run within ${(options.deliveryWaitMs ?? 15_000) / 1000} s`, 'gen-card-api events list shows what it did record');
  const eventId = deliveries[0]!.event_id;
  output.out(`${options.event} event ${eventId}: ${deliveries.map((d) => `delivery ${d.id} to endpoint ${d.endpoint_id}${urls.has(d.endpoint_id) ? ` (${urls.get(d.endpoint_id)})` : ''}`).join(', ')}`);
  return { event: options.event, eventId, deliveries };
}
