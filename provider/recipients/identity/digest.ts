/**
 * The digest of a recipient set: what the state records of a list, so that any change of any
 * recipient's content shows as a change of the list.
 */
import { createHash } from "node:crypto";
import { HASH_CHUNK_BYTES } from "../../limits";

/**
 * The digest of a recipient set: its (key, content digest) pairs and the field that carries the
 * keys, so any change of any recipient's content changes it. A pair whose content digest is its key
 * (no key column) counts as the key alone, which keeps the digest of such a set what it was before
 * content digests were recorded.
 */
export function digestOf(
  entries: Iterable<readonly [key: string, content: string]>,
  identityField: string,
): string {
  const lines = [...entries].map(([key, content]) => (content === key ? key : `${key} ${content}`));
  return hashLines(lines.sort(), identityField);
}

/** A set whose digest lines (digestOf's, in key order) come in chunks: a DeclaredSet, a RecipientIndex. */
export interface DigestLines {
  sortedLines(take: (chunk: Uint8Array) => void): void;
}

/** digestOf of a set's pairs, hashed from its digest lines as they are written, without a string a pair. */
export function digestOfSet(set: DigestLines, identityField: string): string {
  const digest = createHash("sha256").update(`identity:${identityField}\n`);
  set.sortedLines((chunk) => digest.update(chunk));
  return digest.digest("hex");
}

/** The lines, hashed a chunk of about 64 KiB at a time: a million calls to update cost more than the hash. */
function hashLines(sortedLines: Iterable<string>, identityField: string): string {
  const digest = createHash("sha256").update(`identity:${identityField}\n`);
  let chunk = "";
  for (const line of sortedLines) {
    chunk += `${line}\n`;
    if (chunk.length >= HASH_CHUNK_BYTES) {
      digest.update(chunk);
      chunk = "";
    }
  }
  return digest.update(chunk).digest("hex");
}
