import { z } from "zod";
import { dateTime, int } from "./common";

/** The authenticated account (payload of `GET /v1/me`, and `profile` of every envelope). */
export const Profile = z
  .object({
    id: int(),
    aadId: z.uuid(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    company: z.string(),
    created: dateTime(),
    shouldProcessQrCodes: z.boolean(),
  })
  .meta({ id: "Profile", description: "The profile of the account that owns the API key." });
export type Profile = z.infer<typeof Profile>;
