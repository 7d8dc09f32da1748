/**
 * The deployed state the CLI reads (cli/stack/state.ts): a recipient index is a secret output
 * (withSecretIndex), which `pulumi stack export --show-secrets` prints as the secret's mark and its
 * value as JSON text. The reader reveals it; what stays encrypted is not known. The end-to-end tests
 * of the review's drop prediction and of `scans import` by key read a real stack through it.
 */
import { describe, expect, it } from "vitest";
import { deployedResources, revealed } from "../../../cli/stack/state";
import { withSecretIndex } from "../../../provider/recipients/index";

const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const shown = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) });

describe("deployedResources", () => {
  it("reveals a secret output shown by the export, and leaves out one that is still encrypted", async () => {
    const urn = (type: string, name: string) => `urn:pulumi:dev::p::${type}::${name}`;
    const exported = {
      version: 3,
      deployment: {
        resources: [
          {
            urn: urn("directmail:index:Campaign", "spring"),
            type: "directmail:index:Campaign",
          },
          {
            urn: urn(
              "directmail:index:Campaign$pulumi-nodejs:dynamic/directmail:OrderRecipients",
              "spring-recipients",
            ),
            type: "pulumi-nodejs:dynamic/directmail:OrderRecipients",
            parent: urn("directmail:index:Campaign", "spring"),
            outputs: { orderId: 7, index: shown("v3.abc"), keyColumn: "customerId", digest: "not read" },
          },
          {
            urn: urn(
              "directmail:index:Campaign$pulumi-nodejs:dynamic/directmail:OrderRecipients",
              "other-recipients",
            ),
            type: "pulumi-nodejs:dynamic/directmail:OrderRecipients",
            parent: urn("directmail:index:Campaign", "other"),
            outputs: { orderId: 8, index: { [SIG_KEY]: SECRET_SIG, ciphertext: "AAAA" } },
          },
        ],
      },
    };
    const exports: string[] = [];
    const pulumi = {
      exportStack: async (stack: string, options?: { showSecrets?: boolean }) => {
        exports.push(`${stack}${options?.showSecrets ? " with secrets" : ""}`);
        return exported;
      },
    };
    const resources = await deployedResources({ pulumi, stackName: "dev" }, { withSecrets: true });
    expect(exports).toEqual(["dev with secrets"]);
    expect(resources.map((r) => [r.name, r.campaign, r.outputs])).toEqual([
      ["spring", "spring", {}],
      ["spring-recipients", "spring", { orderId: 7, index: "v3.abc", keyColumn: "customerId" }],
      ["other-recipients", "other", { orderId: 8 }],
    ]);
  });

  it("asks for the state as stored, secrets encrypted, unless a secret output is needed", async () => {
    const exports: string[] = [];
    const pulumi = {
      exportStack: async (stack: string, options?: { showSecrets?: boolean }) => {
        exports.push(`${stack}${options?.showSecrets ? " with secrets" : ""}`);
        return { version: 3, deployment: { resources: [] } };
      },
    };
    expect(await deployedResources({ pulumi, stackName: "prod" })).toEqual([]);
    expect(exports).toEqual(["prod"]);
  });
});

describe("revealed", () => {
  it("gives plain values as they are, a shown secret's value, and nothing for what it cannot read", () => {
    expect(revealed("v3.abc")).toBe("v3.abc");
    expect(revealed({ a: 1 })).toEqual({ a: 1 });
    expect(revealed(null)).toBeNull();
    expect(revealed(shown({ reason: 3 }))).toEqual({ reason: 3 });
    expect(revealed({ [SIG_KEY]: SECRET_SIG, plaintext: "{not json" })).toBeUndefined();
    expect(revealed({ [SIG_KEY]: SECRET_SIG, ciphertext: "AAAA" })).toBeUndefined();
    // Another mark is an ordinary object (an asset or archive is not an output the CLI reads).
    const other = { [SIG_KEY]: "c44067f5952c0a294b673a41bacd8c17", path: "x" };
    expect(revealed(other)).toBe(other);
  });
});

describe("withSecretIndex", () => {
  it("adds index to the secret outputs a caller gave, keeping the caller's other options", () => {
    expect(withSecretIndex(undefined)).toEqual({ additionalSecretOutputs: ["index"] });
    expect(withSecretIndex({ protect: true, additionalSecretOutputs: ["digest"] })).toEqual({
      protect: true,
      additionalSecretOutputs: ["digest", "index"],
    });
  });
});
