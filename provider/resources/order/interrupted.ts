/**
 * Orders an interrupted create may have left at the service. The service can create an order and
 * the answer never arrive (two Ctrl-C while it is slow): the order is then a Draft that no stack
 * holds, and Pulumi keeps only a pending create. The provider records, before it sends a create,
 * a marker with its process id and the time; a create that returns removes it. A marker whose
 * process is gone belongs to an interrupted run: the next create of an order from the same
 * template looks for the Drafts of that template, with no recipients, created after that run
 * began, and says so once, never adopting one silently.
 *
 * What it cannot promise: the marker is on this machine (a pipeline's runner that is thrown away
 * keeps none; `directmail orders untracked` lists such orders from the stacks' states), and an
 * order made in the web application in that window from the same template is a candidate too.
 */
import { createHash, randomUUID } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import type { DirectMailClient } from "../../api/client";
import { ORDER_STATUS, type OrderSummary } from "../../api/schemas/order";
import { projectRoot } from "../../project";
import { isLocalSandbox } from "../../settings";

/** The service's clock and this machine's may differ: orders created this much before a run began count. */
const CLOCK_SLACK_MS = 60_000;

/** Where the markers of runs creating orders are kept; one file per create under way. */
const MARKERS = path.join(os.tmpdir(), "pulumi-directmail", "creating");

interface Marker {
  pid: number;
  startedAt: string;
}

/** The markers of one account, project and template share this prefix. */
function prefixOf(client: DirectMailClient, apiKey: string, templateId: number): string {
  return createHash("sha256")
    .update(JSON.stringify([client.baseUrl, apiKey, projectRoot(), templateId]))
    .digest("hex")
    .slice(0, 24);
}

/** Whether a process of this machine is alive (a process of another user counts as alive). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The Drafts that interrupted runs creating an order from this template may have left, with the
 * earliest start among those runs. Their markers are taken (removed): each is said once.
 */
export async function interruptedCreates(
  client: DirectMailClient,
  apiKey: string,
  templateId: number,
): Promise<{ since: Date; candidates: OrderSummary[] } | undefined> {
  const prefix = prefixOf(client, apiKey, templateId);
  const names = (await fs.readdir(MARKERS).catch(() => [] as string[])).filter((n) =>
    n.startsWith(`${prefix}-`),
  );
  let since: Date | undefined;
  for (const name of names) {
    const file = path.join(MARKERS, name);
    const marker = await fs
      .readFile(file, "utf8")
      .then((text) => JSON.parse(text) as Marker)
      .catch(() => undefined);
    if (marker === undefined || alive(marker.pid)) continue;
    await fs.rm(file, { force: true });
    const started = new Date(marker.startedAt);
    if (since === undefined || started < since) since = started;
  }
  if (since === undefined) return undefined;
  const after = since.getTime() - CLOCK_SLACK_MS;
  const candidates: OrderSummary[] = [];
  for await (const order of client.iterateOrders({ status: ORDER_STATUS.draft })) {
    if (
      order.templateId === templateId &&
      order.recipientCount === 0 &&
      Date.parse(order.createdDate) >= after
    )
      candidates.push(order);
  }
  return candidates.length > 0 ? { since, candidates } : undefined;
}

/** Runs `create` with this process's marker recorded for the template until it returns or fails. */
export async function withCreateMarker<T>(
  client: DirectMailClient,
  apiKey: string,
  templateId: number,
  create: () => Promise<T>,
): Promise<T> {
  const file = path.join(MARKERS, `${prefixOf(client, apiKey, templateId)}-${randomUUID()}.json`);
  await fs.mkdir(MARKERS, { recursive: true });
  const marker: Marker = { pid: process.pid, startedAt: new Date().toISOString() };
  await fs.writeFile(file, JSON.stringify(marker));
  try {
    return await create();
  } finally {
    await fs.rm(file, { force: true });
  }
}

/**
 * How to delete an order that no stack holds: in the web application, or, for the local sandbox
 * (which has none), with its API and the stack's key (named, never printed).
 */
export function howToDelete(baseUrl: string, orderId: number | string): string {
  if (!isLocalSandbox(baseUrl)) return "delete it in the web application";
  const url = `${baseUrl.replace(/\/+$/, "")}/v1/order/${orderId}`;
  return `delete it with \`curl -X DELETE -H "X-API-KEY: $DIRECTMAIL_API_KEY" ${url}\` (the sandbox has no web application)`;
}

/**
 * What the next create says of such orders, once, instead of creating another: the way to adopt
 * one or to delete it, and the pending create that Pulumi keeps of the interrupted run (it warns of
 * it at every `up` until it is cleared). Nothing is adopted without the user's word. Its dates are
 * the service's only: this machine's clock may differ.
 */
export function interruptedCreateNotice(
  baseUrl: string,
  templateId: number,
  found: { since: Date; candidates: OrderSummary[] },
): string {
  const orders = found.candidates
    .map((o) => `order ${o.orderId} (Draft, no recipients, created ${o.createdDate})`)
    .join(", ");
  const first = found.candidates[0]?.orderId ?? "<id>";
  return (
    `an earlier \`pulumi up\` was interrupted while it created an order from template ${templateId}, and the ` +
    `service holds ${orders}, which no stack records. Nothing was created. To use it, set ` +
    `\`existingOrderId: ${first}\` in the campaign file's order (the Order's args) and run \`pulumi up\`; otherwise ` +
    `${howToDelete(baseUrl, first)}; \`directmail orders untracked\` lists such orders. This is said once: the ` +
    "next `pulumi up` creates a new order. Pulumi keeps the interrupted create as a pending operation and warns " +
    "of it at every `pulumi up` until you run `pulumi refresh --clear-pending-creates` (once; it changes nothing " +
    "at the service)."
  );
}
