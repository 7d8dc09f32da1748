/** The typed client of the direct-mail service's v1 interface. */
export * from "./batching";
export * from "./client";
export * from "./endpoints";
export * from "./errors";
export * from "./recipients";
export * from "./retry";
export * as schemas from "./schemas";
