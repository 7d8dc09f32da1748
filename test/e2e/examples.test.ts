/**
 * The examples under the real pulumi CLI, through the project's own program (Pulumi.yaml,
 * program/index.ts) for the YAML ones: up, a no-change preview, an edit of a campaign file, destroy
 * of a draft, the draft-then-pay flow; and the TypeScript example. Each command is one CLI start
 * (support/one-command.ts): no output of these examples is secret, so the state file shows them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { seedDemo } from "../../sandbox";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { destroyOnce, previewOnce, upOnce } from "./support/one-command";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";

const ROOT_PROJECT = ["Pulumi.yaml", "program", "examples"];
const SETTLED = ["Paid", "Ready For Production"];

let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
const stacks: TestStack[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  // The examples name the demo account's templates (10001, 10002) of a fresh sandbox.
  ({ apiKey } = seedDemo(sb.sandbox));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
});
afterAll(async () => {
  for (const t of stacks) await t.dispose();
  await client?.close();
  await sb?.close();
});

async function rootStack(campaignsDir: string): Promise<TestStack> {
  const t = await createTestStack("root", {
    from: ROOT_PROJECT,
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      campaignsDir: { value: campaignsDir },
    },
  });
  stacks.push(t);
  return t;
}

function nonSame(summary: Record<string, number> | undefined): string[] {
  return Object.keys(summary ?? {}).filter((op) => op !== "same");
}

describe("the examples under the real pulumi CLI", { timeout: 300_000 }, () => {
  it("examples/campaigns: up pays spring-sale and keeps welcome-letters a draft; preview then shows no change; an edited file updates its recipients; destroy deletes the draft cleanly", async () => {
    const t = await rootStack("examples/campaigns");
    const up = await upOnce(t);
    const spring = up.outputs["spring-sale"]?.value;
    const welcome = up.outputs["welcome-letters"]?.value;
    expect(spring).toMatchObject({ accepted: 23, dropped: 1 });
    expect(SETTLED).toContain(spring.checkoutStatus);
    expect(paidCheckouts(await sb.control.ledger(apiKey), spring.orderId)).toBe(1);
    expect(welcome).toMatchObject({ orderStatus: "Draft", accepted: 2, dropped: 0 });
    expect(welcome.checkoutStatus).toBeUndefined();

    const preview = await previewOnce(t);
    expect(nonSame(preview.changeSummary)).toEqual([]);

    const file = path.join(t.workDir, "examples/campaigns/welcome-letters.yaml");
    const added =
      '      - firstName: Alan\n        lastName: Kay\n        address1: 8 Smalltalk Row\n        city: Portland\n        state: OR\n        zipCode: "97205"\n';
    fs.writeFileSync(
      file,
      fs.readFileSync(file, "utf8").replace("  addressBook:\n", `${added}  addressBook:\n`),
    );
    const edited = await upOnce(t);
    expect(edited.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(edited.outputs["welcome-letters"]?.value).toMatchObject({ accepted: 3 });
    expect(paidCheckouts(await sb.control.ledger(apiKey), spring.orderId)).toBe(1);

    // The paid campaign leaves the stack and stays at the service; the draft is deleted there.
    const destroy = await destroyOnce(t);
    expect(destroy.summary.result).toBe("succeeded");
    expect(await client.getOrder(welcome.orderId)).toBeUndefined();
    expect(await client.getOrder(spring.orderId)).toBeDefined();
    expect(paidCheckouts(await sb.control.ledger(apiKey), spring.orderId)).toBe(1);
  });

  it("examples/two-step: the draft charges nothing; adding the checkout shows one create in preview and pays once", async () => {
    const t = await rootStack("examples/two-step/draft");
    const draft = await upOnce(t);
    const holiday = draft.outputs["holiday-cards"]?.value;
    expect(holiday).toMatchObject({ orderStatus: "Draft", accepted: 3 });

    writePlainConfig(t, { campaignsDir: "examples/two-step/paid" });
    const preview = await previewOnce(t);
    expect(preview.changeSummary).toMatchObject({ create: 1 });
    expect(nonSame(preview.changeSummary)).toEqual(["create"]);
    const paid = await upOnce(t);
    expect(SETTLED).toContain(paid.outputs["holiday-cards"]?.value.checkoutStatus);
    expect(paidCheckouts(await sb.control.ledger(apiKey), holiday.orderId)).toBe(1);
  });

  it("examples/typescript: the Campaign component, drafted then paid", async () => {
    const t = await createTestStack("typescript", {
      fromDir: "examples/typescript",
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
      },
    });
    stacks.push(t);
    const draft = await upOnce(t);
    expect(draft.outputs.orderStatus?.value).toBe("Draft");
    expect(draft.outputs.accepted?.value).toBe(2);
    writePlainConfig(t, { pay: "true" });
    const paid = await upOnce(t);
    expect(SETTLED).toContain(paid.outputs.orderStatus?.value);
    expect(paidCheckouts(await sb.control.ledger(apiKey), draft.outputs.orderId?.value)).toBe(1);
  });
});
