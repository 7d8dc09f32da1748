/**
 * Test helper: an in-process sandbox on 127.0.0.1 (a free port) with `:memory:` storage, and typed
 * helpers for its control API. Every JSON response of the sandbox is written through its schema
 * (the shared schemas of the v1 interface), so a test that reads a response also proves its shape.
 *
 *   const sb = await startTestSandbox();
 *   const { apiKey } = await sb.control.createAccount({ balance: 50 });
 *   const { id } = await sb.control.createTemplate({ apiKey, name: "Postcard", hasQr: true });
 *   ... requests to sb.url ...
 *   await sb.close();
 */
import {
  type AccountResult,
  type AddFaultInput,
  type CreateAccountInput,
  type CreateIntegrationOrderInput,
  type CreateTemplateInput,
  type DeliveredResult,
  type DoNotMailInput,
  type LedgerResult,
  type OrderStateInput,
  Sandbox,
  type SandboxOptions,
  type ScannedResult,
  type ScansInput,
  type Timings,
  type UpdateAccountInput,
} from "../../sandbox";

export type { AccountResult, LedgerEntry, LedgerResult } from "../../sandbox";

export interface SandboxControl {
  /** A new account; `tier` "basic" lacks automations and conversions (403), default "pro". */
  createAccount(input?: CreateAccountInput): Promise<AccountResult>;
  /** Change an account's tier, balance (recorded in the ledger) or payment behaviour. */
  updateAccount(input: UpdateAccountInput): Promise<AccountResult>;
  /** Another key for the account of `apiKey`; the earlier key keeps working. */
  addKey(apiKey: string): Promise<{ apiKey: string }>;
  /** A template (an order never fulfilled) of the account of `apiKey`. */
  createTemplate(input: CreateTemplateInput): Promise<{ id: number }>;
  /** An automation; without `templateId` it has no configured template. */
  createIntegrationOrder(input: CreateIntegrationOrderInput): Promise<{ id: number }>;
  /** Puts an address on the account's do-not-mail list. */
  addDoNotMail(input: DoNotMailInput): Promise<Record<string, never>>;
  /** An uploaded account font (order creation rejects it). */
  uploadFont(apiKey: string, name: string): Promise<{ id: number }>;
  /** Forces an order's status or paid recipient searches (states the public API cannot reach). */
  setOrderState(
    orderId: number,
    input: OrderStateInput,
  ): Promise<{ orderId: number; status: string; paidRecipientSearches: number }>;
  /** Moves the sandbox clock forward and runs everything that became due. */
  advanceClock(seconds: number): Promise<{ now: string }>;
  clock(): Promise<{ now: string; speed: number }>;
  /** Runs the clock step by step until the order (or every paid order of the account) is delivered. */
  deliver(apiKey: string, orderId?: number): Promise<DeliveredResult>;
  /** `count` QR scans (default 1) of a mailed order's pieces, applied at once. */
  scan(orderId: number, input: ScansInput): Promise<ScannedResult>;
  /** Adds a fault; see sandbox/http/faults.ts for matching, `after`, `times`, `probability`. */
  addFault(spec: AddFaultInput): Promise<{ id: number }>;
  listFaults(): Promise<{
    faults: (AddFaultInput & { id: number; fired: number; remaining: number | null })[];
  }>;
  clearFaults(): Promise<Record<string, never>>;
  /** Every charge and credit of the account, oldest first, and its balance. */
  ledger(apiKey: string): Promise<LedgerResult>;
  /** Recipients queued on an automation (by API or proximity discovery). */
  integrationRecipients(
    apiKey: string,
    integrationOrderId: number,
  ): Promise<{ recipients: Record<string, unknown>[] }>;
  /** Stored address-book entries (standardized) of the account. */
  addressBook(apiKey: string): Promise<{ entries: Record<string, unknown>[] }>;
  /** Empties every table, resets the clock, clears faults. */
  reset(): Promise<Record<string, never>>;
}

export interface TestSandbox {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  control: SandboxControl;
  /** The in-process sandbox, for white-box checks (its store, clock, scheduler, domain parts). */
  sandbox: Sandbox;
  close(): Promise<void>;
}

/**
 * Calls the control API; a non-2xx answer throws with the sandbox's message. Every write says
 * `content-type: application/json`, with a body or without (the control API refuses it otherwise).
 */
export function controlClient(url: string): SandboxControl {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}/_sandbox${path}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`sandbox control ${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const q = (apiKey: string) => `?apiKey=${encodeURIComponent(apiKey)}`;
  return {
    createAccount: (input = {}) => call("POST", "/accounts", input),
    updateAccount: (input) => call("PATCH", "/accounts", input),
    addKey: (apiKey) => call("POST", "/accounts/keys", { apiKey }),
    createTemplate: (input) => call("POST", "/templates", input),
    createIntegrationOrder: (input) => call("POST", "/integration-orders", input),
    addDoNotMail: (input) => call("POST", "/do-not-mail", input),
    uploadFont: (apiKey, name) => call("POST", "/fonts", { apiKey, name }),
    setOrderState: (orderId, input) => call("POST", `/orders/${orderId}/state`, input),
    advanceClock: (seconds) => call("POST", "/clock/advance", { seconds }),
    clock: () => call("GET", "/clock"),
    deliver: (apiKey, orderId) => call("POST", "/deliver", { apiKey, orderId }),
    scan: (orderId, input) => call("POST", `/orders/${orderId}/scans`, input),
    addFault: (spec) => call("POST", "/faults", spec),
    listFaults: () => call("GET", "/faults"),
    clearFaults: () => call("DELETE", "/faults"),
    ledger: (apiKey) => call("GET", `/ledger${q(apiKey)}`),
    integrationRecipients: (apiKey, id) => call("GET", `/integration-orders/${id}/recipients${q(apiKey)}`),
    addressBook: (apiKey) => call("GET", `/address-book${q(apiKey)}`),
    reset: () => call("POST", "/reset"),
  };
}

/**
 * A checkout settles in half a second, and may be read back at once: the tests wait for each
 * payment, and the defaults (2 s, read after 1 s) left the test run's workers idle for minutes.
 */
export const QUICK_TIMINGS: Partial<Timings> = { settlementSeconds: 0.5, pollAfterSeconds: 0 };

/**
 * Starts a sandbox for one test file. Defaults: `:memory:`, wall-clock speed 1, settlement half a second
 * after checkout (QUICK_TIMINGS), no request log (unexpected server errors still go to stderr).
 */
export async function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const sandbox = new Sandbox({
    storage: ":memory:",
    requestLog: false,
    ...options,
    timings: { ...QUICK_TIMINGS, ...options.timings },
  });
  const url = await sandbox.listen(0, "127.0.0.1");
  return { url, control: controlClient(url), sandbox, close: () => sandbox.close() };
}
