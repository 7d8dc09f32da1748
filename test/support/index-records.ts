/**
 * An index as versions 2 and 3 wrote it, for the tests that read such a state: each entry of
 * `index` in key order as a 24-byte record (key, content digest, id, listed hash), gzipped, under
 * `version`. `listed` gives every record that listed hash instead of its own.
 */
import { gzipSync } from "node:zlib";
import type { RecipientIndex } from "../../provider/recipients/index";

export function indexRecords(index: RecipientIndex, version: "v2" | "v3", listed?: number): string {
  const entries = [...index.sorted()];
  const buffer = Buffer.alloc(entries.length * 24);
  entries.forEach(([key, entry], i) => {
    buffer.write(key, i * 24, 8, "hex");
    buffer.write(entry.content, i * 24 + 8, 8, "hex");
    buffer.writeUInt32BE(entry.id, i * 24 + 16);
    buffer.writeUInt32BE(listed ?? entry.listed, i * 24 + 20);
  });
  return `${version}.${gzipSync(buffer).toString("base64")}`;
}
