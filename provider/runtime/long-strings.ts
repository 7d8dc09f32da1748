/**
 * Encodes the long strings of this process's answers to the engine as UTF-8 bytes in one piece.
 *
 * The Pulumi Node SDK sends a hook's outputs as a protobuf Struct written by google-protobuf 3.x,
 * whose `BinaryWriter.writeString` puts each byte of a string in a JavaScript array, one number
 * (8 bytes) per byte, grown by doubling. The recipient index of a 1,000,000-recipient list is a
 * string of 17 to 28 MB: one of 21.6 MB took about 430 MiB to send. The wire format of a string field is
 * the same as that of a bytes field holding its UTF-8 (tag, length, bytes), and `writeBytes` keeps
 * a Uint8Array as one block: the same bytes, in about a twentieth of the memory. Strings that are
 * not well-formed UTF-16 (lone surrogates) keep the library's own encoding, which differs from
 * TextEncoder's for them.
 */
import { createRequire } from "node:module";

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

interface SerializedMessageClass {
  prototype: { serializeBinary(): Uint8Array | ArrayBuffer };
}

/** The host's answers that carry a resource's outputs, and with them a list's index. */
const OUTPUT_ANSWERS = ["CreateResponse", "UpdateResponse", "ReadResponse"];
/** Smaller answers gain nothing. */
const LONG_ANSWER_BYTES = 1024 * 1024;

/**
 * Has each answer that carries outputs hand gRPC its bytes without a copy. gRPC's serializer of
 * the host (provider_grpc_pb) is `Buffer.from(answer.serializeBinary())`, and Buffer.from copies
 * a Uint8Array but wraps an ArrayBuffer: a long answer's bytes, which fill an ArrayBuffer of their
 * own, are given as that ArrayBuffer. One copy of a 28 MB index fewer while the provider answers
 * an update, about 25 MB less at its peak. A second call changes nothing.
 */
export function answerWithoutCopy(messages: Record<string, SerializedMessageClass | undefined>): boolean {
  for (const name of OUTPUT_ANSWERS) {
    const answer = messages[name]?.prototype;
    if (typeof answer?.serializeBinary !== "function") return false;
    if ((answer.serializeBinary as { [PATCHED]?: true })[PATCHED]) continue;
    const original = answer.serializeBinary;
    const serializeBinary = function (this: typeof answer) {
      const bytes = original.call(this);
      const whole =
        bytes instanceof Uint8Array &&
        bytes.byteLength >= LONG_ANSWER_BYTES &&
        bytes.byteOffset === 0 &&
        bytes.byteLength === bytes.buffer.byteLength;
      return whole ? (bytes.buffer as ArrayBuffer) : bytes;
    };
    Object.assign(serializeBinary, { [PATCHED]: true, original });
    answer.serializeBinary = serializeBinary;
  }
  return true;
}

/**
 * In the dynamic-provider host: installs the encoding on the google-protobuf that the host's
 * gRPC server writes with, and has its answers with outputs given to gRPC without a copy (both
 * resolved from the host's own entry module). Elsewhere (`inHost` false: the plugin, a test):
 * nothing. Says whether both were installed.
 */
export function encodeLongStringsInProviderHost(
  inHost: boolean,
  entry: string | undefined = require.main?.filename,
): boolean {
  if (!entry || !inHost) return false;
  try {
    const fromHost = createRequire(entry);
    const encoded = encodeLongStringsAsBytes(fromHost("google-protobuf"));
    return answerWithoutCopy(fromHost("../../proto/provider_pb")) && encoded;
  } catch {
    // Only memory is at stake: without the modules the library's own encoding stays.
    return false;
  }
}

interface MessageClass {
  prototype: { toString(): string; getUrn?(): string };
}

/**
 * In a Pulumi program: the same encoding on the SDK's google-protobuf, and short texts for the
 * engine's answers about resources.
 *
 * The SDK logs each answer of `RegisterResource` and `ReadResource` at debug level as
 * `${response}`, which google-protobuf makes of every value the answer holds, and sends that text
 * to the engine whatever its log level. An answer holds the resource's outputs, and a recipient
 * list's include its index (17 to 28 MB at 1,000,000 recipients): a no-change preview of such a stack
 * took the program to 975 MiB and the engine to 590. The text of those two answers is now their
 * type and URN; nothing else reads it.
 */
export function encodeLongStringsInProgram(sdkEntry: string = require.resolve("@pulumi/pulumi")): boolean {
  try {
    const fromSdk = createRequire(sdkEntry);
    const encoded = encodeLongStringsAsBytes(fromSdk("google-protobuf"));
    const messages = fromSdk("./proto/resource_pb") as Record<string, MessageClass | undefined>;
    let shortened = 0;
    for (const name of ["RegisterResourceResponse", "ReadResourceResponse"]) {
      const message = messages[name]?.prototype;
      if (!message || typeof message.getUrn !== "function") continue;
      message.toString = function (this: { getUrn(): string }) {
        return `${name}(${this.getUrn()})`;
      };
      shortened += 1;
    }
    return encoded && shortened === 2;
  } catch {
    // Only memory is at stake: without the SDK's modules the library's own texts stay.
    return false;
  }
}
