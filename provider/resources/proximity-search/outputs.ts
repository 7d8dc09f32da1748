/** What a `ProximitySearch` reports, beside its inputs. */
import { z } from "zod";
import type { OutputOf } from "../types";
import type { ProximitySearchInputs } from "./inputs";

export const ProximitySearchOutputFields = {
  /**
   * `Processing` while the service discovers addresses (asynchronously, after the request), then
   * `Complete`; read again by `pulumi refresh`. The service reports pending searches per
   * integration order, so a search is Complete once none of its order's searches is pending.
   */
  searchStatus: z.string(),
  /** Recipients queued on the integration order when last read (those found by searches included). */
  recipientCount: z.int().nullable(),
  /** When the search was requested (ISO 8601 date-time). */
  requestedAt: z.string(),
};
export type ProximitySearchOutputFields = OutputOf<typeof ProximitySearchOutputFields>;
export type ProximitySearchOutputs = ProximitySearchInputs & ProximitySearchOutputFields;
