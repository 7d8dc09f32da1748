/**
 * The compact index of an order's recipients kept in the Pulumi state. For each declared key
 * (64 bits): the digest of the content it was sent with (64 bits), the service's recipient id,
 * and a 32-bit hash of the recipient as the service listed it back (listedHash in wire.ts), so
 * that a refresh notices a recipient changed elsewhere. The rows themselves never enter the state.
 *
 * Version 4 writes the entries in key order as columns, then gzips them (see writeColumns): each
 * key as its difference from the key before (sorted 64-bit hashes a million apart differ by about
 * 2^44, 6 bytes as a varint), each content digest XOR its key (zeros for a list without a key
 * column, where the content digest is the key, which gzip then takes to nothing), and the ids and
 * listed hashes each as four byte planes (an order's ids share their high bytes). At 1,000,000
 * keyed recipients: 20.8 MB gzipped, 27.7 MB as text, against 23.5 and 31.3 MB of 24-byte records.
 * Every copy of the index (the engine's request and answer, the state, its secret) shrinks alike.
 *
 * Earlier versions still decode:
 * - version 3 holds the same entries as 24-byte records (key, content digest, id, listed hash);
 * - version 2 has those records, with the listed hash of an earlier listedHash (a sha256). It
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

const VERSION = "v4";
/** Versions 3 and 2: 24-byte records; version 2's listed hash of another function. */
const RECORD_BYTES = 24;
const V1_RECORD_BYTES = 12;
/** The most bytes a version 4 entry takes before compression: a 10-byte varint and 16 bytes. */
const MOST_COLUMN_BYTES = 26;
/** Version 4's count and keys' length. */
const COLUMNS_HEADER_BYTES = 8;
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

  /** isAmongFirst, with the key as its two 32-bit words (high first). */
  isAmongFirstWords(hi: number, lo: number, count: number): boolean {
    const at = this.#table.findWords(hi, lo);
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

  /**
   * Writes the entries in key order as version 4's columns into `buffer` (at least
   * MOST_COLUMN_BYTES an entry and 8 more); the bytes written. The count and the keys' length in
   * bytes (4 bytes each), each key as its difference from the key before as a varint (7 bits a
   * byte, low first), each content digest XOR its key (8 bytes), then the ids and the listed
   * hashes, each as four planes of one byte an entry, high bytes first. Numbers are big-endian.
   */
  writeColumns(buffer: Buffer): number {
    const table = this.#table;
    const order = table.sorted();
    buffer.writeUInt32BE(order.length, 0);
    let offset = COLUMNS_HEADER_BYTES;
    let hiBefore = 0;
    let loBefore = 0;
    for (const at of order) {
      const hi = table.word(at, 0);
      const lo = table.word(at, 1);
      // Keys ascend: the difference is a 64-bit number, borrowed across the two words.
      let deltaLo = (lo - loBefore) >>> 0;
      let deltaHi = (hi - hiBefore - (lo < loBefore ? 1 : 0)) >>> 0;
      hiBefore = hi;
      loBefore = lo;
      while (deltaHi !== 0 || deltaLo > 0x7f) {
        buffer[offset++] = (deltaLo & 0x7f) | 0x80;
        deltaLo = ((deltaLo >>> 7) | ((deltaHi & 0x7f) << 25)) >>> 0;
        deltaHi >>>= 7;
      }
      buffer[offset++] = deltaLo;
    }
    buffer.writeUInt32BE(offset - COLUMNS_HEADER_BYTES, 4);
    for (const at of order) {
      offset = buffer.writeUInt32BE((table.word(at, 2) ^ table.word(at, 0)) >>> 0, offset);
      offset = buffer.writeUInt32BE((table.word(at, 3) ^ table.word(at, 1)) >>> 0, offset);
    }
    for (const word of [4, 5])
      for (let shift = 24; shift >= 0; shift -= 8)
        for (const at of order) buffer[offset++] = (table.word(at, word) >>> shift) & 0xff;
    return offset;
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
    for (let at = 0; at < this.#table.size; at++) yield this.#table.rowOrId(at);
  }

  *values(): Generator<IndexEntry> {
    for (let at = 0; at < this.#table.size; at++) yield this.#entryAt(at);
  }

  [Symbol.iterator]() {
    return this.entries();
  }

  #entryAt(at: number): IndexEntry {
    return {
      id: this.#table.rowOrId(at),
      content: this.#table.content(at),
      listed: this.#table.tagOrHash(at),
    };
  }
}

const UNDELIVERABLE = 0x8000_0000;
/** The id an index value names at the service (0: none). */
export const idOf = (value: number) => value & ~UNDELIVERABLE & 0xffff_ffff;
export const isAccepted = (value: number) => value > 0 && (value & UNDELIVERABLE) === 0;
export const markedUndeliverable = (recipientId: number) => (recipientId | UNDELIVERABLE) >>> 0;

export function encodeIndex(index: RecipientIndex): string {
  const columns = Buffer.allocUnsafe(COLUMNS_HEADER_BYTES + index.size * MOST_COLUMN_BYTES);
  const length = index.writeColumns(columns);
  // Hashes hardly compress: the output fits one chunk of the input's size and a little more, and
  // zlib then does not join chunks into a second copy (see inflated).
  const chunkSize = Math.min(MAX_CHUNK_BYTES, Math.max(zlibConstants.Z_MIN_CHUNK, length + 1024));
  return `${VERSION}.${gzipSync(columns.subarray(0, length), { chunkSize }).toString("base64")}`;
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

const corrupt = () => new Error("corrupt recipient index; refresh the stack to rebuild it");

/** The entries of version 4's columns (RecipientIndex.writeColumns), read in one pass. */
function fromColumns(columns: Buffer): RecipientIndex {
  if (columns.length < COLUMNS_HEADER_BYTES) throw corrupt();
  const count = columns.readUInt32BE(0);
  const contents = COLUMNS_HEADER_BYTES + columns.readUInt32BE(4);
  const planes = contents + count * 8;
  // Each key takes 1 to 10 bytes; the rest is 16 bytes an entry.
  if (contents < COLUMNS_HEADER_BYTES + count || planes + count * 8 !== columns.length) throw corrupt();
  const wordAt = (column: number, i: number) =>
    (((columns[column + i] as number) << 24) |
      ((columns[column + count + i] as number) << 16) |
      ((columns[column + 2 * count + i] as number) << 8) |
      (columns[column + 3 * count + i] as number)) >>>
    0;
  const index = new RecipientIndex(undefined, count);
  const key: [number, number] = [0, 0];
  const content: [number, number] = [0, 0];
  let offset = COLUMNS_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    let deltaLo = 0;
    let deltaHi = 0;
    let shift = 0;
    let byte: number;
    do {
      if (offset >= contents || shift > 63) throw corrupt();
      byte = columns[offset++] as number;
      const bits = byte & 0x7f;
      if (shift < 32) {
        deltaLo |= bits << shift;
        // The group at bit 28 has its three high bits in the high word.
        if (shift > 25) deltaHi |= bits >>> (32 - shift);
      } else deltaHi |= bits << (shift - 32);
      shift += 7;
    } while (byte & 0x80);
    const sum = key[1] + (deltaLo >>> 0);
    key[0] = (key[0] + (deltaHi >>> 0) + (sum > 0xffff_ffff ? 1 : 0)) >>> 0;
    key[1] = sum >>> 0;
    content[0] = (columns.readUInt32BE(contents + i * 8) ^ key[0]) >>> 0;
    content[1] = (columns.readUInt32BE(contents + i * 8 + 4) ^ key[1]) >>> 0;
    index.setWords(key, content, wordAt(planes, i), wordAt(planes + 4 * count, i));
  }
  if (offset !== contents) throw corrupt();
  return index;
}

/** The entries of version 1 to 3's records. */
function fromRecords(records: Buffer, version: string, keyed: boolean): RecipientIndex {
  const recordBytes = version === "v1" ? V1_RECORD_BYTES : RECORD_BYTES;
  if (records.length % recordBytes !== 0) throw corrupt();
  const index = new RecipientIndex(undefined, records.length / recordBytes);
  const unknown: [number, number] = [0, 0];
  for (let offset = 0; offset < records.length; offset += recordBytes) {
    const key: [number, number] = [records.readUInt32BE(offset), records.readUInt32BE(offset + 4)];
    if (recordBytes === V1_RECORD_BYTES) {
      index.setWords(key, keyed ? unknown : key, records.readUInt32BE(offset + 8), 0);
    } else {
      const content: [number, number] = [records.readUInt32BE(offset + 8), records.readUInt32BE(offset + 12)];
      const listed = version === "v3" ? records.readUInt32BE(offset + 20) : 0;
      index.setWords(key, content, records.readUInt32BE(offset + 16), listed);
    }
  }
  return index;
}

/** `keyed`: the set has a key column (decides what a version 1 record knows of the content). */
export function decodeIndex(encoded: string, keyed: boolean): RecipientIndex {
  const [version, payload] = encoded.split(".", 2);
  if (!["v1", "v2", "v3", VERSION].includes(version ?? "") || payload === undefined) {
    throw new Error(`unreadable recipient index (version "${version}"); refresh the stack to rebuild it`);
  }
  const bytes = inflated(Buffer.from(payload, "base64"));
  return version === VERSION ? fromColumns(bytes) : fromRecords(bytes, version as string, keyed);
}
