/**
 * `CampaignFolder`: a folder of campaign files (YAML, see docs/campaign-format.md) deployed as one
 * Pulumi component, one `Campaign` per document. This is the GitOps path: adding, editing or
 * deleting a file is the whole workflow.
 *
 * Campaigns are named after their `metadata.name`, never after their file: renaming or moving a
 * file changes nothing, renaming a campaign replaces its resources.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { DirectMailClient } from "../api/client";
import { DirectMailError } from "../api/errors";
import type { DeliveryProgress } from "../api/schemas/order";
import { recordedRoot } from "../file-root";
import { lookupSettings, serviceFacts } from "../lookups/data-functions";
import { projectRoot } from "../project";
import { DEFAULT_IDENTITY_FIELD, digestOfSet } from "../recipients/index";
import { AutomationRecipients } from "../resources/automation-recipients/resource";
import { Conversions, type ConversionsArgs } from "../resources/conversions/resource";
import type { ProgramRead, Recipient } from "../resources/order-recipients/inputs";
import { ProximitySearch } from "../resources/proximity-search/resource";
import { Campaign, type CampaignArgs } from "./component";
import {
  type CampaignProblem,
  formatProblems,
  type LoadedCampaign,
  type LoadedResourceDocument,
  loadCampaignsDir,
  recipientListOf,
} from "./loader";
import { COMPONENT_TYPE, childName } from "./names";
import { checkCampaignsOnline } from "./online-check";
import type { CampaignConversions } from "./schema";

export interface CampaignFolderArgs {
  /**
   * The folder of campaign files: every `*.yaml` and `*.yml` file under it, in subfolders too
   * (hidden folders such as `.github` are skipped). Relative to the Pulumi project's folder (where
   * `Pulumi.yaml` is and `pulumi` runs), or absolute.
   */
  dir: string;
}

/** What a stack shows of one campaign of the folder. */
export interface CampaignOutputs {
  orderId: number;
  /** The order's status; after a checkout, the status the checkout left it in. */
  orderStatus: string;
  /** Recipients the service accepted. */
  accepted: number;
  /** Recipients the service dropped (bad address, do-not-mail, ...). */
  dropped: number;
  /** Dropped recipients counted by reason code. */
  dropReasons: Record<string, number>;
  /** Up to ten dropped recipients with their row in the list and the reason. */
  droppedSample: { row: number; reason: string }[];
  /** The order's status after the checkout (`Paid`, or `Payment Needed` while it settles); undefined without one. */
  checkoutStatus: string | undefined;
  /** What the checkout charged; undefined without one. */
  totalCharges: number | null | undefined;
  /** Pieces at each delivery stage as `pulumi refresh` last read them; null when the service gave none. */
  delivery: DeliveryProgress | null;
  /** QR code scans of the campaign's pieces as `pulumi refresh` last read them. */
  qrScans: number;
}

/** The campaigns of the folder by `metadata.name`: what `initialize` leaves for the constructor. */
type Campaigns = Record<string, Campaign<string>>;

/**
 * Every campaign file of a folder, as Campaigns.
 *
 * Before anything is declared, every file is loaded and checked (YAML, the campaign schema,
 * recipient files and their rows, unique names). Any problem fails the preview once, with every
 * problem as `file:line:column: message` (paths relative to the project's folder, as
 * `directmail validate` prints them run there), and nothing changes.
 *
 * Each campaign becomes a `Campaign` child named after its `metadata.name`. A campaign that an
 * earlier program declared directly (`new Campaign(name, ...)` under the folder's parent) keeps
 * its resources: the child is aliased to that place, so moving to a folder changes nothing.
 *
 * ```ts
 * // index.ts of a campaign repository: the campaigns' outputs become the stack's outputs.
 * import { CampaignFolder } from "pulumi-directmail";
 * export = new CampaignFolder("campaigns", { dir: "campaigns" }).outputs;
 * ```
 */
export class CampaignFolder extends pulumi.ComponentResource<Campaigns> {
  /**
   * Each campaign's outputs by `metadata.name`. Export it from the program to make them the stack's
   * outputs (`pulumi stack output spring-sale`). Rejects when the files have problems.
   */
  readonly outputs: Promise<Record<string, pulumi.Output<CampaignOutputs>>>;

