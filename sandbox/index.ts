/** The sandbox: a stateful local implementation of the v1 service with a control API for tests. */
export * from "./assumptions";
export type * from "./control";
export { ControlSchemas } from "./control";
export type { FaultSpec } from "./faults";
export { Sandbox, type SandboxOptions, startSandbox } from "./sandbox";
export { seedDemo } from "./seed";
