/** The typed client of the direct-mail service's v1 interface. */
export * from "./client";
export * from "./core/batching";
export * from "./core/retry";
export type { TransportOptions } from "./core/transport-types";
export * from "./endpoints";
export * from "./errors";
export * from "./recipients";
export * as schemas from "./schemas";
