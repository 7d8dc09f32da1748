/**
 * The runtime's patches reach inside other libraries (docs/architecture.md, "The runtime's
 * patches"). Each test here fails, naming what changed, when one of them no longer has the shape a
 * patch reaches for: a new version is then taken on purpose, with its patch looked at again.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import { createRequire } from "node:module";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { patchHostRequests } from "../../../provider/runtime/host-requests";
import { answerWithoutCopy, encodeLongStringsAsBytes } from "../../../provider/runtime/long-strings";
import { V8_FLAGS } from "../../../provider/runtime/memory";
import { UNDICI_MODULES, undiciFromItsModules } from "../../../provider/runtime/undici";

const repoRoot = path.resolve(__dirname, "../../..");
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const versionOf = (from: NodeRequire, name: string) =>
  JSON.parse(fs.readFileSync(from.resolve(`${name}/package.json`), "utf8")).version as string;

describe("the pinned versions", () => {
  it("are exact, and the ones installed: zod, undici and the Pulumi SDK the tests run", () => {
    expect(manifest.dependencies.zod).toBe(versionOf(require, "zod"));
    expect(manifest.dependencies.undici).toBe(versionOf(require, "undici"));
    expect(manifest.devDependencies["@pulumi/pulumi"]).toBe(versionOf(require, "@pulumi/pulumi"));
  });
});

describe("undici, loaded from two of its own modules (runtime/undici.ts)", () => {
  it("has `request` and `Agent` where the loader looks, with the arity it calls them with", () => {
    const request = require(UNDICI_MODULES.request);
    const Agent = require(UNDICI_MODULES.Agent);
    expect(typeof request).toBe("function");
    expect(request.length).toBe(2); // (options, callback), called with `this` the dispatcher
    expect(typeof Agent).toBe("function");
    // `request` is called with the Agent as `this`: it sends through the dispatcher's `dispatch`.
    expect(typeof Agent.prototype.dispatch).toBe("function");
    expect(typeof Agent.prototype.close).toBe("function");
    expect(undiciFromItsModules()).toBeDefined();
  });

  it("sends a request through the parts the loader gives", async () => {
    const server = http.createServer((_, res) => res.end("pong"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const parts = undiciFromItsModules();
    if (!parts) throw new Error("undici's modules are not where runtime/undici.ts looks");
    const agent = new parts.Agent();
    try {
      const answer = await parts.request(agent, {
        origin: `http://127.0.0.1:${port}`,
        path: "/",
        method: "GET",
      });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.text()).toBe("pong");
    } finally {
      await agent.close();
      server.close();
    }
  });
});

describe("google-protobuf and the Pulumi SDK's messages (runtime/long-strings.ts)", () => {
  const hostEntry = path.join(
    path.dirname(require.resolve("@pulumi/pulumi/package.json")),
    "cmd/dynamic-provider/index.js",
  );
  const fromHost = createRequire(hostEntry);
  const fromSdk = createRequire(require.resolve("@pulumi/pulumi"));

  it("has the writer methods the encoding replaces, with their arity", () => {
    for (const jspb of [fromHost("google-protobuf"), fromSdk("google-protobuf")]) {
      const writer = jspb.BinaryWriter.prototype;
      const original = writer.writeString.original ?? writer.writeString;
      expect(original.length).toBe(2); // (field, value)
      expect(writer.writeBytes.length).toBe(2);
      expect(encodeLongStringsAsBytes(jspb)).toBe(true);
    }
    expect(versionOf(fromSdk, "google-protobuf")).toMatch(/^3\./);
  });

  it("has the host's answers with outputs, and the program's answers about resources, where the patches look", () => {
    const provider = fromHost("../../proto/provider_pb");
    for (const name of ["CreateResponse", "UpdateResponse", "ReadResponse"])
      expect(typeof provider[name]?.prototype.serializeBinary, name).toBe("function");
    expect(answerWithoutCopy(provider)).toBe(true);
    const resource = fromSdk("./proto/resource_pb");
    for (const name of ["RegisterResourceResponse", "ReadResourceResponse"])
      expect(typeof resource[name]?.prototype.getUrn, name).toBe("function");
  });
});

describe("the dynamic-provider host's requests and diff answer (runtime/host-requests.ts)", () => {
  const hostEntry = path.join(
    path.dirname(require.resolve("@pulumi/pulumi/package.json")),
    "cmd/dynamic-provider/index.js",
  );
  const host = fs.readFileSync(hostEntry, "utf8");
  const method = (name: string) => {
    const start = host.indexOf(`    async ${name}(call, callback) {`);
    expect(start, `the host's ${name}`).toBeGreaterThan(0);
    return host.slice(start, host.indexOf("\n    }\n", start));
  };

  it("has the messages and methods the patch reaches for", () => {
    expect(patchHostRequests(createRequire(hostEntry)("../../proto/provider_pb"))).toBe(true);
  });

  it("hands each hook the values of the request's Struct it patches, and sets a diff's answer right after reading `changes`", () => {
    expect(method("diff")).toContain("const olds = req.getOlds().toJavaScript();");
    expect(method("diff")).toContain("provider.diff(req.getId(), olds, news)");
    // No `await` between the read of `changes` and `setChanges`: the hand-over cannot be raced.
    expect(method("diff")).toMatch(
      /if \(result\.changes === true\) \{\s+resp\.setChanges\(provproto\.DiffResponse\.DiffChanges\.DIFF_SOME\);/,
    );
    expect(method("create")).toContain("const props = req.getProperties().toJavaScript();");
    expect(method("create")).toContain("provider.create(props)");
    expect(method("update")).toContain("const news = req.getNews().toJavaScript();");
    expect(method("update")).toContain("provider.update(req.getId(), olds, news)");
    expect(method("delete")).toContain("const props = req.getProperties().toJavaScript();");
    expect(method("delete")).toContain("provider.delete(req.getId(), props)");
  });
});

describe("zod's definitions (api/schemas/exact-check.ts, api/openapi.ts read `_zod.def`)", () => {
  it("have the fields read: type, checks and their kind and bounds, inner types, shapes", () => {
    const def = (schema: z.ZodType) => schema._zod.def as unknown as Record<string, unknown>;
    const checkDef = (schema: z.ZodType) =>
      ((def(schema).checks as { _zod: { def: Record<string, unknown> } }[])[0] as { _zod: { def: unknown } })
        ._zod.def;
    expect(def(z.string())).toMatchObject({ type: "string" });
    expect(def(z.iso.datetime())).toMatchObject({ type: "string", format: "datetime" });
    expect(def(z.int())).toMatchObject({ type: "number", format: "safeint" });
    expect(checkDef(z.number().min(1))).toMatchObject({ check: "greater_than", value: 1, inclusive: true });
    expect(checkDef(z.array(z.string()).min(2))).toMatchObject({ check: "min_length", minimum: 2 });
    expect(checkDef(z.array(z.string()).max(3))).toMatchObject({ check: "max_length", maximum: 3 });
    expect(def(z.string().nullable())).toMatchObject({ type: "nullable", innerType: expect.anything() });
    expect(def(z.array(z.string()))).toMatchObject({ type: "array", element: expect.anything() });
    expect(def(z.object({ a: z.string() }))).toMatchObject({
      type: "object",
      shape: { a: expect.anything() },
    });
    expect(def(z.coerce.number()).coerce).toBe(true);
  });
});

describe("V8's flags (runtime/memory.ts)", () => {
  it("are all known to this Node's V8: setFlagsFromString would ignore one that is not, silently", () => {
    const known = execFileSync(process.execPath, ["--v8-options"], {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    for (const flag of Object.values(V8_FLAGS)) {
      const name = flag.replace(/^--(no-)?/, "").replace(/=.*$/, "");
      expect(known, flag).toContain(`--${name} `);
    }
  });
});
