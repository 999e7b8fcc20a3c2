/** The sandbox control API: its plugin, handlers, typed client and generated types. */
export { registerSandboxControl, CONTROL_PREFIX, type SandboxControlOptions } from './plugin.js';
export { controlAuthenticate, controlHandlers, type ControlAuth } from './handlers.js';
export { createControlClient, type SandboxControlClient, type SandboxControlPaths } from './client.js';
export type { SandboxControlHandlers } from './handlers.gen.js';
export type { components as SandboxControlComponents, operations as SandboxControlOperations } from './types.gen.js';
export { routes as controlRoutes } from './routes.gen.js';
