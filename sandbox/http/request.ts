import type { Account } from "../storage/rows";
import type { Fault } from "./faults";

/** What the HTTP layer keeps on a request between its hooks and handlers. */
declare module "fastify" {
  interface FastifyRequest {
    /** A fault still to apply: a delay before the handler, or one once the request has taken effect (`after: true`). */
    fault?: Fault | undefined;
    /** The account of the request's X-API-KEY (v1 routes, after authentication). */
    account?: Account;
    startedAt?: bigint;
    /** The JSON body as it was received, before its route's schema made `body` of it. */
    receivedBody?: unknown;
  }
}
