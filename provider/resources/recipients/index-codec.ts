/**
 * The compact index of an order's recipients kept in the Pulumi state: for each declared key
 * (64 bits) the service's recipient id (0 for a recipient the service dropped). 12 bytes a
 * recipient before compression, so 100,000 recipients stay around a megabyte, and the rows
 * themselves never enter the state.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { KEY_HEX_LENGTH } from "./source";

const VERSION = "v1";
const ENTRY_BYTES = 12;

export type RecipientIndex = Map<string, number>;

export function encodeIndex(index: RecipientIndex): string {
  const keys = [...index.keys()].sort();
  const buffer = Buffer.alloc(keys.length * ENTRY_BYTES);
  keys.forEach((key, i) => {
    buffer.write(key, i * ENTRY_BYTES, 8, "hex");
    buffer.writeUInt32BE(index.get(key) ?? 0, i * ENTRY_BYTES + 8);
  });
  return `${VERSION}.${gzipSync(buffer, { level: 9 }).toString("base64")}`;
}

export function decodeIndex(encoded: string): RecipientIndex {
  const [version, payload] = encoded.split(".", 2);
  if (version !== VERSION || payload === undefined) {
    throw new Error(`unreadable recipient index (version "${version}"); refresh the stack to rebuild it`);
  }
  const buffer = gunzipSync(Buffer.from(payload, "base64"));
  if (buffer.length % ENTRY_BYTES !== 0)
    throw new Error("corrupt recipient index; refresh the stack to rebuild it");
  const index: RecipientIndex = new Map();
  for (let offset = 0; offset < buffer.length; offset += ENTRY_BYTES) {
    const key = buffer.toString("hex", offset, offset + 8);
    if (key.length !== KEY_HEX_LENGTH) throw new Error("corrupt recipient index key");
    index.set(key, buffer.readUInt32BE(offset + 8));
  }
  return index;
}
