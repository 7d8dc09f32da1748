import { randomBytes, randomUUID } from "node:crypto";
import type { Profile } from "../../provider/api/schemas";
import type { PaymentBehaviour, Tier } from "../assumptions";
import type { Account, LedgerRow } from "../storage/rows";
import type { Store } from "../storage/store";
import { doNotMailKey, validateAddress } from "./address";
import { ApiError } from "./errors";
import type { Scheduler } from "./scheduler";
import { money } from "./units";

export interface NewAccount {
  email?: string | undefined;
  tier?: Tier | undefined;
  balance?: number | undefined;
  payment?: PaymentBehaviour | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  company?: string | undefined;
  /** A fixed key (the demo seed's); a new one is made otherwise. */
  apiKey?: string | undefined;
}

export interface LedgerLine {
  accountId: number;
  orderId: number | null;
  checkoutId: number | null;
  kind: LedgerRow["kind"];
  method: LedgerRow["method"];
  amount: number;
  outcome: LedgerRow["outcome"];
  description: string;
  /** Default: now. */
  at?: string;
}

/** Accounts: their keys, profile, tier, balance and ledger, payment behaviour and do-not-mail list. */
export class Accounts {
  /**
   * The account of an API key for authentication, cached: what a request takes from it (id,
   * profile, tier) changes only through update and reset, which empty the cache. Balances are
   * always read fresh with get(id).
   */
  private readonly keyCache = new Map<string, Account>();
  private readonly profiles = new WeakMap<Account, Profile>();
  private readonly paymentListeners: ((accountId: number) => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
  ) {}

