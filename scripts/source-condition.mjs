// A module resolve hook for development inside the checkout only (see packages/cli/bin/gen-card-api.js and
// packages/sandbox/bin/card-api-sandbox.js): resolves the workspace packages through their "@card-api/source" export
// condition, which points at src/*.ts. For `import` only, as tsx's ESM hooks (which load those sources) are.
import nodeModule from 'node:module';

export function resolve(specifier, context, nextResolve) {
  if (context.conditions.includes('require')) return nextResolve(specifier, context);
  const conditions = context.conditions.includes('@card-api/source') ? context.conditions : ['@card-api/source', ...context.conditions];
  return nextResolve(specifier, { ...context, conditions });
}

/**
 * Installs {@link resolve} in this process: in-thread with `module.registerHooks` where Node has it (22.15+, 23.5+),
 * otherwise with `module.register`, which Node 26 deprecates (DEP0205, a warning on stderr of every command run from
 * the checkout, where the tests read stderr).
 */
export function registerSourceCondition() {
  if (typeof nodeModule.registerHooks === 'function') nodeModule.registerHooks({ resolve });
  else nodeModule.register(import.meta.url);
}
