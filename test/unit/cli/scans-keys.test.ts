/**
 * `directmail scans import` lines that name their recipient by campaign and key: each looked up
 * once per campaign, turned into the service's ids, and every line that cannot be is one problem.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CampaignLookup, readScans, resolveKeyed } from "../../../cli/commands/scans";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-scans-keys-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

/** spring (keyed by customerId: C-1 is recipient 501, C-2 was dropped), and plain (no key column). */
const asked: string[] = [];
const lookup: CampaignLookup = async (campaign) => {
  asked.push(campaign);
  if (campaign === "spring") {
    const ids = new Map([
      ["C-1", 501],
      ["C-2", 0],
      ["constructor", 502],
    ]);
    return { orderId: 12, keyColumn: "customerId", idOf: (value) => ids.get(value) };
  }
  if (campaign === "plain") return { orderId: 13, keyColumn: undefined, idOf: () => undefined };
  return undefined;
};

describe("scan lines by campaign and key", () => {
  it("become the service's ids, beside lines that give them; each campaign is looked up once", async () => {
    const read = await readScans(
      file(
        "ok.csv",
        [
          "campaign,key,orderId,orderRecipientId,statisticValue",
          "spring, C-1 ,,,2",
          ",,12,777,1",
          "spring,constructor,,,4",
          "",
        ].join("\n"),
      ),
    );
    asked.length = 0;
    await resolveKeyed(read, lookup);
    expect(asked).toEqual(["spring"]);
    expect(read.problems).toEqual([]);
    expect(read.records).toEqual([
      { line: 2, scan: { orderId: 12, orderRecipientId: 501, statisticValue: "2", statisticName: 1 } },
      { line: 3, scan: { orderId: 12, orderRecipientId: 777, statisticValue: "1", statisticName: 1 } },
      { line: 4, scan: { orderId: 12, orderRecipientId: 502, statisticValue: "4", statisticName: 1 } },
    ]);
  });

  it("each line that cannot be looked up is one problem saying why, keys shown short and escaped", async () => {
    const read = await readScans(
      file(
        "bad.jsonl",
        [
          { campaign: "spring", key: "C-2", statisticValue: 1 },
          { campaign: "spring", key: "C-9\u001b[31m", statisticValue: 1 },
          { campaign: "autumn", key: "A-1", statisticValue: 1 },
          { campaign: "plain", key: "x", statisticValue: 1 },
          { campaign: "spring", statisticValue: 1 },
          { campaign: "spring", key: "C-1", orderId: 12, statisticValue: 1 },
          { campaign: "spring", key: "C-1", statisticValue: "x" },
        ]
          .map((line) => JSON.stringify(line))
          .join("\n"),
      ),
    );
    await resolveKeyed(read, lookup);
    expect(read.records).toEqual([]);
    expect(read.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      '1: key: key "C-2" of campaign "spring" was dropped by the service: it was never mailed',
      '2: key: key "C-9\\u001b[31m" is not a customerId of campaign "spring"; check the value',
      '3: campaign: the stack has no campaign "autumn" with recipients',
      '4: campaign: "plain" has no keyColumn, so its recipients have no key; give orderId and orderRecipientId',
      "5: give both campaign and key (the value of the campaign's key column)",
      "6: give either orderId and orderRecipientId, or campaign and key, not both",
      expect.stringMatching(/^7: statisticValue: /),
    ]);
    expect(read.problemCount).toBe(7);
  });
});
