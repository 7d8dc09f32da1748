/**
 * The compact index of an order's recipients kept in the Pulumi state. For each declared key
 * (64 bits): the digest of the content it was sent with (64 bits), the service's recipient id,
 * and a 32-bit hash of the recipient as the service listed it back (listedHash in wire.ts), so
 * that a refresh notices a recipient changed elsewhere. 24 bytes a recipient before compression;
 * the rows themselves never enter the state.
 *
 * Earlier versions still decode:
 * - version 2 has the same records, with the listed hash of an earlier listedHash (a sha256). It
 *   decodes with no listed hash (0), as a recipient never listed: the next listing records it;
 * - version 1 (before content digests were recorded) held key and id only. Without a key column
 *   the key is the content digest, so nothing is lost; under a key column the content is
 *   UNKNOWN_CONTENT, which the next update settles by comparing each such recipient, as the order
 *   lists it, with its declared row (see OrderRecipients' reconcile).
 */
import { gunzipSync, gzipSync, constants as zlibConstants } from "node:zlib";
import type * as pulumi from "@pulumi/pulumi";
import { KEY_HEX_LENGTH, KeyTable } from "./table";

/**
 * The options of a resource that records an index (OrderRecipients, Conversions,
 * AutomationRecipients): its `index` output is a secret. The state then keeps it encrypted by the
 * stack's secrets provider: its hashes are of keys such as customer ids or e-mails, which anyone
 * reading the state could otherwise test guesses against. The engine's events show a secret as
 * `[secret]`, so a preview (and the review that reads its events) no longer carries the index of a
 * million recipients, about 31 MB, in each event of the resource.
 */
export function withSecretIndex(
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions {
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "index"] };
}

const VERSION = "v3";
const ENTRY_BYTES = 24;
/** Version 2: the records of version 3, their listed hash of another function. */
const V2 = "v2";
const V1_ENTRY_BYTES = 12;
/** The largest output chunk asked of zlib: an index of about 11,000,000 recipients. */
const MAX_CHUNK_BYTES = 256 * 1024 * 1024;

/**
 * The content digest of a recipient whose content is not known: recorded by version 1 under a key
 * column, or changed at the service since it was sent. Never equal to a declared content digest.
 */
export const UNKNOWN_CONTENT = "0".repeat(KEY_HEX_LENGTH);

/**
 * `id`: the recipient's id at the service; 0 for a recipient the service dropped and did not keep;
 * the id with UNDELIVERABLE set for one it kept on the order but marked undeliverable
 * (do-not-mail), which still has to be deleted when it leaves the list. `listed`: 0 when not known.
 */
export interface IndexEntry {
  id: number;
  content: string;
  listed: number;
}

/**
 * What is on an order, by key: a KeyTable (table.ts) read and written like a Map of IndexEntry. The
 * entries handed out are made on each call; the table keeps none.
 */
export class RecipientIndex {
  #table: KeyTable;

  /** `expected`: how many entries it will hold, when known (see KeyTable). */
  constructor(entries?: Iterable<readonly [string, IndexEntry]>, expected?: number) {
    this.#table = new KeyTable(expected);
    for (const [key, entry] of entries ?? []) this.set(key, entry);
  }

  get size(): number {
    return this.#table.size;
  }

  has(key: string): boolean {
    return this.#table.find(key) >= 0;
  }

  /** Whether `key` is among the first `count` entries set (entries keep the order they were set in). */
  isAmongFirst(key: string, count: number): boolean {
    const at = this.#table.find(key);
    return at >= 0 && at < count;
  }

  get(key: string): IndexEntry | undefined {
    const at = this.#table.find(key);
    return at < 0 ? undefined : this.#entryAt(at);
  }

  set(key: string, entry: IndexEntry): this {
    this.#table.put(key, entry.content, entry.id, entry.listed);
    return this;
  }

  /** set, from a record's words: key and content digest as two 32-bit words each (high first). */
  setWords(key: [number, number], content: [number, number], id: number, listed: number): void {
    this.#table.putWords(key[0], key[1], content[0], content[1], id, listed);
  }

