import { createRequire } from "node:module";
import * as path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { providerHostEngineAddress } from "../../../provider/resources/engine-watch";
import {
  answerWithoutCopy,
  encodeLongStringsAsBytes,
  encodeLongStringsInProgram,
  encodeLongStringsInProviderHost,
  LONG_STRING_CHARS,
} from "../../../provider/runtime/long-strings";

// The google-protobuf that Pulumi's dynamic-provider host writes its answers with.
const hostEntry = path.join(
  path.dirname(require.resolve("@pulumi/pulumi/package.json")),
  "cmd/dynamic-provider/index.js",
);
const fromHost = createRequire(hostEntry);
const jspb = fromHost("google-protobuf");
const { Struct } = fromHost("google-protobuf/google/protobuf/struct_pb.js");
const writer = jspb.BinaryWriter.prototype;

/** `serialize()` with the library's own string encoding, whatever is installed. */
function withLibraryEncoding<T>(serialize: () => T): T {
  const installed = writer.writeString;
  writer.writeString = installed.original ?? installed;
  try {
    return serialize();
  } finally {
    writer.writeString = installed;
  }
}

const long = (unit: string) => unit.repeat(Math.ceil((LONG_STRING_CHARS + 5) / unit.length));
// Outputs as the SDK sends them: nested, with long values of every UTF-8 width, and short ones.
const outputs = {
  index: `v2.${long("QUJD")}`,
  names: [long("é"), long("語"), long("😀"), "short", ""],
  nested: { again: long("a\u0000b"), n: 3, flag: true, none: null },
  // A lone surrogate: not UTF-8 as it stands, so the library's own encoding is kept.
  broken: `${long("x")}\ud800`,
};

