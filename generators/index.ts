/**
 * The generator library: the registry of targets and the run that loads the model once and renders the
 * requested targets. The CLI (packages/cli) is a thin front end over this.
 */
import path from 'node:path';
import { clientTarget } from './client/index.js';
import type { OutputDir } from './core/files.js';
import type { GeneratedFile, RenderOptions, Target } from './core/target.js';
import { DEFAULT_SPEC, REPO_ROOT } from './core/assets.js';
import { loadModel, type ApiModel } from './model/index.js';
import { sandboxControlTarget } from './sandbox-control/index.js';
import { serverTarget } from './server/index.js';
import { typesTarget } from './types/index.js';
import { webhooksTarget } from './webhooks/index.js';

export { ASSET_ROOT, WORKSPACE_ROOT } from './core/assets.js';
export { checkFiles, MANIFEST, OutputRefused, renderManifests, writeFiles, unifiedDiff, type CheckResult, type OutputDir, type WriteResult } from './core/files.js';
export { CONTROL_SPEC, renderSandboxControl } from './sandbox-control/index.js';
export { GENERATED_HEADER, GENERATED_PREFIX, generatedHeader, type GeneratedFile, type RenderOptions, type Target } from './core/target.js';
export { formatLintReport, lintSpec, DEFAULT_SPEC, REPO_ROOT, type LintReport } from './lint/lint-spec.js';
export { loadModel, loadSpec, SpecError, SpecErrors, type ApiModel } from './model/index.js';
export { renderClient } from './client/index.js';
export { renderTypesFile } from './types/index.js';
export { scaffoldHandlers, writeScaffold } from './server/index.js';

/** Every target, in the order they are rendered. `sandbox-control` reads its own document (`spec/sandbox/control.yaml`). */
export const TARGETS: readonly Target[] = [typesTarget, clientTarget, serverTarget, webhooksTarget, sandboxControlTarget];

export interface Timings {
  [phase: string]: number;
}

let phaseListener: ((phase: string) => void) | undefined;

/** Calls `listener` at the start of every timed phase (the CLI shows it as progress on a terminal). */
export function onPhase(listener: ((phase: string) => void) | undefined): void {
  phaseListener = listener;
}

/** Times an async phase into `timings`, and names it to the phase listener. */
export async function timed<T>(timings: Timings | undefined, phase: string, fn: () => Promise<T>): Promise<T> {
  phaseListener?.(phase);
  const start = performance.now();
  try {
    return await fn();
  } finally {
    if (timings) timings[phase] = (timings[phase] ?? 0) + performance.now() - start;
  }
}

export function findTarget(name: string): Target {
  const target = TARGETS.find((t) => t.name === name);
  if (!target) throw new Error(`unknown target ${JSON.stringify(name)}; known: ${TARGETS.map((t) => t.name).join(', ')}`);
  return target;
}

/**
 * Loads the model (once) and renders the given targets into workspace paths. `model` is the card API's (from
 * `options.spec`); a target with its own `spec` renders from that document's model, loaded once as well.
 */
export async function renderTargets(
  targets: readonly Target[],
  options: { spec?: string; render?: RenderOptions; timings?: Timings } = {},
): Promise<{ model: ApiModel; files: GeneratedFile[]; outputs: OutputDir[] }> {
  const model = await timed(options.timings, 'load spec + model', () => loadModel(options.spec ?? DEFAULT_SPEC));
  const own = new Map<string, Promise<ApiModel>>();
  const modelOf = (target: Target): Promise<ApiModel> => {
    if (target.spec === undefined) return Promise.resolve(model);
    const spec = target.spec;
    let loaded = own.get(spec);
    if (!loaded) {
      loaded = timed(options.timings, `load ${spec}`, () => loadModel(path.join(REPO_ROOT, spec)));
      own.set(spec, loaded);
    }
    return loaded;
  };
  const files: GeneratedFile[] = [];
  const outputs: OutputDir[] = [];
  for (const target of targets) {
    const targetModel = await modelOf(target);
    files.push(...(await timed(options.timings, `render ${target.name}`, () => target.render(targetModel, options.render ?? { typesImport: 'package' }))));
    // Each target owns its package's `src`, where its manifest lives (writeFiles).
    outputs.push({ dir: path.posix.join(target.packageDir, 'src'), spec: targetModel.specName });
  }
  return { model, files, outputs };
}

export { REPO_ROOT as ROOT };
