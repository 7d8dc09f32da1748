/**
 * The data functions against a sandbox: what they return, where they find the service (options,
 * then the stack's configuration, then the environment), and that templates and fonts are asked
 * for once per process and account.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  DirectMailClient,
  getFonts,
  getOrder,
  getOrderAnalytics,
  getOrderAnalyticsOutput,
  getOrderOutput,
  getTemplates,
  getTemplatesOutput,
} from "../../provider/index";
import { clearServiceFacts } from "../../provider/lookups/facts";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";

let sb: TestSandbox;
let apiKey: string;
let otherKey: string;
let templateId: number;
let orderId: number;
const requests: string[] = [];
const saved = { ...process.env };

/** The value of an Output, as a program's export would see it. */
const resolved = <T>(output: pulumi.Output<T>): Promise<T> => (output as any).promise();
const count = (pattern: RegExp) => requests.filter((line) => pattern.test(line)).length;

beforeAll(async () => {
  sb = await startTestSandbox({ requestLog: true, log: (line) => requests.push(line) });
  ({ apiKey } = await sb.control.createAccount({ email: "programs@example.com" }));
  ({ apiKey: otherKey } = await sb.control.createAccount({ email: "other@example.com" }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard", hasQr: true }));
  await sb.control.uploadFont(apiKey, "My Hand");
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  ({ orderId } = await client.createOrder({ templateId }));
  await client.close();
});
afterEach(() => {
  process.env = { ...saved };
  pulumi.runtime.setAllConfig({});
  clearServiceFacts();
});
afterAll(async () => {
  await sb?.close();
});

describe("data functions", () => {
  it("read templates and fonts once per process and account", async () => {
    const options = { baseUrl: sb.url, apiKey };
    requests.length = 0;
    const [templates, again, fonts] = await Promise.all([
      getTemplates(options),
      getTemplates(options),
      getFonts(options),
    ]);
    expect(templates).toEqual([
      expect.objectContaining({ id: templateId, name: "Postcard", hasQr: true, requiredMergeFields: [] }),
    ]);
    expect(again).toEqual(templates);
    expect(fonts.map((f) => `${f.name} ${f.type}`)).toEqual([
      "Casual Cursive Global",
      "Neat Print Global",
      "Bold Marker Global",
      "Elegant Script Global",
      "Quick Note Global",
      "My Hand Uploaded",
    ]);
    await getTemplates(options);
    expect(count(/ GET \/v1\/templates /)).toBe(1);
    expect(count(/ GET \/v1\/fonts /)).toBe(1);
    // Another account is another listing.
    expect(await getTemplates({ baseUrl: sb.url, apiKey: otherKey })).toEqual([]);
    expect(count(/ GET \/v1\/templates /)).toBe(2);
  });

  it("read an order and the analytics of orders, an unknown one in its own entry", async () => {
    const options = { baseUrl: sb.url, apiKey };
    expect(await getOrder(orderId, options)).toMatchObject({ orderId, orderStatus: "Draft", templateId });
    expect(await getOrder(999_999, options)).toBeUndefined();
    const analytics = await getOrderAnalytics([orderId, 999_999], options);
    expect(analytics.map((a) => [a.orderId, a.status])).toEqual([
      [orderId, "Success"],
      [999_999, "NotFound"],
    ]);
    expect(await getOrderAnalytics([], options)).toEqual([]);
  });

  it("find the service in the stack's configuration, then the environment; say where to set a key", async () => {
    process.env.DIRECTMAIL_BASE_URL = "http://127.0.0.1:9";
    process.env.DIRECTMAIL_API_KEY = otherKey;
    pulumi.runtime.setConfig("directmail:baseUrl", sb.url);
    pulumi.runtime.setConfig("directmail:apiKey", apiKey);
    expect((await resolved(getTemplatesOutput())).map((t) => t.id)).toEqual([templateId]);
    expect(await resolved(getOrderOutput(pulumi.output(orderId)))).toMatchObject({ orderId });
    expect((await resolved(getOrderAnalyticsOutput([pulumi.output(orderId)])))[0]?.orderId).toBe(orderId);

    pulumi.runtime.setAllConfig({});
    process.env.DIRECTMAIL_BASE_URL = sb.url;
    clearServiceFacts();
    expect(await getTemplates()).toEqual([]); // the environment's key: the other account

    delete process.env.DIRECTMAIL_API_KEY;
    await expect(getFonts()).rejects.toThrow(
      `no API key for ${sb.url}: pass { apiKey }, set the secret directmail:apiKey (pulumi config set --secret directmail:apiKey <key>), or set DIRECTMAIL_API_KEY`,
    );
  });
});
