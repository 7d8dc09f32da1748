/**
 * A CampaignFolder whose outputs the program does not export (the project's own program, which
 * does, is tested by project-paths, examples, retire and state-compat): the folder is loaded after
 * the program returned, and still every campaign is declared, or the problems are reported once,
 * as the message alone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignYaml } from "./support/campaign";
import { createTestStack, type TestStack } from "./support/pulumi";

let t: TestStack;
const file = (name: string) => path.join(t.workDir, "camps", name);

beforeAll(async () => {
  // Nothing listens there: a preview sends nothing to the service.
  t = await createTestStack("campaign-folder", {
    config: { "directmail:baseUrl": { value: "http://127.0.0.1:9" } },
  });
  fs.mkdirSync(path.join(t.workDir, "camps"));
}, 60_000);
afterAll(async () => {
  await t?.dispose();
});

describe("a CampaignFolder whose outputs nobody waits for", { timeout: 120_000 }, () => {
  it("reports every problem once, as the message alone", async () => {
    fs.writeFileSync(file("bad.yaml"), "kind: Nope\n");
    fs.writeFileSync(file("good.yaml"), campaignYaml("good", 10001));
    let output = "";
    await expect(t.stack.preview({ onOutput: (text) => (output += text) })).rejects.toThrow();
    const diagnostics = output.slice(output.indexOf("Diagnostics:"), output.indexOf("\nResources:"));
    expect(diagnostics.trim().split("\n")).toEqual([
      "Diagnostics:",
      "  pulumi:pulumi:Stack (campaign-folder-e2e):",
      "    error: the campaign files have problems; nothing was changed:",
      "    camps/bad.yaml:1:1: the campaign: apiVersion is required (write apiVersion: directmail/v1)",
      "    camps/bad.yaml:1:1: the campaign: metadata is required (a section with name, description)",
      "    camps/bad.yaml:1:1: the campaign: spec is required (a section with order, recipients, checkout, addressBook, conversions, retain)",
      '    camps/bad.yaml:1:7: kind: write one of Campaign, Conversions, Automation; found "Nope"',
    ]);
  });

  it("declares every campaign of the folder", async () => {
    fs.rmSync(file("bad.yaml"));
    fs.writeFileSync(file("other.yaml"), campaignYaml("other", 10001, { pay: true }));
    const planned: string[] = [];
    await t.stack.preview({
      onEvent: (event: EngineEvent) => {
        const step = event.resourcePreEvent?.metadata;
        if (step && !step.type.startsWith("pulumi:providers:"))
          planned.push(`${step.op} ${step.type} ${step.urn.split("::").pop()}`);
      },
    });
    expect(planned.sort()).toEqual(
      [
        "create pulumi:pulumi:Stack campaign-folder-e2e",
        "create directmail:index:CampaignFolder campaigns",
        "create directmail:index:Campaign good",
        "create pulumi-nodejs:dynamic/directmail:Order good",
        "create pulumi-nodejs:dynamic/directmail:OrderRecipients good-recipients",
        "create directmail:index:Campaign other",
        "create pulumi-nodejs:dynamic/directmail:Order other",
        "create pulumi-nodejs:dynamic/directmail:OrderRecipients other-recipients",
        "create pulumi-nodejs:dynamic/directmail:Checkout other-checkout",
      ].sort(),
    );
  });
});