  create(input: NewAccount): { apiKey: string; account: Account } {
    return this.store.tx(() => {
      const now = this.scheduler.now();
      const { lastInsertRowid: id } = this.store.run(
        `INSERT INTO accounts(aad_id, email, first_name, last_name, company, created, tier, balance, payment)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        randomUUID(),
        input.email ?? "",
        input.firstName ?? "Sandbox",
        input.lastName ?? "User",
        input.company ?? "Sandbox Co",
        now,
        input.tier ?? "pro",
        money(input.balance ?? 0),
        input.payment ?? "succeed",
      );
      if (!input.email)
        this.store.run("UPDATE accounts SET email = ? WHERE id = ?", `account${id}@sandbox.test`, id);
      if (input.balance && input.balance > 0) {
        this.record({
          accountId: id,
          orderId: null,
          checkoutId: null,
          kind: "credit",
          method: "balance",
          amount: input.balance,
          outcome: "succeeded",
          description: "opening balance",
        });
      }
      const apiKey = input.apiKey ?? this.addKey(id);
      if (input.apiKey) this.store.run("INSERT INTO api_keys(key, account_id) VALUES (?, ?)", apiKey, id);
      return { apiKey, account: this.get(id) };
    });
  }

  /** A new key for an account; earlier keys keep working (spec: generating a key revokes nothing). */
  addKey(accountId: number): string {
    const key = `sbx_${randomBytes(18).toString("base64url")}`;
    this.store.run("INSERT INTO api_keys(key, account_id) VALUES (?, ?)", key, accountId);
    return key;
  }

  get(id: number): Account {
    const row = this.store.get<Account>("SELECT * FROM accounts WHERE id = ?", id);
    if (!row) throw new Error(`account ${id} vanished`);
    return row;
  }

  authenticate(key: string): Account | undefined {
    let account = this.keyCache.get(key);
    if (!account) {
      account = this.byKey(key);
      if (account) this.keyCache.set(key, account);
    }
    return account;
  }

  byKey(key: string): Account | undefined {
    return this.store.get<Account>(
      "SELECT a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key = ?",
      key,
    );
  }

  /** Calls `listener` when an account's payment behaviour changes to one that answers (not hang). */
  onPaymentAnswers(listener: (accountId: number) => void): void {
    this.paymentListeners.push(listener);
  }

  update(
    accountId: number,
    patch: { tier?: Tier | undefined; payment?: PaymentBehaviour | undefined; balance?: number | undefined },
  ): Account {
    this.keyCache.clear();
    this.store.tx(() => {
      if (patch.tier) this.store.run("UPDATE accounts SET tier = ? WHERE id = ?", patch.tier, accountId);
      if (patch.payment) {
        this.store.run("UPDATE accounts SET payment = ? WHERE id = ?", patch.payment, accountId);
        if (patch.payment !== "hang") for (const listener of this.paymentListeners) listener(accountId);
      }
      if (patch.balance !== undefined) {
        const delta = money(patch.balance - this.get(accountId).balance);
        this.store.run("UPDATE accounts SET balance = ? WHERE id = ?", money(patch.balance), accountId);
        if (delta !== 0) {
          this.record({
            accountId,
            orderId: null,
            checkoutId: null,
            kind: delta > 0 ? "credit" : "charge",
            method: "balance",
            amount: Math.abs(delta),
            outcome: "succeeded",
            description: "balance set through the control API",
          });
        }
      }
    });
    return this.get(accountId);
  }

  /**
   * The profile of an account row, made once per row object and frozen: a cached account (see
   * `keyCache`) gives the same profile to every request, which the HTTP layer writes once.
   */
  profile(account: Account): Profile {
    let profile = this.profiles.get(account);
    if (!profile) {
      profile = Object.freeze(this.profileOf(account));
      this.profiles.set(account, profile);
    }
    return profile;
  }

  private profileOf(account: Account): Profile {
    return {
      id: account.id,
      aadId: account.aad_id,
      email: account.email,
      firstName: account.first_name,
      lastName: account.last_name,
      company: account.company,
      created: account.created,
      shouldProcessQrCodes: account.process_qr === 1,
    };
  }

  /** Forgets the cached keys (after a reset). */
  forget(): void {
    this.keyCache.clear();
  }

  // ---------------------------------------------------------------- ledger

  /** Adds one charge or credit to the account's ledger (the balance itself is changed by the caller). */
  record(line: LedgerLine): void {
    this.store.run(
      `INSERT INTO ledger(account_id, order_id, checkout_id, kind, method, amount, outcome, description, created)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      line.accountId,
      line.orderId,
      line.checkoutId,
      line.kind,
      line.method,
      money(line.amount),
      line.outcome,
      line.description,
      line.at ?? this.scheduler.now(),
    );
  }

  ledgerEntries(accountId: number): LedgerRow[] {
    return this.store.all<LedgerRow>("SELECT * FROM ledger WHERE account_id = ? ORDER BY id", accountId);
  }

  // ---------------------------------------------------------------- do-not-mail

  addDoNotMail(accountId: number, a: { address1: string; city: string; state: string; zip: string }): void {
    const result = validateAddress({ address1: a.address1, city: a.city, state: a.state, zipCode: a.zip });
    if (!result.standard) {
      throw new ApiError(
        400,
        "INVALID_ADDRESS",
        result.problems.map((p) => `${p.field === "zipCode" ? "zip" : p.field}: ${p.message}`),
      );
    }
    this.store.run(
      "INSERT OR IGNORE INTO do_not_mail(account_id, address_key) VALUES (?, ?)",
      accountId,
      doNotMailKey(result.standard),
    );
  }

  /** The account's do-not-mail list, as `doNotMailKey`s: one read for a whole batch. */
  doNotMailKeys(accountId: number): Set<string> {
    return new Set(
      this.store
        .all<{ address_key: string }>("SELECT address_key FROM do_not_mail WHERE account_id = ?", accountId)
        .map((r) => r.address_key),
    );
  }

  isDoNotMail(accountId: number, key: string): boolean {
    return (
      this.store.get(
        "SELECT 1 AS x FROM do_not_mail WHERE account_id = ? AND address_key = ?",
        accountId,
        key,
      ) !== undefined
    );
  }
}
