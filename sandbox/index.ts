/** The sandbox: a stateful local implementation of the v1 service with a control API for tests. */
export * from "./assumptions";
export type * from "./http/control-schemas";
export { ControlSchemas } from "./http/control-schemas";
export type { FaultSpec } from "./http/faults";
export { Sandbox, type SandboxOptions, startSandbox } from "./sandbox";
export { seedDemo } from "./seed";
