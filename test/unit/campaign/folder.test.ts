/**
 * CampaignFolder's mapping from a checked campaign document to the arguments of its Campaign. The
 * component under the real pulumi CLI: test/e2e/project-paths, examples, retire and state-compat.
 */
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { campaignArgs } from "../../../provider/campaign/folder";
import { loadCampaignFiles } from "../../../provider/campaign/loader";
import { DEFAULT_IDENTITY_FIELD, fileSignature, recipientList } from "../../../provider/recipients/index";
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
  it("names a recipients file relative to the project folder, inside the campaign folder as its root, as the provider reads it", async () => {
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
    const { digest, set, duplicateRows } = await recipientList({ file }, options).survey();
    expect(campaignArgs(loaded, root, path.join(root, "campaigns"))).toEqual({
      order: { templateId: 10002 },
      recipients: {
        file: path.join("campaigns", "lists", "people.csv"),
        fileRoot: "campaigns",
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
    const args = campaignArgs(loaded, root, root);
    expect(args.recipients).toEqual({
      recipients: [
        { firstName: "Hedy", address1: "12 Frequency Way", city: "Boulder", state: "CO", zipCode: "80302" },
      ],
    });
    expect(args.checkout).toMatchObject({ postageType: "Standard", productionSpeed: "Normal" });
    expect(args.addressBook).toMatchObject([{ firstName: "Hedy", zip: "80302" }]);
    expect(args.retain).toBe(true);
  });

  it("records a campaign folder beside the project as a root relative to the project folder", async () => {
    const { root, loaded } = await loadOne(
      {
        "shared/spring.yaml": fileCampaign("spring", "people.csv", "customerId"),
        "shared/people.csv": GOOD_CSV,
      },
      "shared/spring.yaml",
    );
    const project = path.join(root, "project");
    expect(campaignArgs(loaded, project, path.join(root, "shared")).recipients).toMatchObject({
      file: path.join("..", "shared", "people.csv"),
      fileRoot: path.join("..", "shared"),
    });
  });

  it("refuses a campaign file that names its own root: the root is the stack owner's", async () => {
    const t = tempDir("directmail-folder-");
    dirs.push(t);
    t.write(
      "campaigns/spring.yaml",
      fileCampaign("spring", "people.csv").replace("    file:", "    fileRoot: /\n    file:"),
    );
    t.write("campaigns/people.csv", GOOD_CSV);
    const { problems } = await loadCampaignFiles([path.join(t.dir, "campaigns/spring.yaml")]);
    expect(problems.map((p) => p.message)).toEqual([
      'spec.recipients: unknown key "fileRoot"; allowed keys: file, inline, delimiter, keyColumn, ignoreColumns, identityField, maxDroppedPercent',
    ]);
  });

  it("leaves out what the document leaves out", async () => {
    const { root, loaded } = await loadOne({ "a.yaml": inlineCampaign("a") }, "a.yaml");
    expect(Object.keys(campaignArgs(loaded, root, root)).sort()).toEqual(["order", "recipients"]);
  });
});
