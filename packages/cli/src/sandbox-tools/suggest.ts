/**
 * "Did you mean": the closest names to a mistyped one (an event code, an operationId, a fixture step), and the
 * glob matching that `listen --events` and `events list --event` share.
 */

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows = s.length + 1;
  const cols = t.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[rows - 1]![cols - 1]!;
}

/**
 * Up to `max` candidates close to `input`, best first: a candidate whose dot-separated tail equals or contains the
 * input (`declined` for `card.transaction.declined`), then those within an edit distance of a third of the
 * input's length (at least 2); only those as close as the best one or one step further. Empty when nothing is close.
 */
export function suggest(input: string, candidates: readonly string[], max = 3): string[] {
  const needle = input.trim().toLowerCase();
  if (needle === '') return [];
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of candidates) {
    const lower = name.toLowerCase();
    const tail = lower.split('.').at(-1) ?? lower;
    const distance = editDistance(needle, lower);
    const tailDistance = editDistance(needle, tail);
    const limit = Math.max(2, Math.floor(needle.length / 3));
    if (tail === needle || (needle.length >= 4 && lower.includes(needle))) scored.push({ name, score: tail === needle ? 0 : 1 });
    else if (distance <= limit) scored.push({ name, score: 2 + distance });
    else if (tailDistance <= Math.max(1, Math.floor(tail.length / 4))) scored.push({ name, score: 2 + tailDistance + 1 });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  // Only the best and the nearly best: a one-letter slip should not come with three far-off guesses.
  const best = scored[0]?.score ?? 0;
  return scored
    .filter((s) => s.score <= best + 1)
    .slice(0, max)
    .map((s) => s.name);
}

/** `unknown X "y"` plus a did-you-mean line (or the list of every name when nothing is close and the list is short). */
export function unknownName(kind: string, input: string, candidates: readonly string[]): { message: string; hint: string } {
  const close = suggest(input, candidates);
  const message = `unknown ${kind} ${JSON.stringify(input)}`;
  if (close.length > 0) return { message, hint: `did you mean ${close.join(', ')}?` };
  return { message, hint: candidates.length <= 30 ? `known: ${candidates.join(', ')}` : `${candidates.length} are known; check the spelling` };
}

/** A glob over dot-separated names: `*` matches any run of characters (dots included), so `card.*` covers `card.transaction.declined`. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
}

/**
 * The names matched by a comma-separated list of globs (`card.transaction.*,order.failed`), in `names` order.
 * Throws `{ message, hint }` through `fail` for a glob that matches nothing.
 */
export function expandGlobs(spec: string, names: readonly string[], fail: (problem: { message: string; hint: string }) => never): string[] {
  const globs = spec
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  if (globs.length === 0) fail({ message: 'an empty event filter', hint: 'pass event codes or globs, such as card.transaction.* or order.failed' });
  const matched = new Set<string>();
  for (const glob of globs) {
    const re = globToRegExp(glob);
    const hits = names.filter((n) => re.test(n));
    if (hits.length === 0) fail({ message: `no event of the spec matches ${JSON.stringify(glob)}`, hint: unknownName('event', glob, names).hint });
    for (const hit of hits) matched.add(hit);
  }
  return names.filter((n) => matched.has(n));
}
