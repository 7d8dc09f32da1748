import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { DEFAULT_TIMINGS, type Timings } from "./assumptions";
import { Accounts } from "./domain/accounts";
import { AddressBook } from "./domain/address-book";
import { Analytics } from "./domain/analytics";
import { Automations } from "./domain/automations";
import { Checkout } from "./domain/checkout";
import { Conversions } from "./domain/conversions";
import { Delivery } from "./domain/delivery";
import { FastForward } from "./domain/fast-forward";
import { Orders } from "./domain/orders";
import { Recipients } from "./domain/recipients";
import { Scans } from "./domain/scans";
import { Scheduler } from "./domain/scheduler";
import { Templates } from "./domain/templates";
import { Transactions } from "./domain/transactions";
import { buildApp } from "./http/app";
import { FaultTable } from "./http/faults";
import { SandboxClock } from "./storage/clock";
import { Store } from "./storage/store";

export interface SandboxOptions {
  /** A SQLite file path, or `:memory:` (tests). */
  storage: string;
  /** Clock speed: sandbox seconds per wall second (default 1). */
  speed?: number;
  timings?: Partial<Timings>;
  /** One line per request and errors; default: stderr. Pass `() => {}` to silence. */
  log?: (line: string) => void;
  /** false: no line per request (errors are still logged). Default true. */
  requestLog?: boolean;
  /** Source of randomness for fault probabilities (tests make it deterministic). */
  random?: () => number;
}

/**
 * A running sandbox, put together: storage (the store and its clock) at the bottom, the domain
 * parts on it, and the HTTP server (v1 and control routes) in front of them. See docs/sandbox-internals.md.
 */
export class Sandbox {
  readonly store: Store;
  readonly clock: SandboxClock;
  readonly scheduler: Scheduler;
  readonly accounts: Accounts;
  readonly templates: Templates;
  readonly delivery: Delivery;
  readonly orders: Orders;
  readonly recipients: Recipients;
  readonly checkout: Checkout;
  readonly automations: Automations;
  readonly scans: Scans;
  readonly analytics: Analytics;
  readonly transactions: Transactions;
  readonly conversions: Conversions;
  readonly addressBook: AddressBook;
  readonly fastForward: FastForward;
  readonly faults: FaultTable;
  readonly app: FastifyInstance;
  readonly log: (line: string) => void;
  private closed = false;

  constructor(readonly options: SandboxOptions) {
    const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    const timings = { ...DEFAULT_TIMINGS, ...options.timings };
    this.log = log;
    this.store = new Store(options.storage);
    this.clock = new SandboxClock(this.store, options.speed ?? 1);
    this.scheduler = new Scheduler(this.store, this.clock, (event, error) =>
      log(
        `timed work ${event.kind} ${event.ref} failed and was dropped: ${(error as Error)?.stack ?? String(error)}`,
      ),
    );
    const { store, scheduler } = this;
    this.accounts = new Accounts(store, scheduler);
    this.templates = new Templates(store, scheduler);
    this.delivery = new Delivery(store, scheduler);
    this.orders = new Orders(store, scheduler, this.templates, this.delivery);
    this.recipients = new Recipients(store, scheduler, this.orders, this.accounts);
    this.checkout = new Checkout(
      store,
      scheduler,
      timings,
      this.accounts,
      this.orders,
      this.recipients,
      this.delivery,
    );
    this.automations = new Automations(store, scheduler, timings, this.orders, this.accounts);
    this.scans = new Scans(store, scheduler, timings, this.accounts, this.orders);
    this.analytics = new Analytics(store, scheduler);
    this.transactions = new Transactions(store, this.accounts);
    this.conversions = new Conversions(store, scheduler, timings);
    this.addressBook = new AddressBook(store, scheduler);
    this.fastForward = new FastForward(store, scheduler, this.orders);
    this.faults = new FaultTable(options.random);
    this.app = buildApp({
      v1: {
        accounts: this.accounts,
        templates: this.templates,
        orders: this.orders,
        recipients: this.recipients,
        checkout: this.checkout,
        automations: this.automations,
        scans: this.scans,
        analytics: this.analytics,
        transactions: this.transactions,
        conversions: this.conversions,
        addressBook: this.addressBook,
      },
      control: {
        accounts: this.accounts,
        templates: this.templates,
        orders: this.orders,
        automations: this.automations,
        scans: this.scans,
        addressBook: this.addressBook,
        fastForward: this.fastForward,
        scheduler,
        clock: this.clock,
        faults: this.faults,
        reset: () => this.scheduler.exclusive(() => this.reset()),
        log,
      },
      log,
      requestLog: options.requestLog !== false,
    });
  }

  /** Empties every table, resets the clock, clears faults (the control API's reset). */
  reset(): void {
    this.store.reset();
    this.scheduler.forget();
    this.accounts.forget();
    this.clock.reset();
    this.faults.clear();
  }

  /** Starts listening; resolves to the base URL. Port 0 picks a free port. */
  async listen(port = 0, host = "127.0.0.1"): Promise<string> {
    await this.app.listen({ port, host });
    const address = this.app.server.address() as AddressInfo;
    const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `http://${shown}:${address.port}`;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.app.close();
    try {
      this.clock.persist();
    } catch {
      // A closed or read-only store has nothing left to persist.
    }
    this.store.close();
  }
}

export async function startSandbox(
  options: SandboxOptions & { port?: number; host?: string },
): Promise<{ sandbox: Sandbox; url: string }> {
  const sandbox = new Sandbox(options);
  const url = await sandbox.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  return { sandbox, url };
}
