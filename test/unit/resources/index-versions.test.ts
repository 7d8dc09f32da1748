/**
 * How long the earlier formats of a recipient index are read (docs/resources.md, "Index formats"):
 * the 0.x releases wrote v1 to v3, so every 0.x release reads them, and the next major version
 * drops them. At 1.0.0 this test fails until their readers are gone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodeIndex, encodeIndex, RecipientIndex } from "../../../provider/recipients/index";
import { indexRecords } from "../../support/index-records";

const root = path.resolve(__dirname, "../../..");
const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version as string;
const major = Number(version.split(".")[0]);

const key = (n: number) => n.toString(16).padStart(16, "0");
const index = new RecipientIndex().set(key(1), { id: 11, content: key(1), listed: 0 });
const v1 = () => {
  const record = Buffer.alloc(12);
  record.write(key(1), 0, 8, "hex");
  record.writeUInt32BE(11, 8);
  return `v1.${gzipSync(record).toString("base64")}`;
};
const earlier = { v1: v1(), v2: indexRecords(index, "v2"), v3: indexRecords(index, "v3") };

describe("the earlier index formats", () => {
  it("are never written: an index is written as v4", () => {
    expect(encodeIndex(index)).toMatch(/^v4\./);
  });

  for (const [format, encoded] of Object.entries(earlier)) {
    it(`${format} is read by the releases of the major version that wrote it (0.x), and by no later one`, () => {
      if (major === 0) expect([...decodeIndex(encoded, false).keys()]).toEqual([key(1)]);
      else expect(() => decodeIndex(encoded, false)).toThrow(/refresh the stack/);
    });
  }
});
