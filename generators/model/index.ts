export { loadModel, buildModel } from './build.js';
export { loadSpec, type LoadedSpec, type JsonObject } from './load.js';
export { DEFAULT_LIMITS, inputPolicy, setInputPolicy, STDIN, type InputLimits, type InputPolicy } from './input-policy.js';
export { SpecError, SpecErrors, pointer } from './errors.js';
export { compareStrings, sortBy, sortedEntries } from './sort.js';
export type * from './model.js';
export { patternProblem, schemaRuntimeReport, type SchemaRuntimeReport } from './schema-runtime.js';
