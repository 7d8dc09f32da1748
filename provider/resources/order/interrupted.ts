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
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { DirectMailClient } from "../../api/client";
import { currentDeadline } from "../../api/core/deadline";
import { ORDER_STATUS, type OrderSummary } from "../../api/schemas/order";
import { projectRoot } from "../../project";
import { isLocalSandbox } from "../../settings";

/** The service's clock and this machine's may differ: orders created this much before a run began count. */
const CLOCK_SLACK_MS = 60_000;

/** Where the markers of runs creating orders are kept; one file per create under way. */
export const CREATE_MARKERS = path.join(os.tmpdir(), "pulumi-directmail", "creating");

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
  const names = (await fs.promises.readdir(CREATE_MARKERS).catch(() => [] as string[])).filter((n) =>
    n.startsWith(`${prefix}-`),
  );
  let since: Date | undefined;
  for (const name of names) {
    const file = path.join(CREATE_MARKERS, name);
    const marker = await fs.promises
      .readFile(file, "utf8")
      .then((text) => JSON.parse(text) as Marker)
      .catch(() => undefined);
    if (marker === undefined || alive(marker.pid)) continue;
    await fs.promises.rm(file, { force: true });
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

/**
 * Runs `create` with this process's marker recorded for the template until it returns or fails.
 * A create that passes its customTimeouts fails at that instant (timeouts.ts), and the engine may
 * stop this process as soon as it hears so: its marker goes in that same instant, or the next run
 * would take the timed-out create for an interrupted one. A cancel (the user's Ctrl-C) interrupts.
 */
export async function withCreateMarker<T>(
  client: DirectMailClient,
  apiKey: string,
  templateId: number,
  create: () => Promise<T>,
): Promise<T> {
  const deadline = currentDeadline();
  // Past its deadline the create sends nothing (api/core/deadline.ts): nothing to mark.
  if (deadline?.aborted) return create();
  const file = path.join(CREATE_MARKERS, `${prefixOf(client, apiKey, templateId)}-${randomUUID()}.json`);
  const marker: Marker = { pid: process.pid, startedAt: new Date().toISOString() };
  // Written and watched in one synchronous stretch: the deadline cannot pass in between.
  fs.mkdirSync(CREATE_MARKERS, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(marker));
  const remove = () => fs.rmSync(file, { force: true });
  const onDeadline = () => {
    if (deadline?.reason instanceof DOMException && deadline.reason.name === "TimeoutError") remove();
  };
  deadline?.addEventListener("abort", onDeadline, { once: true });
  try {
    return await create();
  } finally {
    deadline?.removeEventListener("abort", onDeadline);
    remove();
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
