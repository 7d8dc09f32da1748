/**
 * `directmail sandbox clock advance <duration>`, `directmail sandbox deliver [order]` and
 * `directmail sandbox scan <order> [count]`: the days after a mailing, in seconds, against a
 * running sandbox (docs/sandbox.md), so that `status`, `report` and `pulumi refresh` have
 * something to show. Each calls the sandbox's control API over HTTP and never starts one; an order
 * is named by id, or by campaign through the selected stack's state, as `directmail status` names it.
 * The sandbox and the account are found as every command finds the service (cli/stack/settings.ts:
 * `--url` and `--api-key`, the stack's configuration, the environment, the default), so that an
 * order named through the stack is driven in the stack's sandbox; each line says which sandbox.
 */
import { type Command, InvalidArgumentError } from "commander";
import type { z } from "zod";
import { oneLine } from "../../provider/text";
import { say } from "../output";
import { withStackOptions } from "../stack/options";
import { type ServiceSettings, serviceSettings } from "../stack/settings";
import { resolveTargets } from "../stack/targets";

/** A control call that takes longer has hung: a delivery of thousands of orders takes seconds. */
const CONTROL_TIMEOUT_MS = 60_000;
/** The largest control answer read: a delivery's list of orders, ample for any account. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** The longest clock advance: ten years, beyond any delivery window or hold date. */
const MAX_ADVANCE_SECONDS = 3650 * 86_400;
const START_ONE = "start one with `npx directmail sandbox --seed demo` in another terminal";

const UNIT_SECONDS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };

/** `3d`, `12h`, `90m`, `45s` or a sum of them (`1d12h`), in seconds. */
export function parseDuration(text: string): number {
  if (!/^(\d{1,7}[dhms])+$/.test(text)) {
    throw new InvalidArgumentError("expected a duration such as 3d, 12h, 90m, 45s or 1d12h");
  }
  let seconds = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)([dhms])/g))
    seconds += Number(count) * (UNIT_SECONDS[unit as string] as number);
  if (seconds === 0 || seconds > MAX_ADVANCE_SECONDS) {
    throw new InvalidArgumentError("expected a duration of at least 1s and at most 3650d");
  }
  return seconds;
}

/** A span of time in words, to the nearest minute (to the second under one): "8 days 1 hour". */
export function durationText(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (ms < 60_000) return plural(Math.round(ms / 1000), "second");
  const minutes = Math.round(ms / 60_000);
  const parts: [number, string][] = [
    [Math.floor(minutes / 1440), "day"],
    [Math.floor((minutes % 1440) / 60), "hour"],
    [minutes % 60, "minute"],
  ];
  return parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => plural(n, unit))
    .join(" ");
}

function scanCount(value: string): number {
  const { MAX_SCANS_AT_ONCE } =
    require("../../sandbox/http/control-schemas") as typeof import("../../sandbox/http/control-schemas");
  const n = Number(value);
  if (!/^\d{1,7}$/.test(value) || n < 1 || n > MAX_SCANS_AT_ONCE)
    throw new InvalidArgumentError(`expected a whole number of scans from 1 to ${MAX_SCANS_AT_ONCE}`);
  return n;
}

interface TargetOptions {
  url?: string;
  apiKey?: string;
  cwd?: string;
  stack?: string;
}

/** The running sandbox and the account a command drives. */
interface SandboxTarget {
  url: string;
  apiKey: string;
  /** Which key it is, for a refusal that names it (never a key of the user's): "of --api-key". */
  keyFrom: string;
  /** Where the address came from, for a sandbox that does not answer: "directmail:baseUrl of stack "dev"". */
  urlFrom: string;
  /** The settings it was found with: an order named by campaign is looked up with the same. */
  settings: ServiceSettings;
}

function withTargetOptions(command: Command): Command {
  return withStackOptions(
    command
      .option(
        "--url <url>",
        "the running sandbox (default: the stack's directmail:baseUrl, else DIRECTMAIL_BASE_URL, else http://127.0.0.1:4010)",
      )
      .option(
        "--api-key <key>",
        "the account (default: the stack's directmail:apiKey, else DIRECTMAIL_API_KEY, else the demo account's key)",
      ),
  );
}

async function targetOf(options: TargetOptions): Promise<SandboxTarget> {
  const settings = await serviceSettings(options);
  const target = { url: settings.baseUrl, urlFrom: settings.baseUrlFrom, settings };
  if (settings.apiKey !== undefined)
    return { ...target, apiKey: settings.apiKey, keyFrom: `of ${settings.apiKeyFrom}` };
  // seed.ts holds only the demo's constants here: the sandbox itself is not loaded.
  const { DEMO_API_KEY } = require("../../sandbox/seed") as typeof import("../../sandbox/seed");
  return {
    ...target,
    apiKey: DEMO_API_KEY,
    keyFrom: `${DEMO_API_KEY} of the demo account (start the sandbox with --seed demo, or give a key with --api-key or DIRECTMAIL_API_KEY)`,
  };
}

/** The control API's answer schemas, loaded with zod only when a command runs. */
function controlResults(): typeof import("../../sandbox/http/control-schemas").ControlResults {
  return (
    require("../../sandbox/http/control-schemas") as typeof import("../../sandbox/http/control-schemas")
  ).ControlResults;
}

