/**
 * What the review asks the live service, all of it without side effects: an order's status, the
 * checkout preview (the exact price; the service creates no payment for it), and a draft's proof.
 */
import * as path from "node:path";
import type { DirectMailClient } from "../../provider/api/client";
import { DirectMailHttpError } from "../../provider/api/errors";
import type { CheckoutTerms, QuoteAnswer } from "./model";

/** A refusal by the service (a 4xx answer: an invalid status, a short balance); other errors are thrown. */
function refusal(error: unknown): string | undefined {
  if (error instanceof DirectMailHttpError && error.status < 500) return error.message;
  return undefined;
}

export async function orderStatus(client: DirectMailClient, orderId: number): Promise<string | undefined> {
  return (await client.getOrder(orderId))?.orderStatus;
}

/** The checkout preview for these terms, or the service's reason for refusing it. */
export async function quote(
  client: DirectMailClient,
  orderId: number,
  terms: CheckoutTerms,
): Promise<QuoteAnswer> {
  try {
    const preview = await client.previewCheckout(orderId, {
      postageType: terms.postageType as "Standard" | "FirstClass",
      productionSpeed: terms.productionSpeed as "Normal" | "ExpeditedFaster" | "ExpeditedFastest",
      autoBill: terms.autoBill,
      ...(terms.holdUntilDate !== undefined ? { holdUntilDate: terms.holdUntilDate } : {}),
    });
    return { preview, terms };
  } catch (error) {
    const refused = refusal(error);
    if (refused === undefined) throw error;
    return { refused };
  }
}

/**
 * The draft's proof as `<proofsDir>/<name>.pdf`; the service's refusal (a draft without a mailable
 * recipient has no proof) is returned as a note.
 */
export async function saveProof(
  client: DirectMailClient,
  orderId: number,
  proofsDir: string,
  name: string,
): Promise<{ file: string; bytes: number } | { note: string }> {
  try {
    const { file, bytes } = await client.downloadProof(orderId, path.join(proofsDir, `${name}.pdf`));
    return { file, bytes };
  } catch (error) {
    const refused = refusal(error);
    if (refused === undefined) throw error;
    return { note: `no proof of order ${orderId}: ${refused}` };
  }
}

/** Runs `work` over `items`, at most `limit` at a time, results in the items' order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
