/**
 * CampaignFolder's mapping from a checked campaign document to the arguments of its Campaign. The
 * component under the real pulumi CLI: test/e2e/project-paths, examples, retire and state-compat.
 */
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { campaignArgs } from "../../../provider/campaign/folder";
import { loadCampaignFiles } from "../../../provider/campaign/loader";
import { DEFAULT_IDENTITY_FIELD } from "../../../provider/resources/recipients/declared";
import { fileSignature, scanRecipients } from "../../../provider/resources/recipients/source";
import { fileCampaign, GOOD_CSV, inlineCampaign, tempDir } from "./fixtures";

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

async function loadOne(files: Record<string, string>, campaignFile: string) {
  const t = tempDir("directmail-folder-");
  dirs.push(t);
  for (const [name, text] of Object.entries(files)) t.write(name, text);
  const { campaigns, problems } = await loadCampaignFiles([path.join(t.dir, campaignFile)]);
  expect(problems).toEqual([]);
  return { root: t.dir, loaded: campaigns[0] as NonNullable<(typeof campaigns)[0]> };
}

describe("campaignArgs", () => {
  it("names a recipients file relative to the project folder, as the provider reads it", async () => {
    const { root, loaded } = await loadOne(
      {
        "campaigns/spring.yaml": fileCampaign("spring", "lists/people.csv", "customerId"),
        "campaigns/lists/people.csv": GOOD_CSV,
      },
      "campaigns/spring.yaml",
    );
    const file = path.join(root, "campaigns", "lists", "people.csv");
    const options = { identityField: DEFAULT_IDENTITY_FIELD, keyColumn: "customerId" };
    // What the load read, for the provider's check: the figures its own scan of the file gives.
    const { digest, set, duplicateRows } = await scanRecipients({ file }, options);
    expect(campaignArgs(loaded, root)).toEqual({
      order: { templateId: 10002 },
      recipients: {
        file: path.join("campaigns", "lists", "people.csv"),
        keyColumn: "customerId",
        programRead: {
          signature: await fileSignature(file, options, undefined),
          digest,
          declaredCount: set.size,
          duplicateRows,
        },
      },
    });
  });

  it("gives inline values as text (YAML reads zip: 80302 as a number) and keeps checkout, address book and retain", async () => {
    const yaml = `${inlineCampaign("hedy").replace('zipCode: "80302"', "zipCode: 80302")}${[
      "  checkout:",
      "    postageType: Standard",
      "    productionSpeed: Normal",
      "  addressBook:",
      '    - { firstName: Hedy, address1: 12 Frequency Way, city: Boulder, state: CO, zip: "80302" }',
      "  retain: true",
      "",
    ].join("\n")}`;
    const { root, loaded } = await loadOne({ "hedy.yaml": yaml }, "hedy.yaml");
    const args = campaignArgs(loaded, root);
    expect(args.recipients).toEqual({
      recipients: [
        { firstName: "Hedy", address1: "12 Frequency Way", city: "Boulder", state: "CO", zipCode: "80302" },
      ],
    });
    expect(args.checkout).toMatchObject({ postageType: "Standard", productionSpeed: "Normal" });
    expect(args.addressBook).toMatchObject([{ firstName: "Hedy", zip: "80302" }]);
    expect(args.retain).toBe(true);
  });

  it("leaves out what the document leaves out", async () => {
    const { root, loaded } = await loadOne({ "a.yaml": inlineCampaign("a") }, "a.yaml");
    expect(Object.keys(campaignArgs(loaded, root)).sort()).toEqual(["order", "recipients"]);
  });
});
