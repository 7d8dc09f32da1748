/**
 * The refusal of an operation the account's subscription tier lacks (403, no body): the one
 * message, for every resource that needs a tier's feature (automations, conversions).
 */
import { ForbiddenError } from "../api/errors";
import { UserError } from "./user-error";

/** Runs `call`; a 403 becomes a refusal that says what was not done and what to do. */
export async function withTier<T>(what: string, notDone: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ForbiddenError)) throw error;
    const feature = error.feature ?? "this feature";
    throw new UserError(
      `${what}: the account's subscription tier does not include ${feature} (the service answered 403); ` +
        `${notDone}. Upgrade the account's plan, or remove this resource from the program.`,
    );
  }
}
