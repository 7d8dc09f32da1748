/**
 * What a campaign's draft will hold after the change: each recipient the order holds now and the
 * change leaves as it is keeps its fate there (accepted, or dropped), and every other one is judged
 * by the service's address rules (predicted-drops.ts), as `pulumi up` will send it. Rows and
 * reasons only: no name or address.
 */

import { surveyList } from "../../provider/campaign/recipients-check";
import {
  DEFAULT_IDENTITY_FIELD,
  DropTally,
  decodeIndex,
  isAccepted,
  type PredictedDrops,
  type RecipientIndex,
} from "../../provider/recipients/index";
import type { RecipientsSide } from "./recipients";

/** The reason given a recipient dropped on the draft now that the change leaves as it is. */
export const STILL_DROPPED = "unchanged since dropped";

/**
 * The predicted accepted and dropped recipients of the head's list, given the deployed
 * OrderRecipients' outputs (its index of keys and fates) when there is one; undefined when the list
 * has problems (the validation reports them).
 */
export async function predictDraft(
  head: RecipientsSide,
  deployed: Record<string, unknown> | undefined,
): Promise<PredictedDrops | undefined> {
  // A list read without content digests has no set: read again here.
  const list =
    (head.list?.set !== undefined ? head.list : undefined) ??
    (await surveyList(head.source, {
      identityField: head.identityField ?? DEFAULT_IDENTITY_FIELD,
      ...(head.keyColumn !== undefined ? { keyColumn: head.keyColumn } : {}),
      ...(head.ignoreColumns !== undefined ? { ignoreColumns: head.ignoreColumns } : {}),
    })
      .then(({ loaded, list }) => (loaded.problemCount > 0 ? undefined : list))
      .catch(() => undefined));
  const set = list?.set;
  if (!list || !set) return undefined;
  // Under another key column or identity field every recipient is sent again: nothing is kept.
  const sameIdentity =
    deployed?.keyColumn === head.keyColumn &&
    (deployed?.identityField ?? DEFAULT_IDENTITY_FIELD) === (head.identityField ?? DEFAULT_IDENTITY_FIELD);
  let index: RecipientIndex | undefined;
  try {
    if (sameIdentity && typeof deployed?.index === "string")
      index = decodeIndex(deployed.index, head.keyColumn !== undefined);
  } catch {
    // An index this version cannot read: every recipient is judged by the rules alone.
  }
  const tally = new DropTally();
  // The reason the rules give each recipient was found as the list was read (RecipientList.survey).
  for (const { row, key, content, tag } of set.tagged()) {
    const reason = tag > 0 ? list.dropReasons[tag - 1] : undefined;
    const now = index?.get(key);
    if (now !== undefined && now.content === content)
      // Dropped now and unchanged: dropped again, for the rules' reason when they give one.
      tally.add(row, isAccepted(now.id) ? undefined : (reason ?? STILL_DROPPED));
    else tally.add(row, reason);
  }
  return tally.result;
}
