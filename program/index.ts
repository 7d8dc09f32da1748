/**
 * The project's Pulumi program, the GitOps entry point: every campaign file under `campaignsDir`
 * (stack config, default `examples/campaigns`, relative to the project directory) becomes a
 * Campaign. Adding, editing or deleting a file is the whole workflow.
 *
 * Resources are named after each campaign's `metadata.name`, never after its file: renaming or
 * moving a file changes nothing, renaming a campaign replaces its resources.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Campaign, formatProblems, loadCampaignsDir } from "pulumi-directmail";

export = async () => {
  const config = new pulumi.Config();
  const root = pulumi.getRootDirectory();
  const dir = path.resolve(root, config.get("campaignsDir") ?? "examples/campaigns");
  const { campaigns, problems } = await loadCampaignsDir(dir);
  if (problems.length > 0) {
    // RunError: the message alone, without a stack trace.
    throw new pulumi.RunError(
      `the campaign files have problems; nothing was changed:\n${formatProblems(problems)}`,
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
        // Relative to the working directory, which the provider shares with the program: the state
        // stays the same on every machine and checkout folder.
        ...(recipientsFile !== undefined
          ? { file: path.relative(process.cwd(), recipientsFile) }
          : {
              recipients: (inline ?? []).map((r) =>
                Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)])),
              ),
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
