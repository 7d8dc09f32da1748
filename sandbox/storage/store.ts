import * as fs from "node:fs";
import * as path from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { addressKey, duplicateKey } from "../domain/address";
import { recipientSearchText } from "./rows";

/**
 * The sandbox's state, in SQLite through Node's built-in `node:sqlite`.
 *
 * A file database uses WAL with synchronous=NORMAL: every committed transaction is in the WAL file
 * (the operating system's copy of it) before the request answers, so a SIGKILL of the process loses
 * nothing that was acknowledged; a power loss or kernel crash may lose the last commits (only
 * checkpoints are synced to disk), which a local sandbox accepts for the speed of its writes.
 * Rows that carry a whole wire object keep it as JSON in a `data` column; the columns beside it are
 * the ones queries filter or sort on.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  aad_id TEXT NOT NULL,
  email TEXT NOT NULL,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  company TEXT NOT NULL,
  created TEXT NOT NULL,
  tier TEXT NOT NULL,
  balance REAL NOT NULL,
  payment TEXT NOT NULL,
  process_qr INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS api_keys (
  key TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id)
);
CREATE TABLE IF NOT EXISTS fonts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  is_template INTEGER NOT NULL,
  template_id INTEGER,
  name TEXT NOT NULL,
  product TEXT NOT NULL,
  status TEXT NOT NULL,
  has_qr INTEGER NOT NULL,
  qr_url TEXT,
  font TEXT,
  required_merge_fields TEXT NOT NULL DEFAULT '[]',
  postage_type TEXT,
  production_speed TEXT,
  hold_until TEXT,
  paid_date TEXT,
  ready_at TEXT,
  mailed_at TEXT,
  paid_recipient_searches INTEGER NOT NULL DEFAULT 0,
  cum_validated INTEGER NOT NULL DEFAULT 0,
  cum_duplicated INTEGER NOT NULL DEFAULT 0,
  cum_do_not_mail INTEGER NOT NULL DEFAULT 0,
  checkout_count INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL,
  updated TEXT NOT NULL,
  recipient_count INTEGER NOT NULL DEFAULT 0,
  deleted_recipients INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS orders_account ON orders(account_id, is_template, id);
CREATE TABLE IF NOT EXISTS recipients (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL,
  do_not_mail INTEGER NOT NULL,
  dpv TEXT NOT NULL,
  first_name TEXT,
  last_name TEXT,
  address1 TEXT,
  scans INTEGER NOT NULL DEFAULT 0,
  last_scan TEXT,
  created TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS recipients_order ON recipients(order_id, id);
CREATE TABLE IF NOT EXISTS do_not_mail (
  account_id INTEGER NOT NULL,
  address_key TEXT NOT NULL,
  PRIMARY KEY (account_id, address_key)
);
CREATE TABLE IF NOT EXISTS checkouts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  postage_type TEXT NOT NULL,
  production_speed TEXT NOT NULL,
  hold_until TEXT,
  auto_bill INTEGER NOT NULL,
  amount REAL NOT NULL,
  quantity INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  created TEXT NOT NULL,
  settled TEXT,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  order_id INTEGER,
  checkout_id INTEGER,
  kind TEXT NOT NULL,
  method TEXT NOT NULL,
  amount REAL NOT NULL,
  outcome TEXT NOT NULL,
  description TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ledger_account ON ledger(account_id, id);
CREATE INDEX IF NOT EXISTS ledger_order ON ledger(order_id, id);
CREATE TABLE IF NOT EXISTS integration_orders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  template_id INTEGER,
  status TEXT NOT NULL,
  postage_type TEXT,
  created TEXT NOT NULL,
  updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS integration_recipients (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  integration_order_id INTEGER NOT NULL,
  source TEXT NOT NULL,
  dedupe_key TEXT NOT NULL,
  address_key TEXT NOT NULL,
  created TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS integration_recipients_order ON integration_recipients(integration_order_id, dedupe_key);
CREATE TABLE IF NOT EXISTS proximity_searches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  integration_order_id INTEGER NOT NULL,
  status TEXT NOT NULL,
  discovered INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS statistics (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  order_id INTEGER NOT NULL,
  recipient_id INTEGER NOT NULL,
  value INTEGER NOT NULL,
  applied INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS conversions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  file_name TEXT NOT NULL,
  status TEXT NOT NULL,
  matched INTEGER NOT NULL DEFAULT 0,
  pending_deletion INTEGER NOT NULL DEFAULT 0,
  record_count INTEGER NOT NULL,
  upload_date TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS address_book (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  created TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  due TEXT NOT NULL,
  kind TEXT NOT NULL,
  ref INTEGER NOT NULL,
  data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS events_due ON events(due, id);
`;

/** Ids start at different bases so that an order id is never mistaken for a recipient id in tests. */
const ID_BASES: Record<string, number> = {
  accounts: 100,
  orders: 10_000,
  recipients: 500_000,
  checkouts: 7_000,
  ledger: 90_000,
  integration_orders: 3_000,
  integration_recipients: 800_000,
  proximity_searches: 4_000,
  statistics: 60_000,
  conversions: 20_000,
  address_book: 40_000,
  fonts: 900,
};

/** In delete order: keys before the accounts they reference. */
const RESETTABLE = [
  "api_keys",
  "accounts",
  "fonts",
  "orders",
  "recipients",
  "do_not_mail",
  "checkouts",
  "ledger",
  "integration_orders",
  "integration_recipients",
  "proximity_searches",
  "statistics",
  "conversions",
  "address_book",
  "events",
  "meta",
];

