/**
 * Encodes the long strings of this process's answers to the engine as UTF-8 bytes in one piece.
 *
 * The Pulumi Node SDK sends a hook's outputs as a protobuf Struct written by google-protobuf 3.x,
 * whose `BinaryWriter.writeString` puts each byte of a string in a JavaScript array, one number
 * (8 bytes) per byte, grown by doubling. The recipient index of a 1,000,000-recipient list is a
 * 21.6 MB string, so that answer alone took about 430 MiB. The wire format of a string field is
 * the same as that of a bytes field holding its UTF-8 (tag, length, bytes), and `writeBytes` keeps
 * a Uint8Array as one block: the same bytes, in about a twentieth of the memory. Strings that are
 * not well-formed UTF-16 (lone surrogates) keep the library's own encoding, which differs from
 * TextEncoder's for them.
 */
import { createRequire } from "node:module";
import { providerHostEngineAddress } from "./engine-watch";

/** Shorter strings gain nothing from the detour. */
export const LONG_STRING_CHARS = 16 * 1024;

interface BinaryWriterClass {
  prototype: {
    writeString(field: number, value: unknown): void;
    writeBytes(field: number, value: Uint8Array): void;
  };
}

const PATCHED = Symbol.for("pulumi-directmail.longStrings");
const utf8 = new TextEncoder();
// String.prototype.isWellFormed (Node 20 and later) is in ES2024's lib, past this project's target.
const wellFormed = (value: string) => (value as string & { isWellFormed(): boolean }).isWellFormed();

/** Installs the encoding on one google-protobuf module's writer; a second call changes nothing. */
export function encodeLongStringsAsBytes(jspb: { BinaryWriter?: BinaryWriterClass }): boolean {
  const writer = jspb.BinaryWriter?.prototype;
  if (typeof writer?.writeString !== "function" || typeof writer.writeBytes !== "function") return false;
  if ((writer.writeString as { [PATCHED]?: true })[PATCHED]) return true;
  const original = writer.writeString;
  const writeString = function (this: typeof writer, field: number, value: unknown) {
    if (typeof value === "string" && value.length >= LONG_STRING_CHARS && wellFormed(value)) {
      return this.writeBytes(field, utf8.encode(value));
    }
    return original.call(this, field, value);
  };
  Object.assign(writeString, { [PATCHED]: true, original });
  writer.writeString = writeString;
  return true;
}

/**
 * In the dynamic-provider host: installs the encoding on the google-protobuf that the host's
 * gRPC server writes with (resolved from the host's own entry module). Elsewhere: nothing. Says
 * whether it was installed.
 */
export function encodeLongStringsInProviderHost(
  argv: readonly string[] = process.argv,
  entry: string | undefined = require.main?.filename,
): boolean {
  if (!entry || !providerHostEngineAddress(argv)) return false;
  try {
    return encodeLongStringsAsBytes(createRequire(entry)("google-protobuf"));
  } catch {
    // Only memory is at stake: without the module the library's own encoding stays.
    return false;
  }
}
