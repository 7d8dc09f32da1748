/**
 * A compact table of recipients by their 64-bit key (16 hex characters): for each, a 64-bit
 * content digest and two 32-bit numbers (rowOrId: a declared row, or an id at the service;
 * tagOrHash: a declared row's tag, or an index entry's listed hash), in typed arrays with an
 * open-addressing hash of positions.
 * About 40 bytes a recipient, where a Map of strings and objects takes a few hundred: the provider
 * keeps a million recipients' keys this way, never their rows. Entries keep the order they were
 * added in; none is ever removed.
 */
import { HASH_CHUNK_BYTES } from "../../limits";

/** Length in hex characters of a recipient key (64 bits). */
export const KEY_HEX_LENGTH = 16;

const WORDS = 6; // keyHi, keyLo, contentHi, contentLo, rowOrId, tagOrHash

const HEX_VALUE = new Int8Array(128).fill(-1);
for (const [i, c] of [..."0123456789abcdef"].entries()) HEX_VALUE[c.charCodeAt(0)] = i;

/** The 32-bit word of 8 lowercase hex characters from `at`, or -1 where one is not hex. */
function hexWord(text: string, at: number): number {
  let word = 0;
  for (let i = at; i < at + 8; i++) {
    const value = HEX_VALUE[text.charCodeAt(i)] ?? -1;
    if (value < 0) return -1;
    word = (word << 4) | value;
  }
  return word >>> 0;
}

/** Each byte as its two hex characters. */
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
const wordHex = (word: number) =>
  `${BYTE_HEX[word >>> 24]}${BYTE_HEX[(word >>> 16) & 255]}${BYTE_HEX[(word >>> 8) & 255]}${BYTE_HEX[word & 255]}`;

/** Two words as 16 hex characters (twice a recipient for a set's digest: no Buffer made for it). */
function wordsHex(hi: number, lo: number): string {
  return wordHex(hi) + wordHex(lo);
}

/** One array, reused: wordsOf runs once per recipient, twice a sync. */
const words4 = new Uint32Array(4);