  constructor(name: string, args: CampaignFolderArgs, opts?: pulumi.ComponentResourceOptions) {
    // super() records what it is given as the component's inputs and hands it to initialize().
    // A function is not recorded (the SDK's own Stack passes its program this way): the folder's
    // path stays out of the state, and pointing the stack at another folder changes only campaigns.
    super(COMPONENT_TYPE.CampaignFolder, name, { args: () => args }, opts);
    this.outputs = this.getData().then((campaigns) => {
      const outputs: Record<string, pulumi.Output<CampaignOutputs>> = {};
      for (const [key, campaign] of Object.entries(campaigns)) {
        let output: pulumi.Output<CampaignOutputs> | undefined;
        // Made when read (exported, say): a program that does not read them makes none of their
        // Outputs, each of which costs the SDK promises and stack traces, ten a campaign.
        Object.defineProperty(outputs, key, {
          enumerable: true,
          get: () => {
            output ??= outputsOf(campaign);
            return output;
          },
        });
      }
      return outputs;
    });
  }

  protected override async initialize(
    input: { args: () => CampaignFolderArgs },
    opts?: pulumi.ComponentResourceOptions,
  ): Promise<Campaigns> {
    const root = projectRoot();
    const dir = path.resolve(root, input.args().dir);
    const { campaigns, resources, problems, warnings } = await loadCampaignsDir(dir, { relativeTo: root });
    // The campaigns that passed are checked online even while others have problems: every
    // problem shows in one run, as in `directmail validate --online`.
    for (const problem of await onlineProblems(campaigns)) problems.push(problem);
    if (problems.length > 0) {
      // The rows the service will drop are shown too, before the problems, as `directmail validate`
      // shows them: fixed in the same edit, not found after.
      const found = [warnings, problems]
        .filter((list) => list.length > 0)
        .map((l) => formatProblems(l, root));
      const message = `the campaign files have problems; nothing was changed:\n${found.join("\n")}`;
      // RunError: the message alone. The SDK prints it so while the program runs, but a failure
      // after the program returned (nothing waited for `outputs`) is printed as its stack.
      const error = new pulumi.RunError(message);
      error.stack = message;
      throw error;
    }
    const declared: Campaigns = {};
    for (const loaded of campaigns) {
      const name = loaded.document.metadata.name;
      declared[name] = new Campaign(name, campaignArgs(loaded, root, dir), {
        parent: this,
        aliases: [{ parent: opts?.parent ?? pulumi.rootStackResource }],
      });
    }
    for (const loaded of resources) declareResources(loaded, { project: root, folder: dir }, this);
    return declared;
  }
}

/**
 * The campaigns checked against the live account (online-check.ts) when the service answers: a
 * wrong template, font, QR setting or missing merge field fails the plan before anything is created
 * or paid. Without a key, or when the service cannot be asked, nothing is judged here: the
 * resources report what is wrong with the service when they call it.
 */
async function onlineProblems(campaigns: readonly LoadedCampaign[]): Promise<CampaignProblem[]> {
  if (campaigns.length === 0) return [];
  const { baseUrl, apiKey } = lookupSettings();
  if (!apiKey) return [];
  // One retry at most: an unreachable service must not hold the plan up.
  const client = new DirectMailClient({ baseUrl, apiKey, retry: { maxAttempts: 2 } });
  try {
    return await checkCampaignsOnline(campaigns, serviceFacts(client, apiKey));
  } catch (error) {
    if (error instanceof DirectMailError) return [];
    throw error;
  } finally {
    await client.close();
  }
}

/** The project folder and the campaign folder, absolute. */
interface Folders {
  project: string;
  folder: string;
}

/**
 * A file named by a document, as the provider reads it: relative to the project folder, so that the
 * state stays the same on every machine and checkout folder; with the campaign folder as the root it
 * must stay inside (`fileRoot`), where the load found it: what the preview accepts, the `up` does.
 * Set last, over the document's options: a campaign file never chooses its root.
 */
function fileOf(
  folders: Folders,
  absolute: string | undefined,
): { file: string; fileRoot?: string } | undefined {
  if (absolute === undefined) return undefined;
  const fileRoot = recordedRoot(folders.folder, folders.project);
  return { file: path.relative(folders.project, absolute), ...(fileRoot !== undefined ? { fileRoot } : {}) };
}

