import { z } from "zod";
import { dateTime, int } from "./common";

/** The authenticated account (payload of `GET /v1/me`, and `profile` of every envelope). */
export const Profile = z
  .object({
    id: int(),
    aadId: z.guid().describe("A GUID (any 8-4-4-4-12 hex form, as .NET writes them)."),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    company: z.string(),
    created: dateTime(),
    shouldProcessQrCodes: z.boolean(),
  })
  .meta({ id: "Profile", description: "The profile of the account that owns the API key." });
export type Profile = z.infer<typeof Profile>;