/** A key and a content digest (16 hex characters each) as their 32-bit words, high first. */
function wordsOf(key: string, content: string): Uint32Array {
  const sized = key.length === KEY_HEX_LENGTH && content.length === KEY_HEX_LENGTH;
  const hi = sized ? hexWord(key, 0) : -1;
  const lo = sized ? hexWord(key, 8) : -1;
  const contentHi = sized ? hexWord(content, 0) : -1;
  const contentLo = sized ? hexWord(content, 8) : -1;
  if (hi < 0 || lo < 0 || contentHi < 0 || contentLo < 0)
    throw new Error(`not a recipient key and content digest: ${key} ${content}`);
  words4[0] = hi;
  words4[1] = lo;
  words4[2] = contentHi;
  words4[3] = contentLo;
  return words4;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Each byte's two hex digits as ASCII codes, the first in the high byte. */
const BYTE_HEX_CODES = new Uint16Array(256).map(
  (_, byte) => (BYTE_HEX[byte] as string).charCodeAt(0) * 256 + (BYTE_HEX[byte] as string).charCodeAt(1),
);
const SPACE = 0x20;
const LINE_END = 0x0a;
/** A digest line at its longest: key, space, content digest, line end. */
const LONGEST_LINE = 2 * KEY_HEX_LENGTH + 2;

/** Writes a 32-bit word as its 8 lowercase hex digits at `offset`; the offset after them. */
function writeHexWord(bytes: Uint8Array, offset: number, word: number): number {
  for (let shift = 24; shift >= 0; shift -= 8) {
    const codes = BYTE_HEX_CODES[(word >>> shift) & 255] as number;
    bytes[offset++] = codes >>> 8;
    bytes[offset++] = codes & 255;
  }
  return offset;
}

/** The slots of a table of `capacity` entries: a power of 2, at least twice as many. */
function slotsFor(capacity: number): number {
  let slots = 32;
  while (slots < capacity * 2) slots *= 2;
  return slots;
}

export class KeyTable {
  /** The entries, WORDS words each, in the order they were added; room for `capacity` of them. */
  #words: Uint32Array;
  /**
   * Position + 1 of the entry in each slot; 0 for an empty slot. A power of 2, at least twice the
   * entries. Sized apart from the entries, which need not be a power of 2: 1,100,000 entries take
   * 26 MB and 2^22 slots (16 MB), not room for 2^21 entries (48 MB) beside the slots.
   */
  #slots: Int32Array;
  #size = 0;

  /**
   * `expected`: how many entries it will hold, when known (a decoded index, a plan's kept
   * recipients): the arrays are made at that size once, instead of growing through copies.
   */
  constructor(expected = 16) {
    const capacity = Math.max(16, expected);
    this.#words = new Uint32Array(capacity * WORDS);
    this.#slots = new Int32Array(slotsFor(capacity));
  }

  get size(): number {
    return this.#size;
  }

  /** The position of `key`, or -1. */
  find(key: string): number {
    if (key.length !== KEY_HEX_LENGTH) return -1;
    const hi = hexWord(key, 0);
    const lo = hexWord(key, 8);
    return hi < 0 || lo < 0 ? -1 : this.findWords(hi, lo);
  }

  /** The position of the key made of these two words, or -1. */
  findWords(hi: number, lo: number): number {
    const mask = this.#slots.length - 1;
    // The keys are hashes already: their low bits spread evenly.
    for (let slot = lo & mask; ; slot = (slot + 1) & mask) {
      const at = this.#slots[slot] as number;
      if (at === 0) return -1;
      const base = (at - 1) * WORDS;
      if (this.#words[base] === hi && this.#words[base + 1] === lo) return at - 1;
    }
  }

  /** Adds `key`, or overwrites it where it is; its position. */
  put(key: string, content: string, rowOrId: number, tagOrHash: number): number {
    const words = wordsOf(key, content);
    return this.putWords(
      words[0] as number,
      words[1] as number,
      words[2] as number,
      words[3] as number,
      rowOrId,
      tagOrHash,
    );
  }

  /**
   * Adds `key` when it is not there yet, with `tagOrHash()` (called only then); the position of
   * the entry that has it already, or -1 when it was added. The key is read once for both.
   */
  putNew(key: string, content: string, rowOrId: number, tagOrHash: () => number): number {
    const words = wordsOf(key, content);
    const hi = words[0] as number;
    const lo = words[1] as number;
    const at = this.findWords(hi, lo);
    if (at >= 0) return at;
    this.putWords(hi, lo, words[2] as number, words[3] as number, rowOrId, tagOrHash());
    return -1;
  }

  /** put, with the key and the content digest as their two 32-bit words each (high first). */
  putWords(
    hi: number,
    lo: number,
    contentHi: number,
    contentLo: number,
    rowOrId: number,
    tagOrHash: number,
  ): number {
    let at = this.findWords(hi, lo);
    if (at < 0) {
      if (this.#size * WORDS === this.#words.length) this.#growWords();
      if ((this.#size + 1) * 2 > this.#slots.length) this.#rehash();
      at = this.#size++;
      this.#words[at * WORDS] = hi;
      this.#words[at * WORDS + 1] = lo;
      this.#place(at);
    }
    const base = at * WORDS;
    this.#words[base + 2] = contentHi;
    this.#words[base + 3] = contentLo;
    this.#words[base + 4] = rowOrId >>> 0;
    this.#words[base + 5] = tagOrHash >>> 0;
    return at;
  }

  key(at: number): string {
    return wordsHex(this.#words[at * WORDS] as number, this.#words[at * WORDS + 1] as number);
  }

  content(at: number): string {
    return wordsHex(this.#words[at * WORDS + 2] as number, this.#words[at * WORDS + 3] as number);
  }

  /** Word `i` of the entry (WORDS of them: key high and low, content digest high and low, rowOrId, tagOrHash). */
  word(at: number, i: number): number {
    return this.#words[at * WORDS + i] as number;
  }

  /** Whether the entry's content digest is `content` (16 hex characters), without making its text. */
  contentIs(at: number, content: string): boolean {
    if (content.length !== KEY_HEX_LENGTH) return false;
    const base = at * WORDS;
    return this.#words[base + 2] === hexWord(content, 0) && this.#words[base + 3] === hexWord(content, 8);
  }

  /** Whether the entry's content digest is its key (a recipient without a key column). */
  contentIsKey(at: number): boolean {
    const base = at * WORDS;
    return this.#words[base] === this.#words[base + 2] && this.#words[base + 1] === this.#words[base + 3];
  }

  /** The first number of the entry: a declared recipient's row, or an index entry's id at the service. */
  rowOrId(at: number): number {
    return this.#words[at * WORDS + 4] as number;
  }

  /**
   * Each entry whose key `other` has not (`otherAt` -1) or has with another content digest, with
   * its position here and there, in this table's order: the keys are compared as words, never made
   * into text (two tables of a million compared in a fraction of the time their hex would take).
   */
  eachDifference(other: KeyTable, each: (at: number, otherAt: number) => void): void {
    const words = this.#words;
    const otherWords = other.#words;
    for (let at = 0; at < this.#size; at++) {
      const base = at * WORDS;
      const otherAt = other.findWords(words[base] as number, words[base + 1] as number);
      if (otherAt < 0) each(at, -1);
      else if (
        otherWords[otherAt * WORDS + 2] !== words[base + 2] ||
        otherWords[otherAt * WORDS + 3] !== words[base + 3]
      )
        each(at, otherAt);
    }
  }

  /** The second number of the entry: a declared recipient's tag, or an index entry's listed hash. */
  tagOrHash(at: number): number {
    return this.#words[at * WORDS + 5] as number;
  }

  /** Positions in key order (the order of the keys as hex text). */
  sorted(): Uint32Array {
    // Each key's high word beside its position, as 64-bit numbers sorted natively: no lookup of a
    // key's position after. Keys that share a high word (about a hundred in a million) are then
    // put in the order of their low words.
    const [hiAt, atAt] = LITTLE_ENDIAN ? [1, 0] : [0, 1];
    const pairs = new Uint32Array(this.#size * 2);
    for (let at = 0; at < this.#size; at++) {
      pairs[at * 2 + hiAt] = this.#words[at * WORDS] as number;
      pairs[at * 2 + atAt] = at;
    }
    new BigUint64Array(pairs.buffer).sort();
    const order = new Uint32Array(this.#size);
    for (let i = 0; i < this.#size; i++) order[i] = pairs[i * 2 + atAt] as number;
    for (let i = 1; i < this.#size; i++) {
      const hi = pairs[i * 2 + hiAt] as number;
      if (pairs[(i - 1) * 2 + hiAt] !== hi) continue;
      // Insertion by low word among the keys of this high word before it.
      const at = order[i] as number;
      const lo = this.#words[at * WORDS + 1] as number;
      let j = i;
      for (; j > 0 && pairs[(j - 1) * 2 + hiAt] === hi; j--) {
        const before = order[j - 1] as number;
        if ((this.#words[before * WORDS + 1] as number) <= lo) break;
        order[j] = before;
      }
      order[j] = at;
    }
    return order;
  }

  /**
   * The entries' digest lines in key order, as the ASCII bytes of their text: the key, then a space
   * and the content digest unless that is the key, then a line end (the lines of a set's digest,
   * digestOf in source.ts). Handed to `take` a chunk of about HASH_CHUNK_BYTES at a time, in one buffer
   * reused after `take` returns: a million lines made as strings cost more than their hash.
   */
  sortedLines(take: (chunk: Uint8Array) => void): void {
    const chunk = new Uint8Array(HASH_CHUNK_BYTES);
    let end = 0;
    const order = this.sorted();
    for (let i = 0; i < order.length; i++) {
      const at = order[i] as number;
      if (end + LONGEST_LINE > chunk.length) {
        take(chunk.subarray(0, end));
        end = 0;
      }
      const base = at * WORDS;
      end = writeHexWord(chunk, end, this.#words[base] as number);
      end = writeHexWord(chunk, end, this.#words[base + 1] as number);
      if (!this.contentIsKey(at)) {
        chunk[end++] = SPACE;
        end = writeHexWord(chunk, end, this.#words[base + 2] as number);
        end = writeHexWord(chunk, end, this.#words[base + 3] as number);
      }
      chunk[end++] = LINE_END;
    }
    if (end > 0) take(chunk.subarray(0, end));
  }

  #place(at: number) {
    const mask = this.#slots.length - 1;
    let slot = (this.#words[at * WORDS + 1] as number) & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = at + 1;
  }

  /** Room for half as many entries again (doubling would leave up to half of a large table unused). */
  #growWords() {
    const grown = new Uint32Array(Math.ceil((this.#words.length / WORDS) * 1.5) * WORDS);
    grown.set(this.#words);
    this.#words = grown;
  }

  #rehash() {
    this.#slots = new Int32Array(this.#slots.length * 2);
    for (let at = 0; at < this.#size; at++) this.#place(at);
  }
}

/** A declared recipient as the provider keeps it: its key, content digest and row, never its fields. */
export interface DeclaredKey {
  key: string;
  content: string;
  /** 1-based: the line of a CSV or JSON Lines file, the position in a JSON array or inline list. */
  row: number;
}

/** The declared recipients by key, in the list's order (the first row of each key). */
export class DeclaredSet {
  readonly #table = new KeyTable();

  get size(): number {
    return this.#table.size;
  }

  /** Adds a recipient whose key is not in the set yet. */
  add(recipient: DeclaredKey): void {
    this.#table.put(recipient.key, recipient.content, recipient.row, 0);
  }

  /**
   * Adds a recipient whose key is not in the set yet, with the number `tag()` gives kept beside it
   * (tagOf), and says undefined; else leaves the set as it is and gives the recipient it has.
   */
  addNew(recipient: DeclaredKey, tag: () => number): DeclaredKey | undefined {
    const at = this.#table.putNew(recipient.key, recipient.content, recipient.row, tag);
    return at < 0 ? undefined : this.#at(at);
  }

  /** The number kept beside the recipient at `key` (see add); 0 when the set has not that key. */
  tagOf(key: string): number {
    const at = this.#table.find(key);
    return at < 0 ? 0 : this.#table.tagOrHash(at);
  }

  has(key: string): boolean {
    return this.#table.find(key) >= 0;
  }

  get(key: string): DeclaredKey | undefined {
    const at = this.#table.find(key);
    return at < 0 ? undefined : this.#at(at);
  }

  /** Whether `recipient` is the one the set has: same key, same content, same row. */
  holds(recipient: DeclaredKey): boolean {
    const at = this.#table.find(recipient.key);
    return (
      at >= 0 && this.#table.rowOrId(at) === recipient.row && this.#table.contentIs(at, recipient.content)
    );
  }

  /** Whether the set has `key` with this content digest. */
  hasWithContent(key: string, content: string): boolean {
    const at = this.#table.find(key);
    return at >= 0 && this.#table.contentIs(at, content);
  }

  /**
   * Each recipient that `other` has not (`otherRow` undefined) or has with another content digest
   * (its row there), by its row, in this set's order (KeyTable.eachDifference).
   */
  eachDifference(other: DeclaredSet, each: (row: number, otherRow: number | undefined) => void): void {
    const table = this.#table;
    const otherTable = other.#table;
    table.eachDifference(otherTable, (at, otherAt) =>
      each(table.rowOrId(at), otherAt < 0 ? undefined : otherTable.rowOrId(otherAt)),
    );
  }

  *values(): Generator<DeclaredKey> {
    for (let at = 0; at < this.#table.size; at++) yield this.#at(at);
  }

  /**
   * values() without the recipients whose key `skip` holds (given its two words): those passed
   * over are never made into objects (a plan of a few appends in a list of a million).
   */
  *valuesExcept(skip: (hi: number, lo: number) => boolean): Generator<DeclaredKey> {
    const table = this.#table;
    for (let at = 0; at < table.size; at++)
      if (!skip(table.word(at, 0), table.word(at, 1))) yield this.#at(at);
  }

  /** values(), each with the number kept beside it (see addNew). */
  *tagged(): Generator<DeclaredKey & { tag: number }> {
    for (let at = 0; at < this.#table.size; at++) yield { ...this.#at(at), tag: this.#table.tagOrHash(at) };
  }

  /** The set's digest lines in key order, in chunks (KeyTable.sortedLines): for its digest. */
  sortedLines(take: (chunk: Uint8Array) => void): void {
    this.#table.sortedLines(take);
  }

  #at(at: number): DeclaredKey {
    return { key: this.#table.key(at), content: this.#table.content(at), row: this.#table.rowOrId(at) };
  }
}
