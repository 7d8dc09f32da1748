/**
 * The components the plugin constructs for a Pulumi YAML program: the TypeScript `CampaignFolder`
 * and `Campaign` themselves (provider/campaign/), run in the plugin, whose resources are declared
 * with the plugin's own types (`directmail:index:Order`, ...) and served by it. Their outputs are
 * the TypeScript ones: a folder's `outputs` by campaign name, a campaign's order and drop report.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Campaign, type CampaignArgs } from "../campaign/component";
import { CampaignFolder, campaignArgs } from "../campaign/folder";
import { formatProblems, type LoadedCampaign, loadCampaignFiles } from "../campaign/loader";
import { COMPONENT_TYPE } from "../campaign/names";
import { CAMPAIGN_API_VERSION, CampaignSpec } from "../campaign/schema";
import { projectRoot } from "../project";
import { declareThroughPlugin } from "../resources/thin-provider";
import type { ComponentConstructor, Constructed } from "./construct";

/** An error the engine shows as it is: the message alone, no stack (as the folder's RunError). */
function programError(message: string): Error {
  const error = new pulumi.RunError(message);
  error.stack = message;
  return error;
}

/** A text input the component needs while the program runs (a path): an Output or other type is refused. */
function textInput(type: string, inputs: Record<string, unknown>, key: string): string | undefined {
  const value = inputs[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string")
    throw programError(
      `${type} \`${key}\` must be text known when the program runs (a path), not ${pulumi.Output.isInstance(value) ? "another resource's output" : typeof value}.`,
    );
  return value;
}

async function constructFolder(
  name: string,
  inputs: Record<string, unknown>,
  opts: pulumi.ComponentResourceOptions,
): Promise<Constructed> {
  const dir = textInput("CampaignFolder", inputs, "dir");
  if (!dir)
    throw programError("CampaignFolder needs `dir`: the folder of campaign files, relative to Pulumi.yaml.");
  const folder = new CampaignFolder(name, { dir }, opts);
  // Rejects with every problem of the files, once, before anything is declared.
  const outputs = await folder.outputs;
  return { urn: folder.urn, state: { outputs: { ...outputs } } };
}

/** A Campaign's arguments from its `file` (a campaign file holding it) or its inline `spec`. */
async function campaignArgsOf(name: string, inputs: Record<string, unknown>): Promise<CampaignArgs<string>> {
  const root = projectRoot();
  const file = textInput("Campaign", inputs, "file");
  const spec = inputs.spec;
  if ((file === undefined) === (spec === undefined))
    throw programError(
      "Campaign needs one of `file` (a campaign file, relative to Pulumi.yaml) or `spec` (the campaign inline, as a campaign file's spec), not both.",
    );
  if (file !== undefined) {
    const { campaigns, problems } = await loadCampaignFiles([path.resolve(root, file)], { relativeTo: root });
    if (problems.length > 0)
      throw programError(
        `the campaign file has problems; nothing was changed:\n${formatProblems(problems, root)}`,
      );
    const loaded = campaigns.find((c) => c.document.metadata.name === name);
    if (!loaded)
      throw programError(
        `${file} holds no campaign named "${name}" (it holds ${campaigns.map((c) => `"${c.document.metadata.name}"`).join(", ") || "none"}): ` +
          "a Campaign's resource name is its campaign's metadata.name, which names its resources.",
      );
    return campaignArgs(loaded, root, root);
  }
  if (pulumi.Output.isInstance(spec) || typeof spec !== "object")
    throw programError("Campaign `spec` must be the campaign's spec, known when the program runs.");
  const parsed = CampaignSpec.safeParse(spec);
  if (!parsed.success)
    throw programError(
      `Campaign "${name}" has problems in its spec; nothing was changed:\n${parsed.error.issues
        .map((issue) => `  spec.${issue.path.join(".")}: ${issue.message}`)
        .join("\n")}`,
    );
  // Files the inline spec names are relative to the project's folder, and stay inside it.
  const { recipients, conversions } = parsed.data;
  const loaded: LoadedCampaign = {
    file: path.join(root, "Pulumi.yaml"),
    documentIndex: 0,
    document: { apiVersion: CAMPAIGN_API_VERSION, kind: "Campaign", metadata: { name }, spec: parsed.data },
    ...(recipients.file ? { recipientsFile: path.resolve(root, recipients.file) } : {}),
    ...(conversions?.file ? { conversionsFile: path.resolve(root, conversions.file) } : {}),
  };
  return campaignArgs(loaded, root, root);
}

async function constructCampaign(
  name: string,
  inputs: Record<string, unknown>,
  opts: pulumi.ComponentResourceOptions,
): Promise<Constructed> {
  const campaign = new Campaign(name, await campaignArgsOf(name, inputs), opts);
  return {
    urn: campaign.urn,
    state: {
      orderId: campaign.orderId,
      orderStatus: campaign.orderStatus,
      acceptedCount: campaign.acceptedCount,
      droppedCount: campaign.droppedCount,
      dropReasons: campaign.dropReasons,
      droppedSample: campaign.droppedSample,
      checkoutStatus: campaign.checkoutStatus,
      totalCharges: campaign.totalCharges,
      delivery: campaign.delivery,
      qrScans: campaign.qrScans,
    },
  };
}

const CONSTRUCTORS: Record<string, ComponentConstructor> = {
  [COMPONENT_TYPE.CampaignFolder]: constructFolder,
  [COMPONENT_TYPE.Campaign]: constructCampaign,
};

/** The constructor of a component type, for the plugin's Construct; a type it does not build throws. */
export function componentConstructor(type: string): ComponentConstructor {
  const build = CONSTRUCTORS[type];
  if (!build) throw new Error(`pulumi-resource-directmail has no component ${type}`);
  return (name, inputs, opts) => {
    // The components' resources are the plugin's own in this process (never dynamic ones).
    declareThroughPlugin();
    return build(name, inputs, opts);
  };
}
