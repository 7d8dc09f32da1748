/**
 * The project's Pulumi program, the GitOps entry point: every campaign file under `campaignsDir`
 * (stack config, relative to the project folder) becomes a Campaign. Adding, editing or deleting a
 * file is the whole workflow.
 *
 * Resources are named after each campaign's `metadata.name`, never after its file: renaming or
 * moving a file changes nothing, renaming a campaign replaces its resources.
 *
 * Paths in messages and in the state are relative to the project folder (where Pulumi.yaml is and
 * the user runs `pulumi`), not to this program's folder.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import {
  Campaign,
  formatProblems,
  isLocalSandbox,
  loadCampaignsDir,
  type Recipient,
  resolveBaseUrl,
} from "pulumi-directmail";

/** The campaigns of this repository's examples; some of them pay for their orders. */
const EXAMPLES_DIR = "examples/campaigns";

export = async () => {
  const root = pulumi.getRootDirectory();
  const dir = path.resolve(root, campaignsDir());
  const { campaigns, problems } = await loadCampaignsDir(dir, { relativeTo: root });
  if (problems.length > 0) {
    // RunError: the message alone, without a stack trace.
    throw new pulumi.RunError(
      `the campaign files have problems; nothing was changed:\n${formatProblems(problems, root)}`,
    );
  }

  const outputs: Record<string, pulumi.Output<unknown>> = {};
  for (const { document, recipientsFile } of campaigns) {
    const { order, recipients, checkout, addressBook, retain } = document.spec;
    const { file: _file, inline, ...recipientOptions } = recipients;
    const campaign = new Campaign(document.metadata.name, {
      order,
      recipients: {
        ...recipientOptions,
        // Relative to the project folder, as the provider reads it: the state stays the same on
        // every machine and checkout folder.
        ...(recipientsFile !== undefined
          ? { file: path.relative(root, recipientsFile) }
          : {
              // Rows the loader has checked already, field by field (and the provider checks again).
              recipients: (inline ?? []).map((r) =>
                Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)])),
              ) as Recipient<string>[],
            }),
      },
      ...(checkout ? { checkout } : {}),
      ...(addressBook ? { addressBook } : {}),
      ...(retain ? { retain } : {}),
    });
    outputs[document.metadata.name] = pulumi.output({
      orderId: campaign.orderId,
      orderStatus: campaign.orderStatus,
      accepted: campaign.acceptedCount,
      dropped: campaign.droppedCount,
      dropReasons: campaign.dropReasons,
      droppedSample: campaign.droppedSample,
      checkoutStatus: campaign.checkoutStatus,
      totalCharges: campaign.totalCharges,
    });
  }
  return outputs;
};

/**
 * The folder of campaign files: stack config `campaignsDir`. Without it the examples are deployed,
 * but only to the local sandbox: they pay, and a stack that targets the real service and forgot
 * the setting must not buy them.
 */
function campaignsDir(): string {
  const configured = new pulumi.Config().get("campaignsDir")?.trim();
  if (configured) return configured;
  const { baseUrl, baseUrlSource } = resolveBaseUrl(new pulumi.Config("directmail").get("baseUrl"));
  if (isLocalSandbox(baseUrl)) return EXAMPLES_DIR;
  const from = baseUrlSource === "config" ? "directmail:baseUrl" : "DIRECTMAIL_BASE_URL";
  throw new pulumi.RunError(
    "campaignsDir is not set: name the folder of your campaign files, relative to the project folder, " +
      "with `pulumi config set campaignsDir <folder>`. The example campaigns are the default only for " +
      `the local sandbox (some of them pay), and this stack sends to ${baseUrl} (${from}). Nothing was changed.`,
  );
}
