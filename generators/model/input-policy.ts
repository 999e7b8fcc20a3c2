/**
 * What a load of a spec may read and how much (see load.ts). Kept apart from the loader, which pulls in Redocly,
 * so that the CLI can set the policy from its flags before it loads anything heavy.
 */
import path from 'node:path';

/** How much one load may read and build. */
export interface InputLimits {
  /** Bytes of the spec and every document it references, together. */
  maxBytes: number;
  /** Nesting depth of objects and arrays in any one document (the bundled one included). */
  maxDepth: number;
  /** Nodes that YAML aliases (or a document inlined several times) may add to the nodes as written. */
  maxAliasNodes: number;
  /** Time for fetching one remote document: connection, headers and body. */
  remoteTimeoutMs: number;
  /** Redirects followed per remote document (within the same scheme only). */
  maxRedirects: number;
}

/** What a load may read besides the root document's folder. */
export interface InputPolicy {
  /** Fetch http(s) documents: a spec given as a URL, and remote `$ref`s. */
  allowRemoteRefs: boolean;
  /** Folders (absolute) besides the root document's that local `$ref`s may reach. */
  allowRefsOutside: readonly string[];
  /**
   * Files (absolute) that a local `$ref` may reach although they are not YAML or JSON documents by name: a dotfile,
   * a file under a dot-folder, a file whose extension is not `.yaml`, `.yml` or `.json`, or one with none. They
   * still have to lie inside an allowed folder.
   */
  allowRefFiles: readonly string[];
  limits: InputLimits;
}

export type InputPolicyOptions = Partial<Omit<InputPolicy, 'limits'>> & { limits?: Partial<InputLimits> };

/**
 * The real spec is 130 kB, 12 levels deep, with no aliases: these leave room for specs a hundred times larger,
 * while a hostile one fails within seconds and well under a gigabyte. 100 levels is also where the YAML parser
 * Redocly uses (js-yaml) stops on its own.
 */
export const DEFAULT_LIMITS: Readonly<InputLimits> = Object.freeze({
  maxBytes: 32 * 1024 * 1024,
  maxDepth: 100,
  maxAliasNodes: 100_000,
  remoteTimeoutMs: 10_000,
  maxRedirects: 5,
});

/** `-` names stdin wherever a spec is expected. */
export const STDIN = '-';

/** An http(s) URL, as a spec or a `$ref` target. */
export function isRemote(ref: string): boolean {
  return /^https?:\/\//i.test(ref);
}

let processPolicy: InputPolicy = { allowRemoteRefs: false, allowRefsOutside: [], allowRefFiles: [], limits: DEFAULT_LIMITS };

/** The process's policy (see {@link setInputPolicy}) with `overrides` applied. */
export function inputPolicy(overrides: InputPolicyOptions = {}): InputPolicy {
  return {
    allowRemoteRefs: overrides.allowRemoteRefs ?? processPolicy.allowRemoteRefs,
    allowRefsOutside: (overrides.allowRefsOutside ?? processPolicy.allowRefsOutside).map((dir) => path.resolve(dir)),
    allowRefFiles: (overrides.allowRefFiles ?? processPolicy.allowRefFiles).map((file) => path.resolve(file)),
    limits: { ...processPolicy.limits, ...overrides.limits },
  };
}

/**
 * Sets the policy of every later load in this process that passes none of its own: the CLI calls it once, from
 * `--allow-remote-refs`, `--allow-refs-outside <dir>` and `--allow-ref-file <file>`.
 */
export function setInputPolicy(policy: InputPolicyOptions): void {
  processPolicy = inputPolicy(policy);
}
