/**
 * Each campaign's recipients at the base and at the head, as the review compares them: where they
 * come from at each side (sideOf), the base's rows a comparison will list, kept as the loader reads
 * the base (keepBaseRows), and the comparisons started while the preview runs.
 */
import * as path from "node:path";
import { type LoadOptions, recipientListOf } from "../../provider/campaign/loader";
import type { LoadedCampaign } from "../../provider/index";
import { type CampaignFiles, campaignsByName } from "./files";
import { BaseRowsKept, compareRecipients, type RecipientChanges, type RecipientsSide } from "./recipients";

/**
 * What keeps, as the loader reads the base, the base's rows the comparison of each campaign will
 * list (BaseRowsKept, by campaign in `kept`): for a campaign the head has, read, under the same key
 * column. A name read twice at the base (a problem of its own) keeps none.
 */
export function keepBaseRows(
  head: CampaignFiles | undefined,
  kept: Map<string, BaseRowsKept | undefined>,
): LoadOptions["recipientsSeen"] {
  const heads = campaignsByName(head);
  return ({ name, keyColumn }) => {
    const headCampaign = heads.get(name);
    const set = headCampaign && recipientListOf(headCampaign)?.set;
    if (kept.has(name) || !set || headCampaign.document.spec.recipients.keyColumn !== keyColumn) {
      kept.set(name, undefined);
      return undefined;
    }
    const keeper = new BaseRowsKept(set);
    kept.set(name, keeper);
    return keeper.seen;
  };
}

/**
 * Each campaign's recipients at the base and at the head compared (compareRecipients), started
 * now; none without --base. With it, a campaign new in the change has every recipient added.
 */
export function recipientComparisons(
  head: CampaignFiles | undefined,
  base: CampaignFiles | undefined,
  baseGiven: boolean,
  kept: Map<string, BaseRowsKept | undefined>,
  showPersonalData: boolean,
): Map<string, Promise<RecipientChanges>> {
  const comparisons = new Map<string, Promise<RecipientChanges>>();
  if (!baseGiven) return comparisons;
  const heads = campaignsByName(head);
  const bases = campaignsByName(base);
  for (const name of new Set([...heads.keys(), ...bases.keys()])) {
    const baseSide = sideOf(base, bases.get(name), kept.get(name));
    const comparison = compareRecipients(baseSide, sideOf(head, heads.get(name)), { showPersonalData });
    // Awaited where the review takes it; a failure is the review's then, not an unhandled one now.
    comparison.catch(() => {});
    comparisons.set(name, comparison);
  }
  return comparisons;
}

/** Where a campaign's recipients come from at one side. */
export function sideOf(
  side: CampaignFiles | undefined,
  campaign: LoadedCampaign | undefined,
  rowsKept?: BaseRowsKept,
): RecipientsSide | undefined {
  if (!side || !campaign) return undefined;
  const { inline, keyColumn, ignoreColumns, identityField, delimiter } = campaign.document.spec.recipients;
  const options = { keyColumn, ignoreColumns, identityField, list: recipientListOf(campaign), rowsKept };
  if (campaign.recipientsFile !== undefined) {
    return {
      source: {
        file: campaign.recipientsFile,
        root: side.fileRoot,
        ...(delimiter !== undefined ? { delimiter } : {}),
      },
      shownAs: path.relative(side.root, campaign.recipientsFile),
      ...options,
    };
  }
  return {
    source: { inline: inline ?? [] },
    shownAs: `inline in ${path.relative(side.root, campaign.file)}`,
    ...options,
  };
}
