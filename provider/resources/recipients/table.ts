/**
 * A compact table of recipients by their 64-bit key (16 hex characters): for each, a 64-bit
 * content digest and two 32-bit numbers, in typed arrays with an open-addressing hash of positions.
 * About 40 bytes a recipient, where a Map of strings and objects takes a few hundred: the provider
 * keeps a million recipients' keys this way, never their rows. Entries keep the order they were
 * added in; none is ever removed.
 */
/** Length in hex characters of a recipient key (64 bits). */
export const KEY_HEX_LENGTH = 16;

const WORDS = 6; // keyHi, keyLo, contentHi, contentLo, a, b

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

export class KeyTable {
  #words = new Uint32Array(16 * WORDS);
  /** Position + 1 of the entry in each slot; 0 for an empty slot. Twice the capacity, a power of 2. */
  #slots = new Int32Array(32);
  #size = 0;

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
  put(key: string, content: string, a: number, b: number): number {
    const words = wordsOf(key, content);
    return this.putWords(
      words[0] as number,
      words[1] as number,
      words[2] as number,
      words[3] as number,
      a,
      b,
    );
  }

  /**
   * Adds `key` when it is not there yet, with `b()` (called only then); the position of the entry
   * that has it already, or -1 when it was added. The key is read once for both.
   */
  putNew(key: string, content: string, a: number, b: () => number): number {
    const words = wordsOf(key, content);
    const hi = words[0] as number;
    const lo = words[1] as number;
    const at = this.findWords(hi, lo);
    if (at >= 0) return at;
    this.putWords(hi, lo, words[2] as number, words[3] as number, a, b());
    return -1;
  }

  /** put, with the key and the content digest as their two 32-bit words each (high first). */
  putWords(hi: number, lo: number, contentHi: number, contentLo: number, a: number, b: number): number {
    let at = this.findWords(hi, lo);
    if (at < 0) {
      if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
      at = this.#size++;
      this.#words[at * WORDS] = hi;
      this.#words[at * WORDS + 1] = lo;
      this.#place(at);
    }
    const base = at * WORDS;
    this.#words[base + 2] = contentHi;
    this.#words[base + 3] = contentLo;
    this.#words[base + 4] = a >>> 0;
    this.#words[base + 5] = b >>> 0;
    return at;
  }

  key(at: number): string {
    return wordsHex(this.#words[at * WORDS] as number, this.#words[at * WORDS + 1] as number);
  }

  content(at: number): string {
    return wordsHex(this.#words[at * WORDS + 2] as number, this.#words[at * WORDS + 3] as number);
  }

  /**
   * Writes the entry as 24 bytes: key, content digest (8 bytes each, as their hex reads), a, b
   * (4 bytes each, big-endian): the index record (index-codec.ts).
   */
  writeRecord(at: number, buffer: Buffer, offset: number): void {
    for (let i = 0; i < WORDS; i++)
      buffer.writeUInt32BE(this.#words[at * WORDS + i] as number, offset + i * 4);
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

  a(at: number): number {
    return this.#words[at * WORDS + 4] as number;
  }

  b(at: number): number {
    return this.#words[at * WORDS + 5] as number;
  }

  /** Positions in key order (the order of the keys as hex text). */
  sorted(): Uint32Array {
    // The keys as 64-bit numbers, sorted natively, then each one's position by its hash.
    const [hiAt, loAt] = LITTLE_ENDIAN ? [1, 0] : [0, 1];
    const pairs = new Uint32Array(this.#size * 2);
    for (let at = 0; at < this.#size; at++) {
      pairs[at * 2 + hiAt] = this.#words[at * WORDS] as number;
      pairs[at * 2 + loAt] = this.#words[at * WORDS + 1] as number;
    }
    new BigUint64Array(pairs.buffer).sort();
    const order = new Uint32Array(this.#size);
    for (let i = 0; i < this.#size; i++)
      order[i] = this.findWords(pairs[i * 2 + hiAt] as number, pairs[i * 2 + loAt] as number);
    return order;
  }

  #place(at: number) {
    const mask = this.#slots.length - 1;
    let slot = (this.#words[at * WORDS + 1] as number) & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = at + 1;
  }

  #grow() {
    const words = new Uint32Array(this.#words.length * 2);
    words.set(this.#words);
    this.#words = words;
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
    return at < 0 ? 0 : this.#table.b(at);
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
    return at >= 0 && this.#table.a(at) === recipient.row && this.#table.contentIs(at, recipient.content);
  }

  /** Whether the set has `key` with this content digest. */
  hasWithContent(key: string, content: string): boolean {
    const at = this.#table.find(key);
    return at >= 0 && this.#table.contentIs(at, content);
  }

  *values(): Generator<DeclaredKey> {
    for (let at = 0; at < this.#table.size; at++) yield this.#at(at);
  }

  /** values(), each with the number kept beside it (see addNew). */
  *tagged(): Generator<DeclaredKey & { tag: number }> {
    for (let at = 0; at < this.#table.size; at++) yield { ...this.#at(at), tag: this.#table.b(at) };
  }

  /** (key, content digest) pairs in key order, for the set's digest. */
  *sortedPairs(): Generator<readonly [string, string]> {
    for (const at of this.#table.sorted()) yield [this.#table.key(at), this.#table.content(at)];
  }

  #at(at: number): DeclaredKey {
    return { key: this.#table.key(at), content: this.#table.content(at), row: this.#table.a(at) };
  }
}
