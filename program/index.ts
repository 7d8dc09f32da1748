/**
 * The project's Pulumi program, the GitOps entry point: every campaign file under `campaignsDir`
 * (stack config, relative to the project folder) becomes a Campaign (see CampaignFolder), and each
 * campaign's outputs are a stack output named after it.
 */
import * as pulumi from "@pulumi/pulumi";
import { CampaignFolder, isLocalSandbox, lookupSettings } from "pulumi-directmail";

/** The campaigns of this repository's examples; some of them pay for their orders. */
const EXAMPLES_DIR = "examples/campaigns";

export = new CampaignFolder("campaigns", { dir: campaignsDir() }).outputs;

/**
 * The folder of campaign files: stack config `campaignsDir`. Without it the examples are deployed,
 * but only to the local sandbox: they pay, and a stack that targets the real service and forgot
 * the setting must not buy them.
 */
function campaignsDir(): string {
  const configured = new pulumi.Config().get("campaignsDir")?.trim();
  if (configured) return configured;
  // The stack's settings, checked: a base URL that is not one fails here, naming the key.
  const { baseUrl, baseUrlSource } = lookupSettings();
  if (isLocalSandbox(baseUrl)) return EXAMPLES_DIR;
  const from = baseUrlSource === "config" ? "directmail:baseUrl" : "DIRECTMAIL_BASE_URL";
  throw new pulumi.RunError(
    "campaignsDir is not set: name the folder of your campaign files, relative to the project folder, " +
      "with `pulumi config set campaignsDir <folder>`. The example campaigns are the default only for " +
      `the local sandbox (some of them pay), and this stack sends to ${baseUrl} (${from}). Nothing was changed.`,
  );
}
