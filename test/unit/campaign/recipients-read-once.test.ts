/**
 * A recipients file named by a campaign is read once by the campaign check: opened once (what it
 * is and its signature taken from the open file), its problems and the rows the service will drop
 * placed at their lines (in a JSON array, at their elements) from that one read, and looked up by
 * its path once more, after the read, to tell that the rows read are the file's as it is now.
 */
import type * as fs from "node:fs";
import type * as fsPromises from "node:fs/promises";
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { loadCampaignFiles } from "../../../provider/campaign/loader";
import { fileCampaign, tempDir } from "./fixtures";

const tmp = tempDir("directmail-read-once-");
afterAll(tmp.remove);

const require_ = createRequire(__filename);
const fsModule: typeof fs = require_("node:fs");
const fsPromisesModule: typeof fsPromises = require_("node:fs/promises");

/** Counts the calls that open or look at `file` on disk, by kind, while `run` runs. */
async function touchesOf(file: string, run: () => Promise<unknown>) {
  const counts = { opens: 0, stats: 0 };
  const same = (given: unknown) => typeof given === "string" && path.resolve(given) === file;
  type Calls = Record<string, (...args: unknown[]) => unknown>;
  const spy = (module: object, name: string) => vi.spyOn(module as Calls, name);
  const spies = [
    ...["open", "openSync", "readFileSync"].map((name) => spy(fsModule, name)),
    ...["open", "readFile"].map((name) => spy(fsPromisesModule, name)),
  ];
  const statSpies = [
    ...["stat", "lstat", "access"].map((name) => spy(fsPromisesModule, name)),
    ...["statSync", "existsSync"].map((name) => spy(fsModule, name)),
  ];
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    for (const spy of spies) counts.opens += spy.mock.calls.filter(([given]) => same(given)).length;
    for (const spy of statSpies) counts.stats += spy.mock.calls.filter(([given]) => same(given)).length;
  }
  return counts;
}

afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

const ROWS = [
  { firstName: "Ada", address1: "1 A St", city: "B", state: "IL", zipCode: "62701" },
  { firstName: "Bo", address1: "1 A St", city: "B", state: "IL", zipCode: "1" },
  { firstName: "Cy" },
];

describe("a recipients file checked by a campaign", () => {
  it("is opened once, a JSON array with a problem and a drop placed at its elements", async () => {
    const json = tmp.write("once/people.json", JSON.stringify(ROWS, null, 2));
    const campaign = tmp.write("once/c.yaml", fileCampaign("once", "people.json"));
    let loaded: Awaited<ReturnType<typeof loadCampaignFiles>> | undefined;
    const counts = await touchesOf(json, async () => {
      loaded = await loadCampaignFiles([campaign]);
    });
    expect(
      [...(loaded?.problems ?? []), ...(loaded?.warnings ?? [])].map(
        (p) => `${p.line}:${p.column}: ${p.message}`,
      ),
    ).toEqual([
      "16:3: address1: address1 is required",
      "16:3: city: city is required",
      "16:3: state: state is required",
      "16:3: zipCode: zipCode is required",
      "9:3: the service will drop this row: ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code",
    ]);
    expect(counts).toEqual({ opens: 1, stats: 1 });
  });

  it("is opened once, a valid CSV file", async () => {
    const csv = tmp.write(
      "once-csv/people.csv",
      "firstName,address1,city,state,zipCode\nAda,1 A St,B,IL,62701\nBo,1 A St,B,IL,1\n",
    );
    const campaign = tmp.write("once-csv/c.yaml", fileCampaign("once-csv", "people.csv"));
    let loaded: Awaited<ReturnType<typeof loadCampaignFiles>> | undefined;
    const counts = await touchesOf(csv, async () => {
      loaded = await loadCampaignFiles([campaign]);
    });
    expect(loaded?.problems).toEqual([]);
    expect(loaded?.warnings.map((w) => `${w.line}:${w.column}: ${w.message}`)).toEqual([
      "3:1: the service will drop this row: ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code",
    ]);
    expect(counts).toEqual({ opens: 1, stats: 1 });
  });
});
