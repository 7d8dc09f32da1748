/**
 * Campaign files checked against the live account (lookups/order-check.ts): run by
 * `directmail validate --online` and by CampaignFolder before it declares anything. A finding is a
 * problem at the value it is about (`spec.order.templateId`, `spec.recipients.file`), reported like
 * the offline ones.
 */
import * as fs from "node:fs/promises";
import type { ServiceFacts } from "../lookups/facts";
import {
  type CheckedField,
  checkOrderOnline,
  type DeclaredRow,
  type FieldPresence,
} from "../lookups/order-check";
import { DEFAULT_IDENTITY_FIELD, recipientList } from "../recipients/index";
import { type LoadedCampaign, recipientListOf } from "./loader";
import type { CampaignProblem, Path } from "./problem";
import { type ParsedDocument, parseFile, positionOf } from "./yaml-document";

/** Checks every campaign (each checked offline already) against the account `facts` describes. */
export async function checkCampaignsOnline(
  campaigns: readonly LoadedCampaign[],
  facts: ServiceFacts,
): Promise<CampaignProblem[]> {
  const problems: CampaignProblem[] = [];
  const documents = new Map<string, Promise<ParsedDocument[]>>();
  for (const campaign of campaigns) {
    const { order, recipients } = campaign.document.spec;
    const findings = await checkOrderOnline(order, await declaredFieldsOf(campaign), facts);
    if (findings.length === 0) continue;
    let parsed = documents.get(campaign.file);
    if (!parsed) {
      parsed = fs.readFile(campaign.file, "utf8").then((text) => parseFile(campaign.file, text, []));
      documents.set(campaign.file, parsed);
    }
    const document = (await parsed).find((d) => d.index === campaign.documentIndex);
    const found: CampaignProblem[] = [];
    for (const finding of findings) {
      const at = pathOf(finding.field, recipients.file !== undefined);
      found.push({
        file: campaign.file,
        ...(document ? positionOf(document, at) : { line: 1, column: 1 }),
        message:
          finding.field === "recipients"
            ? `${at.join(".")}: ${finding.message}`
            : `spec.order.${finding.message}`,
      });
    }
    problems.push(...found.sort((a, b) => a.line - b.line || a.column - b.column));
  }
  return problems;
}

function pathOf(field: CheckedField, fromFile: boolean): Path {
  if (field !== "recipients") return ["spec", "order", field];
  return ["spec", "recipients", fromFile ? "file" : "inline"];
}

/**
 * What the loader read of the campaign's recipients (it checked them): the fields they fill in,
 * told as it read them once; read again only for a campaign loaded without them.
 */
async function declaredFieldsOf(campaign: LoadedCampaign): Promise<DeclaredRow[] | FieldPresence> {
  const fields = recipientListOf(campaign)?.fields;
  if (fields) return fields;
  const { recipients } = campaign.document.spec;
  const options = {
    identityField: recipients.identityField ?? DEFAULT_IDENTITY_FIELD,
    ...(recipients.keyColumn !== undefined ? { keyColumn: recipients.keyColumn } : {}),
    ...(recipients.ignoreColumns !== undefined ? { ignoreColumns: recipients.ignoreColumns } : {}),
  };
  const loaded = await recipientList(
    campaign.recipientsFile !== undefined
      ? {
          file: campaign.recipientsFile,
          ...(recipients.delimiter !== undefined ? { delimiter: recipients.delimiter } : {}),
        }
      : { inline: (recipients.inline ?? []) as unknown[] },
    options,
  ).load();
  return [...loaded.byKey.values()]
    .sort((a, b) => a.row - b.row)
    .map(({ row, recipient }) => ({ row, fields: recipient as Record<string, string | undefined> }));
}
