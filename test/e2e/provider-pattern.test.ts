/**
 * The provider pattern every directmail resource uses, under the real Pulumi engine: the
 * implementation is loaded from the installed package when a hook runs, configuration arrives
 * through `configure` from `directmail:*` stack config, the type token is directmail's own, and
 * the serialized provider stays small and free of secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { destroyOnce, previewOnce, refreshOnce, upOnce } from "./support/one-command";
import { createTestStack, pulumiCommand, type TestStack, writePlainConfig } from "./support/pulumi";

const SECRET = "sk_test_e2e_9f3b1c7d0a";
const TYPE = "pulumi-nodejs:dynamic/directmail:ProviderInfo";

describe("a directmail dynamic resource under the real pulumi CLI", { timeout: 180_000 }, () => {
  let t: TestStack;

  beforeAll(async () => {
    // The version the CLI reported when the Automation API found it: no `pulumi version` of its own.
    console.log(`pulumi CLI: ${(await pulumiCommand()).version}`);
    t = await createTestStack("provider-info", {
      config: {
        "directmail:baseUrl": { value: "http://127.0.0.1:9/" },
        "directmail:apiKey": { value: SECRET, secret: true },
        label: { value: "first" },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await t?.dispose();
  });

  it("up creates the resource with outputs computed from stack config read in `configure`", async () => {
    const up = await upOnce(t);
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges?.create).toBe(2); // the stack and the resource
    expect(up.outputs.baseUrl?.value).toBe("http://127.0.0.1:9");
    expect(up.outputs.baseUrlSource?.value).toBe("config");
    expect(up.outputs.apiKeyConfigured?.value).toBe(true);
    expect(up.outputs.label?.value).toBe("first");
    expect(up.outputs.providerVersion?.value).toBe(require("../../package.json").version);
  });

  it("a second preview shows no change", async () => {
    const preview = await previewOnce(t);
    const changes = preview.changeSummary;
    expect(changes.same).toBe(2);
    expect(Object.keys(changes).filter((op) => op !== "same")).toEqual([]);
  });

  it("the state holds the custom type token, no secret, and a small serialized provider", async () => {
    const { checkpoint, text } = t.readStateFile();
    expect(text).not.toContain(SECRET);
    // The engine keeps the stack configuration in the default provider's inputs, encrypted.
    const defaultProvider = checkpoint.checkpoint.latest.resources.find(
      (r: any) => r.type === "pulumi:providers:pulumi-nodejs",
    );
    expect(defaultProvider.inputs["directmail:apiKey"]).toHaveProperty("ciphertext");
    const resources: any[] = checkpoint.checkpoint.latest.resources;
    const resource = resources.find((r: any) => r.type === TYPE);
    expect(resource, `no resource of type ${TYPE} in the state`).toBeDefined();
    expect(resource.urn).toContain(`::${TYPE}::target`);
    const provider: string = resource.inputs.__provider;
    expect(provider).toContain("pulumi-directmail/dist/provider/resources/implementation.js");
    expect(Buffer.byteLength(provider)).toBeLessThan(20_000);
    // No absolute path of this machine: the same state works from any checkout.
    expect(provider).not.toContain(t.workDir);
    expect(provider).not.toContain(process.cwd());
  });

  it("a changed input updates in place, and refresh then finds no drift", async () => {
    writePlainConfig(t, { label: "second" });
    const up = await upOnce(t);
    expect(up.summary.resourceChanges?.update).toBe(1);
    expect(up.outputs.label?.value).toBe("second");
    const refresh = await refreshOnce(t);
    expect(refresh.summary.result).toBe("succeeded");
    expect(refresh.summary.resourceChanges?.update ?? 0).toBe(0);
  });

  it("destroy removes everything", async () => {
    const destroy = await destroyOnce(t);
    expect(destroy.summary.result).toBe("succeeded");
    expect(destroy.summary.resourceChanges?.delete).toBe(2);
    const { checkpoint } = t.readStateFile();
    expect(checkpoint.checkpoint.latest?.resources ?? []).toEqual([]);
  });
});
