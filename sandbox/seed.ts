import type { Sandbox } from "./sandbox";

/** The demo account's fixed key, so docs and examples can name it. */
export const DEMO_API_KEY = "sbx_demo_key";

export interface DemoSeed {
  apiKey: string;
  accountId: number;
  templates: { postcard: number; letter: number };
  integrationOrderId: number;
}

/**
 * `--seed demo`: a demo account with two templates and an automation. Seeding an existing data
 * folder again finds the same account and templates instead of adding more.
 */
export function seedDemo(sb: Sandbox): DemoSeed {
  return sb.store.tx(() => {
    const existing = sb.accounts.byKey(DEMO_API_KEY);
    const account =
      existing ??
      sb.accounts.create({
        apiKey: DEMO_API_KEY,
        email: "demo@sandbox.test",
        firstName: "Demo",
        lastName: "Marketer",
        company: "Demo Bakery",
        tier: "pro",
        balance: 100,
      }).account;
    const templates = sb.templates.list(account.id);
    const find = (name: string) => templates.find((t) => t.name === name)?.id;
    const postcard =
      find("Demo postcard") ??
      sb.templates.create(account.id, {
        name: "Demo postcard",
        product: "Handwritten Postcard",
        hasQr: true,
        qrUrl: "https://example.com/demo-offer",
        requiredMergeFields: ["custom1"],
      }).id;
    const letter =
      find("Demo letter") ??
      sb.templates.create(account.id, { name: "Demo letter", product: "Handwritten Letter" }).id;
    const automation =
      sb.automations.list(account.id).find((a) => a.name === "Demo automation")?.id ??
      sb.automations.create(account.id, { name: "Demo automation", templateId: postcard }).id;
    return {
      apiKey: DEMO_API_KEY,
      accountId: account.id,
      templates: { postcard, letter },
      integrationOrderId: automation,
    };
  });
}
