/**
 * The same campaign folder deployed from TypeScript (the dynamic providers), Pulumi YAML and Python
 * (both through the provider plugin), each to its own account of one sandbox, gives the same
 * orders, recipients, charges, address book and outputs: the service's state, what each stack
 * records for each campaign and what each program exports, compared account against account.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { accountState, withoutIds } from "./support/account-state";
import { campaignYaml, recipientsCsv } from "./support/campaign";
import { stateOutputs, upOnce } from "./support/one-command";
import { run } from "./support/output";
import { pluginOnPath } from "./support/plugin";
import { createTestStack, type TestStack } from "./support/pulumi";
import { linkEnvironment, pythonEnvironment } from "./support/python";

const LANGUAGES = ["typescript", "yaml", "python"] as const;
type Language = (typeof LANGUAGES)[number];

let sb: TestSandbox;
let plugin: ReturnType<typeof pluginOnPath>;
const stacks = new Map<Language, { t: TestStack; apiKey: string; templates: Map<number, string> }>();

/** The folder every language deploys: a paid campaign, a keyed list from a file, a draft. */
function writeCampaigns(dir: string, templateId: number): void {
  fs.mkdirSync(dir);
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  write("spring.yaml", campaignYaml("spring", templateId, { pay: true }));
  write(
    "loyal.csv",
    "customerId,firstName,lastName,address1,city,state,zipCode\nK-1,Kay,One,1 Elm St,Springfield,IL,62701\nK-2,Kim,Two,2 Elm St,Springfield,IL,62701\n",
  );
  write("loyal.yaml", campaignYaml("loyal", templateId, { file: "loyal.csv", keyColumn: "customerId" }));
  write("thanks.csv", recipientsCsv([3, 4, 5]));
  write("thanks.yaml", campaignYaml("thanks", templateId, { file: "thanks.csv" }));
}

/**
 * An output's keys as a Python program exports them: the SDK's snake_case names (`waitingUSPS` is
 * `waiting_usps`). Many names map to one, so the comparison goes this way, never back.
 */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key
        .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
        .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
        .toLowerCase(),
      snakeKeys(item),
    ]),
  );
}

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  plugin = pluginOnPath();
  const python = await pythonEnvironment();
  for (const language of LANGUAGES) {
    const { apiKey } = await sb.control.createAccount({ balance: 100 });
    const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
    const t = await createTestStack(`equivalence-${language}`, {
      env: language === "typescript" ? {} : { ...plugin.env, ...python.pipEnv },
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
      },
    });
    writeCampaigns(path.join(t.workDir, "campaigns"), templateId);
    if (language === "python") linkEnvironment(t.workDir, python);
    stacks.set(language, { t, apiKey, templates: new Map([[templateId, "Postcard"]]) });
  }
}, 600_000);

afterAll(async () => {
  for (const { t } of stacks.values()) await t.dispose();
  plugin?.dispose();
  await sb?.close();
});

describe("one campaign folder from TypeScript, YAML and Python", { timeout: 600_000 }, () => {
  it("gives the same orders, recipients, charges and outputs at the service and in each stack", async () => {
    // The three deployments at once, each to its own account.
    const ups = await Promise.all(
      LANGUAGES.map(async (language) => {
        const { t } = stacks.get(language) as { t: TestStack };
        return run((onOutput) => upOnce(t, { onOutput }));
      }),
    );
    for (const up of ups) expect(up.failed, up.output).toBe(false);

    const outcome = async (language: Language) => {
      const { t, apiKey, templates } = stacks.get(language) as NonNullable<ReturnType<typeof stacks.get>>;
      const state = t.readStateFile().checkpoint.checkpoint.latest.resources as any[];
      const kinds = state
        .map((r) => String(r.type).replace(/^pulumi-nodejs:dynamic\/directmail:|^directmail:index:/, ""))
        .filter((kind) => !kind.startsWith("pulumi:"))
        .sort();
      return {
        service: await accountState(sb, apiKey, templates),
        kinds,
        // What the engine recorded for each campaign: the same names in every language.
        campaignOutputs: Object.fromEntries(
          state
            .filter((r) => String(r.type).endsWith(":Campaign"))
            .map((r) => [String(r.urn).split("::").at(-1), withoutIds(r.outputs)]),
        ),
        // What the program exported (read from the state file), by the names a Python program gives it.
        stackOutputs: withoutIds(snakeKeys(stateOutputs(t).campaigns?.value)),
      };
    };
    const typescript = await outcome("typescript");
    // What is compared is there: three orders, one paid, seven recipients.
    expect(typescript.service.orders.map((order) => order.recipients.length).sort()).toEqual([2, 2, 3]);
    expect(typescript.service.charges.filter((charge) => charge.outcome === "succeeded")).toHaveLength(1);
    expect(Object.keys(typescript.stackOutputs as object).sort()).toEqual(["loyal", "spring", "thanks"]);
    expect(typescript.campaignOutputs).toMatchObject({ spring: { orderStatus: "Ready For Production" } });
    expect(await outcome("yaml")).toEqual(typescript);
    expect(await outcome("python")).toEqual(typescript);
  });
});