/** A `conversions` section (a campaign's, or a Conversions document's spec) as a Conversions' arguments. */
function conversionsArgs(
  section: z.infer<typeof CampaignConversions>,
  file: { file: string; fileRoot?: string } | undefined,
): ConversionsArgs {
  const { file: _file, inline, ...options } = section;
  return { ...options, ...(file ?? { records: inline ?? [] }) };
}

/**
 * The resources of a Conversions or Automation document, named after its `metadata.name`:
 * `<name>` for conversions; `<name>-recipients` and `<name>-search-<search name>` for an automation
 * (renaming a search is a new search, which mails).
 */
function declareResources(loaded: LoadedResourceDocument, folders: Folders, folder: pulumi.Resource): void {
  let parent = folder;
  const { document } = loaded;
  const name = document.metadata.name;
  const file = fileOf(folders, loaded.recordsFile);
  if (document.kind === "Conversions") {
    new Conversions(name, conversionsArgs(document.spec, file), { parent: folder });
    return;
  }
  const { integrationOrderId, recipients, proximitySearches } = document.spec;
  // One component per automation, named after it: `directmail review` reports it as one entry.
  const group = new pulumi.ComponentResource(COMPONENT_TYPE.Automation, name, {}, { parent });
  parent = group;
  if (recipients) {
    const { file: _file, inline, ...options } = recipients;
    new AutomationRecipients(
      childName(name, "recipients"),
      { integrationOrderId, ...options, ...(file ?? { recipients: inline ?? [] }) },
      { parent },
    );
  }
  for (const search of proximitySearches ?? []) {
    const slug = search.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
    new ProximitySearch(childName(name, "search", slug), { integrationOrderId, ...search }, { parent });
  }
}

/**
 * A checked campaign document as the arguments of its Campaign; `folder` is the campaign folder
 * (absolute), the root its files stay inside, `root` the project folder.
 */
export function campaignArgs(loaded: LoadedCampaign, root: string, folder: string): CampaignArgs<string> {
  const { order, recipients, checkout, addressBook, conversions, retain } = loaded.document.spec;
  const { file: _file, inline, ...recipientOptions } = recipients;
  const folders = { project: root, folder };
  const recipientsFile = fileOf(folders, loaded.recipientsFile);
  return {
    order,
    recipients: {
      ...recipientOptions,
      ...(recipientsFile !== undefined
        ? { ...recipientsFile, ...programReadOf(loaded) }
        : {
            // YAML reads `zip: 62701` as a number; the service takes text.
            // The loader checked every field name; the provider checks them again at plan time.
            recipients: (inline ?? []).map(
              (r) =>
                Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)])) as Recipient<string>,
            ),
          }),
    },
    ...(checkout ? { checkout } : {}),
    ...(addressBook ? { addressBook } : {}),
    ...(conversions
      ? { conversions: conversionsArgs(conversions, fileOf(folders, loaded.conversionsFile)) }
      : {}),
    ...(retain ? { retain } : {}),
  };
}

/**
 * What this program's load read of a campaign's recipients file, for the provider's check, which
 * then need not read the file again (OrderRecipients' `programRead`, recorded nowhere): nothing
 * when the file changed during the read.
 */
function programReadOf(loaded: LoadedCampaign): { programRead?: ProgramRead } {
  const list = recipientListOf(loaded);
  if (list?.signature === undefined || list.set === undefined) return {};
  const identityField = loaded.document.spec.recipients.identityField ?? DEFAULT_IDENTITY_FIELD;
  return {
    programRead: {
      signature: list.signature,
      digest: digestOfSet(list.set, identityField),
      declaredCount: list.set.size,
      duplicateRows: list.duplicateRows,
    },
  };
}

function outputsOf(campaign: Campaign): pulumi.Output<CampaignOutputs> {
  return pulumi.output({
    orderId: campaign.orderId,
    orderStatus: campaign.orderStatus,
    accepted: campaign.acceptedCount,
    dropped: campaign.droppedCount,
    dropReasons: campaign.dropReasons,
    droppedSample: campaign.droppedSample,
    checkoutStatus: campaign.checkoutStatus,
    totalCharges: campaign.totalCharges,
    delivery: campaign.delivery,
    qrScans: campaign.qrScans,
  });
}
