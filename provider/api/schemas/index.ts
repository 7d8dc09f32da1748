/** Every wire schema of the v1 interface, one per wire type. */
export * from "./address-book";
export * from "./analytics";
export * from "./checkout";
export * from "./common";
export * from "./conversions";
export * from "./envelope";
export * from "./integration";
export * from "./issues";
export * from "./order";
export * from "./profile";
export * from "./recipient";
export * from "./responses";
export * from "./statistics";
export * from "./templates";
export * from "./transactions";