describe("encodeLongStringsAsBytes", () => {
  encodeLongStringsAsBytes(jspb);

  it("writes the same bytes as the library, through writeBytes for long strings", () => {
    const calls: number[] = [];
    const writeBytes = writer.writeBytes;
    writer.writeBytes = function (this: unknown, field: number, value: Uint8Array) {
      calls.push(value.length);
      return writeBytes.call(this, field, value);
    };
    let patched: Uint8Array;
    try {
      patched = Struct.fromJavaScript(outputs).serializeBinary();
    } finally {
      writer.writeBytes = writeBytes;
    }
    const library = withLibraryEncoding(() => Struct.fromJavaScript(outputs).serializeBinary());
    expect(Buffer.from(patched).equals(Buffer.from(library))).toBe(true);
    // The index, the three long names and `again`; not the short ones, not the broken one.
    expect(calls).toHaveLength(5);
    expect(Struct.deserializeBinary(patched).toJavaScript()).toEqual(outputs);
  });

  it("encodes a 21 MB index in a small part of the memory the library takes", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heapGrowth = (serialize: () => Uint8Array) => {
      const index = "A".repeat(21_000_000);
      gc();
      const before = process.memoryUsage().heapUsed;
      const bytes = serialize.call(Struct.fromJavaScript({ index }));
      const grown = process.memoryUsage().heapUsed - before;
      expect(bytes.length).toBeGreaterThan(21_000_000);
      return grown;
    };
    const mine = heapGrowth(function (this: any) {
      return this.serializeBinary();
    });
    const library = heapGrowth(function (this: any) {
      return withLibraryEncoding(() => this.serializeBinary());
    });
    // One JavaScript number per byte in the library (about 400 MiB); a Uint8Array here.
    expect(library).toBeGreaterThan(150 * 1024 * 1024);
    expect(mine).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it("is installed once, and not on a module without the writer it expects", () => {
    const installed = writer.writeString;
    expect(encodeLongStringsAsBytes(jspb)).toBe(true);
    expect(writer.writeString).toBe(installed);
    expect(encodeLongStringsAsBytes({})).toBe(false);
    expect(encodeLongStringsAsBytes({ BinaryWriter: { prototype: {} } as never })).toBe(false);
  });
});

describe("answerWithoutCopy", () => {
  const messages = fromHost("../../proto/provider_pb");
  const { ResourceProviderService } = fromHost("../../proto/provider_grpc_pb");
  // gRPC's serializer of the host's answers to create, update and read.
  const serializers = {
    CreateResponse: ResourceProviderService.create.responseSerialize,
    UpdateResponse: ResourceProviderService.update.responseSerialize,
    ReadResponse: ResourceProviderService.read.responseSerialize,
  } as Record<string, (answer: unknown) => Buffer>;
  const answerOf = (name: string, index: string) => {
    const answer = new messages[name]();
    answer.setProperties(Struct.fromJavaScript({ ...outputs, index }));
    return answer;
  };
  const big = `v4.${"QUJD".repeat(300_000)}`; // 1.2 MB

  it("hands gRPC a long answer's own bytes, the same bytes, and a short one's as before", () => {
    const before = Object.fromEntries(
      Object.entries(serializers).map(([name, serialize]) => [name, serialize(answerOf(name, big))]),
    );
    expect(answerWithoutCopy(messages)).toBe(true);
    for (const [name, serialize] of Object.entries(serializers)) {
      const prototype = messages[name].prototype;
      const installed = prototype.serializeBinary;
      let written: unknown;
      prototype.serializeBinary = function (this: unknown) {
        written = installed.call(this);
        return written;
      };
      try {
        const sent = serialize(answerOf(name, big));
        expect(written, name).toBeInstanceOf(ArrayBuffer);
        expect(sent.buffer, name).toBe(written); // wrapped, not copied
        expect(Buffer.compare(sent, before[name] as Buffer), name).toBe(0);
        const short = serialize(answerOf(name, "v4.QUJD"));
        expect(written, name).toBeInstanceOf(Uint8Array);
        expect(short.buffer, name).not.toBe((written as Uint8Array).buffer);
      } finally {
        prototype.serializeBinary = installed;
      }
    }
  });

  it("is installed once, and not on a module without the answers it expects", () => {
    const installed = messages.UpdateResponse.prototype.serializeBinary;
    expect(answerWithoutCopy(messages)).toBe(true);
    expect(messages.UpdateResponse.prototype.serializeBinary).toBe(installed);
    expect(answerWithoutCopy({})).toBe(false);
  });
});

describe("encodeLongStringsInProviderHost", () => {
  // As the dynamic provider's entry tells it (resources/implementation.ts).
  const inHost = (argv: string[]) => providerHostEngineAddress(argv) !== undefined;
  it("installs on the host's google-protobuf in Pulumi's dynamic-provider process only", () => {
    expect(encodeLongStringsInProviderHost(inHost(["node", "/p/vitest.mjs", "127.0.0.1:1"]), hostEntry)).toBe(
      false,
    );
    expect(encodeLongStringsInProviderHost(inHost(["node", hostEntry, "127.0.0.1:1"]), undefined)).toBe(
      false,
    );
    expect(encodeLongStringsInProviderHost(inHost(["node", hostEntry, "127.0.0.1:1"]), hostEntry)).toBe(true);
    expect(writer.writeString.original).toBeTypeOf("function");
    expect(
      encodeLongStringsInProviderHost(inHost(["node", hostEntry, "127.0.0.1:1"]), "/nowhere/index.js"),
    ).toBe(false);
  });
});

describe("encodeLongStringsInProgram", () => {
  const fromSdk = createRequire(require.resolve("@pulumi/pulumi"));
  const { RegisterResourceResponse, ReadResourceResponse } = fromSdk("./proto/resource_pb");
  const urn = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/directmail:OrderRecipients::big";

  it("gives the engine's answers about resources their type and URN as text, not their outputs", () => {
    const answer = new RegisterResourceResponse();
    answer.setUrn(urn);
    answer.setObject(Struct.fromJavaScript(outputs));
    expect(`${answer}`.length).toBeGreaterThan(LONG_STRING_CHARS); // the library's text: every value
    expect(encodeLongStringsInProgram()).toBe(true);
    // How the SDK logs each answer at debug level, a text it sends to the engine.
    expect(`resp: ${answer}`).toBe(`resp: RegisterResourceResponse(${urn})`);
    const read = new ReadResourceResponse();
    read.setUrn(urn);
    expect(`${read}`).toBe(`ReadResourceResponse(${urn})`);
    // The answer itself is untouched.
    expect(answer.getObject().toJavaScript()).toEqual(outputs);
  });

  it("installs the long strings' encoding on the SDK's google-protobuf", () => {
    expect(encodeLongStringsInProgram()).toBe(true);
    const sdkWriter = fromSdk("google-protobuf").BinaryWriter.prototype;
    expect(sdkWriter.writeString.original).toBeTypeOf("function");
  });

  it("changes nothing without the SDK", () => {
    expect(encodeLongStringsInProgram("/nowhere/index.js")).toBe(false);
  });
});