export type Row = Record<string, SQLInputValue>;

export class Store {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private depth = 0;
  /** How many times `reset` emptied the store: what was remembered of its rows before is void. */
  resets = 0;

  /** `location` is a file path or `:memory:`. A file's folder is created when missing. */
  constructor(readonly location: string) {
    if (location !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(location)), { recursive: true });
    this.db = new DatabaseSync(location);
    if (location !== ":memory:") {
      // 16 KiB pages for a new file (an existing one keeps its size): an append of 5,000 rows
      // writes a quarter of the page frames and b-tree splits, about a fifth less CPU.
      this.db.exec("PRAGMA page_size = 16384");
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
    }
    this.db.exec("PRAGMA busy_timeout = 5000");
    this.db.exec(SCHEMA);
    this.migrate();
    // What a recipient search looks in, computed from the row (not stored: see packRecipient).
    this.db.function("recipient_search", { deterministic: true }, (id, dpv, first, last, address1, data) =>
      recipientSearchText({
        id: Number(id),
        dpv: String(dpv),
        first_name: first as string | null,
        last_name: last as string | null,
        address1: address1 as string | null,
        data: String(data),
      }),
    );
    this.seedSequences();
  }

  /**
   * Brings a file of an earlier version to this schema, once: the orders get their recipient
   * counts (counted here), and the recipients lose the `search` column (searches compute it). Their
   * rows keep the whole wire object as JSON, which `unpackRecipient` still reads. The recipients
   * queued on automations get their address key, and their duplicate key is computed again from
   * the row (recipients found by proximity were keyed without their names).
   */
  private migrate(): void {
    const columns = (table: string) =>
      new Set(
        this.db
          .prepare(`PRAGMA table_info(${table})`)
          .all()
          .map((c) => String(c.name)),
      );
    const orders = columns("orders");
    const recipients = columns("recipients");
    if (!orders.has("recipient_count") || !orders.has("deleted_recipients") || recipients.has("search")) {
      this.tx(() => {
        if (!orders.has("recipient_count")) {
          this.db.exec("ALTER TABLE orders ADD COLUMN recipient_count INTEGER NOT NULL DEFAULT 0");
          this.db.exec(
            "UPDATE orders SET recipient_count = (SELECT count(*) FROM recipients WHERE order_id = orders.id)",
          );
        }
        if (!orders.has("deleted_recipients")) {
          this.db.exec("ALTER TABLE orders ADD COLUMN deleted_recipients INTEGER NOT NULL DEFAULT 0");
        }
        if (recipients.has("search")) this.db.exec("ALTER TABLE recipients DROP COLUMN search");
      });
    }
    if (!columns("integration_recipients").has("address_key")) {
      this.tx(() => {
        this.db.exec("ALTER TABLE integration_recipients ADD COLUMN address_key TEXT NOT NULL DEFAULT ''");
        const update = this.db.prepare(
          "UPDATE integration_recipients SET dedupe_key = ?, address_key = ? WHERE id = ?",
        );
        for (const row of this.db.prepare("SELECT id, data FROM integration_recipients").all()) {
          const data = JSON.parse(String(row.data));
          update.run(duplicateKey(data, data), addressKey(data), row.id as number);
        }
      });
    }
    this.db.exec(
      "CREATE INDEX IF NOT EXISTS integration_recipients_address ON integration_recipients(integration_order_id, address_key)",
    );
  }

  private seedSequences(): void {
    for (const [table, base] of Object.entries(ID_BASES)) {
      const existing = this.get<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = ?", table);
      if (!existing) this.run("INSERT INTO sqlite_sequence(name, seq) VALUES (?, ?)", table, base);
    }
  }

  /** The statement of `sql`, prepared once per store and reused. */
  prepare(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  get<T>(sql: string, ...params: SQLInputValue[]): T | undefined {
    return this.prepare(sql).get(...params) as T | undefined;
  }

  all<T>(sql: string, ...params: SQLInputValue[]): T[] {
    return this.prepare(sql).all(...params) as T[];
  }

  run(sql: string, ...params: SQLInputValue[]): { changes: number; lastInsertRowid: number } {
    const result = this.prepare(sql).run(...params);
    return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  tx<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.depth++;
    try {
      const result = fn();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    } finally {
      this.depth--;
    }
  }

  /**
   * Runs `fn` inside a transaction (`tx` opens one when none is open) as one part of it: when `fn`
   * throws, what it wrote is rolled back and the rest of the transaction stays.
   */
  part<T>(fn: () => T): T {
    return this.tx(() => {
      this.prepare("SAVEPOINT part").run();
      try {
        const result = fn();
        this.prepare("RELEASE part").run();
        return result;
      } catch (error) {
        this.prepare("ROLLBACK TO part").run();
        this.prepare("RELEASE part").run();
        throw error;
      }
    });
  }

  getMeta(key: string): string | undefined {
    return this.get<{ value: string }>("SELECT value FROM meta WHERE key = ?", key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.run(
      "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  /** Empties every table (the control API's reset); id sequences start again from their bases. */
  reset(): void {
    this.tx(() => {
      for (const table of RESETTABLE) this.db.exec(`DELETE FROM ${table}`);
      this.db.exec("DELETE FROM sqlite_sequence");
      this.seedSequences();
    });
    this.resets++;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