/** Why fetch could not reach the address, in words. */
function unreachable(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === "TimeoutError") return `no answer in ${CONTROL_TIMEOUT_MS / 1000} s`;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

async function boundedText(response: Response): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body === null) return "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** One control call: its answer read with `answer`, or an error that says what to do. */
async function control<S extends z.ZodType>(
  target: SandboxTarget,
  path: string,
  body: Record<string, unknown>,
  answer: S,
): Promise<z.output<S>> {
  let response: Response;
  try {
    response = await fetch(`${target.url}/_sandbox${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(
      `no sandbox answers at ${target.url}, the address from ${target.urlFrom} (${unreachable(error)}): ` +
        `${START_ONE}, or give its address with --url`,
    );
  }
  const text = await boundedText(response);
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const refusal = (json as { error?: unknown } | undefined)?.error;
  if (!response.ok && typeof refusal === "string") {
    if (response.status === 404 && refusal === "no account has this apiKey")
      throw new Error(`the sandbox at ${target.url} has no account with the API key ${target.keyFrom}`);
    throw new Error(`the sandbox at ${target.url} refused: ${refusal}`);
  }
  const parsed = answer.safeParse(json);
  if (!response.ok || !parsed.success) {
    throw new Error(
      `${target.url}, the address from ${target.urlFrom}, is not a directmail sandbox (it answered ` +
        `POST /_sandbox${path} with ${response.status}): ${START_ONE}, or give its address with --url`,
    );
  }
  return parsed.data;
}

/** The order ids an argument names: an id, or the orders of a campaign of the selected stack. */
async function ordersNamed(order: string, target: SandboxTarget): Promise<number[]> {
  if (/^\d{1,15}$/.test(order)) return [Number(order)];
  return (await resolveTargets([order], target.settings)).map((t) => t.orderId);
}

const clockLine = (url: string, advancedMs: number, now: string) =>
  `the sandbox clock at ${url} is now ${now}, ${durationText(advancedMs)} later`;

/** The subcommands of `directmail sandbox` that drive a running sandbox. */
export function registerSandboxControlCommands(sandbox: Command): void {
  const clock = sandbox.command("clock").description("Move a running sandbox's clock.");
  withTargetOptions(
    clock
      .command("advance")
      .description(
        "Move the sandbox clock forward and run what became due: settlements, production, delivery.",
      )
      .argument("<duration>", "how far: 3d, 12h, 90m, 45s, or a sum such as 1d12h", parseDuration),
  ).action(async (seconds: number, options: TargetOptions) => {
    const target = await targetOf(options);
    const R = controlResults();
    const { now } = await control(target, "/clock/advance", { seconds }, R.clockAdvanced);
    say(clockLine(target.url, seconds * 1000, now));
  });

  withTargetOptions(
    sandbox
      .command("deliver")
      .description(
        "Run the sandbox clock until the order (default: every paid order of the account) is mailed and every piece has arrived.",
      )
      .argument("[order]", "an order id, or a campaign of the selected stack"),
  ).action(async (order: string | undefined, options: TargetOptions) => {
    const target = await targetOf(options);
    const ids = order === undefined ? [undefined] : await ordersNamed(order, target);
    const R = controlResults();
    for (const orderId of ids) {
      const result = await control(target, "/deliver", { apiKey: target.apiKey, orderId }, R.delivered);
      if (result.orders.length === 0) {
        say(
          `no paid order of the account at ${target.url} is on its way: nothing to deliver (a campaign's checkout: pays for one)`,
        );
        continue;
      }
      for (const o of result.orders) {
        const pieces = `${o.totalCards} piece${o.totalCards === 1 ? "" : "s"}`;
        say(
          o.waiting === null
            ? `order ${o.orderId} at ${target.url}: ${oneLine(o.status)}, ${o.delivered} of ${pieces} delivered` +
                (o.undeliverable > 0 ? `, ${o.undeliverable} undeliverable` : "")
            : `order ${o.orderId} at ${target.url}: ${oneLine(o.status)}, not delivered: ${oneLine(o.waiting)}`,
        );
      }
      say(clockLine(target.url, Date.parse(result.now) - Date.parse(result.from), result.now));
    }
  });

  withTargetOptions(
    sandbox
      .command("scan")
      .description("Record QR code scans of a mailed order's pieces, as if its recipients had scanned them.")
      .argument("<order>", "an order id, or a campaign of the selected stack")
      .argument("[count]", "how many scans, spread over the pieces (default 1)", scanCount, 1),
  ).action(async (order: string, count: number, options: TargetOptions) => {
    const target = await targetOf(options);
    const R = controlResults();
    for (const orderId of await ordersNamed(order, target)) {
      const result = await control(
        target,
        `/orders/${orderId}/scans`,
        { apiKey: target.apiKey, count },
        R.scanned,
      );
      say(
        `recorded ${result.recorded} QR scan${result.recorded === 1 ? "" : "s"} of order ${result.orderId} at ${target.url} ` +
          `on ${result.recipients} piece${result.recipients === 1 ? "" : "s"}; it has ${result.totalScans} in all`,
      );
    }
  });
}
