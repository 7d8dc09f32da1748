/** A stack of the campaign program (test/e2e/programs/campaign) on a new account of a test sandbox. */
import * as fs from "node:fs";
import * as path from "node:path";
import { DirectMailClient } from "../../../provider/api/client";
import type { TestSandbox } from "../../support/sandbox";
import { recipientsCsv } from "./campaign";
import { createTestStack } from "./pulumi";

/**
 * The stack over `recipients` (default 1 and 2: 5.00 USD at the sandbox's prices), its account's key,
 * template and client; `config` adds plain values, `account` the account's payment behaviour, or
 * `apiKey` an existing account (another campaign of the same account).
 * `dispose` closes the client and removes the stack.
 */
export async function campaignStack(
  sb: TestSandbox,
  config: Record<string, string> = {},
  options: {
    account?: { payment?: "succeed" | "fail" | "hang" };
    apiKey?: string;
    recipients?: number[];
  } = {},
) {
  const apiKey =
    options.apiKey ?? (await sb.control.createAccount({ balance: 0, ...options.account })).apiKey;
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  const t = await createTestStack("campaign", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      recipientsFile: { value: "recipients.csv" },
      ...Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { value: v }])),
    },
  });
  fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv(options.recipients ?? [1, 2]));
  const dispose = async () => {
    await client.close();
    await t.dispose();
  };
  return { apiKey, templateId, client, t, dispose };
}
