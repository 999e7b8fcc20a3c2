// A module resolve hook for development inside the checkout only (see packages/cli/bin/gen-card-api.js): resolves the workspace
// packages through their "@card-api/source" export condition, which points at src/*.ts.
export async function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes('@card-api/source') ? context.conditions : ['@card-api/source', ...context.conditions];
  return nextResolve(specifier, { ...context, conditions });
}
