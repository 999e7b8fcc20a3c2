/** A problem in the spec, located by file and JSON pointer, so that every caller can print where and why. */
export class SpecError extends Error {
  override readonly name = 'SpecError';
  constructor(
    readonly file: string,
    readonly pointer: string,
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}:${column ?? 1}`} ${pointer}: ${reason}`);
  }
}

/** Several spec problems found in one pass; reported together so that one run shows them all. */
export class SpecErrors extends Error {
  override readonly name = 'SpecErrors';
  constructor(readonly errors: readonly SpecError[]) {
    super(errors.map((e) => e.message).join('\n'));
  }
}

/** Escapes one JSON pointer token (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Where a node of a document is, for a walk that visits every node: its parent's path and its key, turned into a
 * JSON pointer only when a problem needs one (building each node's pointer string was most of such a walk's time).
 * `null` is the root.
 */
export type PointerPath = { readonly up: PointerPath; readonly key: string | number } | null;

export function childPath(up: PointerPath, key: string | number): PointerPath {
  return { up, key };
}

/** `#` for the root, `#/a/b~1c` below it. */
export function pathPointer(path: PointerPath): string {
  const keys: string[] = [];
  for (let p = path; p !== null; p = p.up) keys.push(escapePointerToken(String(p.key)));
  return ['#', ...keys.reverse()].join('/');
}

/** Builds `#/a/b~1c` from tokens. */
export function pointer(...tokens: Array<string | number>): string {
  return `#/${tokens.map((t) => escapePointerToken(String(t))).join('/')}`;
}
