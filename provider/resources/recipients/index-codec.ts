/**
 * The compact index of an order's recipients kept in the Pulumi state. For each declared key
 * (64 bits): the digest of the content it was sent with (64 bits), the service's recipient id,
 * and a 32-bit hash of the recipient as the service listed it back (listedHash in wire.ts), so
 * that a refresh notices a recipient changed elsewhere. 24 bytes a recipient before compression;
 * the rows themselves never enter the state.
 *
 * Version 1 (before content digests were recorded) held key and id only. It still decodes:
 * without a key column the key is the content digest, so nothing is lost; under a key column the
 * content is UNKNOWN_CONTENT, which the next update settles by comparing each such recipient, as
 * the order lists it, with its declared row (see OrderRecipients' reconcile).
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { KEY_HEX_LENGTH } from "./source";

const VERSION = "v2";
const ENTRY_BYTES = 24;
const V1_ENTRY_BYTES = 12;

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

export type RecipientIndex = Map<string, IndexEntry>;

const UNDELIVERABLE = 0x8000_0000;
/** The id an index value names at the service (0: none). */
export const idOf = (value: number) => value & ~UNDELIVERABLE & 0xffff_ffff;
export const isAccepted = (value: number) => value > 0 && (value & UNDELIVERABLE) === 0;
export const markedUndeliverable = (recipientId: number) => (recipientId | UNDELIVERABLE) >>> 0;

export function encodeIndex(index: RecipientIndex): string {
  const keys = [...index.keys()].sort();
  const buffer = Buffer.alloc(keys.length * ENTRY_BYTES);
  keys.forEach((key, i) => {
    const entry = index.get(key) as IndexEntry;
    const offset = i * ENTRY_BYTES;
    buffer.write(key, offset, 8, "hex");
    buffer.write(entry.content, offset + 8, 8, "hex");
    buffer.writeUInt32BE(entry.id, offset + 16);
    buffer.writeUInt32BE(entry.listed, offset + 20);
  });
  return `${VERSION}.${gzipSync(buffer, { level: 9 }).toString("base64")}`;
}

/** `keyed`: the set has a key column (decides what a version 1 record knows of the content). */
export function decodeIndex(encoded: string, keyed: boolean): RecipientIndex {
  const [version, payload] = encoded.split(".", 2);
  const entryBytes = version === VERSION ? ENTRY_BYTES : version === "v1" ? V1_ENTRY_BYTES : 0;
  if (entryBytes === 0 || payload === undefined) {
    throw new Error(`unreadable recipient index (version "${version}"); refresh the stack to rebuild it`);
  }
  const buffer = gunzipSync(Buffer.from(payload, "base64"));
  if (buffer.length % entryBytes !== 0)
    throw new Error("corrupt recipient index; refresh the stack to rebuild it");
  const index: RecipientIndex = new Map();
  for (let offset = 0; offset < buffer.length; offset += entryBytes) {
    const key = buffer.toString("hex", offset, offset + 8);
    if (entryBytes === V1_ENTRY_BYTES) {
      const content = keyed ? UNKNOWN_CONTENT : key;
      index.set(key, { id: buffer.readUInt32BE(offset + 8), content, listed: 0 });
    } else {
      index.set(key, {
        content: buffer.toString("hex", offset + 8, offset + 16),
        id: buffer.readUInt32BE(offset + 16),
        listed: buffer.readUInt32BE(offset + 20),
      });
    }
  }
  return index;
}