  /** The entries in key order. */
  *sorted(): Generator<[string, IndexEntry]> {
    for (const at of this.#table.sorted()) yield [this.#table.key(at), this.#entryAt(at)];
  }

  /** Writes the entries in key order as records (ENTRY_BYTES each) into `buffer`. */
  writeRecords(buffer: Buffer): void {
    let offset = 0;
    for (const at of this.#table.sorted()) {
      this.#table.writeRecord(at, buffer, offset);
      offset += ENTRY_BYTES;
    }
  }

  /** The index's digest lines in key order, in chunks (KeyTable.sortedLines): for a digest. */
  sortedLines(take: (chunk: Uint8Array) => void): void {
    this.#table.sortedLines(take);
  }

  *entries(): Generator<[string, IndexEntry]> {
    for (let at = 0; at < this.#table.size; at++) yield [this.#table.key(at), this.#entryAt(at)];
  }

  *keys(): Generator<string> {
    for (let at = 0; at < this.#table.size; at++) yield this.#table.key(at);
  }

  /** The entries' id values (see idOf), without making the entries: counts run over a million. */
  *ids(): Generator<number> {
    for (let at = 0; at < this.#table.size; at++) yield this.#table.a(at);
  }

  *values(): Generator<IndexEntry> {
    for (let at = 0; at < this.#table.size; at++) yield this.#entryAt(at);
  }

  [Symbol.iterator]() {
    return this.entries();
  }

  #entryAt(at: number): IndexEntry {
    return { id: this.#table.a(at), content: this.#table.content(at), listed: this.#table.b(at) };
  }
}

const UNDELIVERABLE = 0x8000_0000;
/** The id an index value names at the service (0: none). */
export const idOf = (value: number) => value & ~UNDELIVERABLE & 0xffff_ffff;
export const isAccepted = (value: number) => value > 0 && (value & UNDELIVERABLE) === 0;
export const markedUndeliverable = (recipientId: number) => (recipientId | UNDELIVERABLE) >>> 0;

export function encodeIndex(index: RecipientIndex): string {
  const buffer = Buffer.alloc(index.size * ENTRY_BYTES);
  index.writeRecords(buffer);
  // Hashes hardly compress: the output fits one chunk of the input's size and a little more, and
  // zlib then does not join chunks into a second copy (see inflated).
  const chunkSize = Math.min(MAX_CHUNK_BYTES, Math.max(zlibConstants.Z_MIN_CHUNK, buffer.length + 1024));
  return `${VERSION}.${gzipSync(buffer, { chunkSize }).toString("base64")}`;
}

/**
 * The records of a gzip payload. zlib's synchronous call collects its output in chunks of
 * `chunkSize` and joins them, twice the index at once; gzip ends with the size of its content
 * (modulo 2^32), so the chunk is made that size and the output is the one chunk. A wrong size
 * (a payload that is not an index) only costs the joining.
 */
function inflated(gzipped: Buffer): Buffer {
  const stated = gzipped.length >= 4 ? gzipped.readUInt32LE(gzipped.length - 4) : 0;
  // One byte over, so that zlib finds the end of its input before the chunk is full.
  const chunkSize = Math.min(MAX_CHUNK_BYTES, Math.max(zlibConstants.Z_MIN_CHUNK, stated + 1));
  return gunzipSync(gzipped, { chunkSize });
}

/** `keyed`: the set has a key column (decides what a version 1 record knows of the content). */
export function decodeIndex(encoded: string, keyed: boolean): RecipientIndex {
  const [version, payload] = encoded.split(".", 2);
  const entryBytes =
    version === VERSION || version === V2 ? ENTRY_BYTES : version === "v1" ? V1_ENTRY_BYTES : 0;
  const listedKnown = version === VERSION;
  if (entryBytes === 0 || payload === undefined) {
    throw new Error(`unreadable recipient index (version "${version}"); refresh the stack to rebuild it`);
  }
  const buffer = inflated(Buffer.from(payload, "base64"));
  if (buffer.length % entryBytes !== 0)
    throw new Error("corrupt recipient index; refresh the stack to rebuild it");
  const index = new RecipientIndex(undefined, buffer.length / entryBytes);
  const unknown: [number, number] = [0, 0];
  for (let offset = 0; offset < buffer.length; offset += entryBytes) {
    const key: [number, number] = [buffer.readUInt32BE(offset), buffer.readUInt32BE(offset + 4)];
    if (entryBytes === V1_ENTRY_BYTES) {
      index.setWords(key, keyed ? unknown : key, buffer.readUInt32BE(offset + 8), 0);
    } else {
      const content: [number, number] = [buffer.readUInt32BE(offset + 8), buffer.readUInt32BE(offset + 12)];
      const listed = listedKnown ? buffer.readUInt32BE(offset + 20) : 0;
      index.setWords(key, content, buffer.readUInt32BE(offset + 16), listed);
    }
  }
  return index;
}
