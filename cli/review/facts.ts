/**
 * What the review knows of each campaign (CampaignFacts, reviewed by model.ts): its files at the
 * base and the head, its plan's steps and diagnostics, its resources in the state, its order's
 * status, its recipients compared, the drops predicted and recorded, and, for a draft the change
 * touches, the service's price and proof.
 */
import * as path from "node:path";
import { analyticsOf } from "../../provider/api/order-entries";
import { ENTRY_STATUS_NOT_FOUND, type OrderAnalyticsEntry } from "../../provider/api/schemas/analytics";
import { isEditable } from "../../provider/api/schemas/order";
import { KIND } from "../../provider/campaign/names";
import type { DirectMailClient, LoadedCampaign } from "../../provider/index";
import { orderOfProgress } from "../../provider/resources/progress";
import { dropReportOf } from "../stack/drop-report";
import type { DeployedResource } from "../stack/state";
import { predictDraft } from "./drops";
import { type CampaignFiles, campaignsByName } from "./files";
import { actionsOf, type CampaignFacts, type CampaignReview, checkoutTerms, reviewCampaign } from "./model";
import type { PlanResult } from "./plan";
import { sideOf } from "./recipient-sides";
import type { RecipientChanges } from "./recipients";
import { mapLimited, orderStatus, quote, saveProof } from "./service";

/** Calls to the service at once (proofs are rendered by the service, one at a time is slow). */
const SERVICE_CONCURRENCY = 4;

export interface CampaignsInput {
  names: string[];
  head: CampaignFiles | undefined;
  base: CampaignFiles | undefined;
  /** Each campaign's recipients compared, when --base was given (recipientComparisons). */
  comparisons: Map<string, Promise<RecipientChanges>>;
  plan: PlanResult;
  state: DeployedResource[];
  /** The service; none for an offline review. */
  client: DirectMailClient | undefined;
  proofsDir: string;
  showPersonalData: boolean;
  /** Problems not tied to one campaign (an unreachable service) are added here, once each. */
  problems: string[];
}

export async function reviewCampaigns(input: CampaignsInput): Promise<CampaignReview[]> {
  const { head, base, plan, state, client } = input;
  const heads = campaignsByName(head);
  const bases = campaignsByName(base);
  const orderIds = new Map<string, number>();
  for (const r of state) {
    if (r.kind === KIND.Order && r.campaign && typeof r.outputs.orderId === "number")
      orderIds.set(r.campaign, r.outputs.orderId);
  }
  // A diagnostic with a URN is its resource's campaign's (plan.ts). The provider's progress lines
  // have none: each names its order, which is the campaign's by the state.
  const byOrder = new Map([...orderIds].map(([name, id]) => [id, name]));
  for (const d of plan.diagnostics) {
    if (d.campaign !== undefined) continue;
    const id = orderOfProgress(d.message);
    if (id !== undefined) d.campaign = byOrder.get(id);
  }
  const serviceProblem = (error: unknown) => {
    const message = `the service at ${client?.baseUrl} could not be asked: ${(error as Error).message}`;
    if (!input.problems.includes(message)) input.problems.push(message);
  };
  // Every order's status in a few requests (the analytics take a few hundred ids a request).
  let entries: Map<number, OrderAnalyticsEntry> | undefined;
  if (client !== undefined && orderIds.size > 0) {
    try {
      entries = await analyticsOf(client, orderIds.values());
    } catch (error) {
      serviceProblem(error);
    }
  }
  const statusOf = async (orderId: number): Promise<string | undefined> => {
    const entry = entries?.get(orderId);
    if (entry?.status === ENTRY_STATUS_NOT_FOUND) return undefined;
    // An entry without the status (the interface allows it): the order itself is asked.
    return entry?.orderStatus ?? (await orderStatus(client as DirectMailClient, orderId));
  };

  return mapLimited(input.names, SERVICE_CONCURRENCY, async (name) => {
    const headCampaign = heads.get(name);
    const baseCampaign = bases.get(name);
    const resources = state.filter((r) => r.campaign === name);
    const orderId = orderIds.get(name);
    const notes: string[] = [];
    let status: string | undefined;
    if (entries !== undefined && orderId !== undefined) {
      try {
        status = await statusOf(orderId);
        if (status === undefined) notes.push(`order ${orderId} of the stack no longer exists at the service`);
      } catch (error) {
        serviceProblem(error);
      }
    }
    const recipientChanges = await input.comparisons.get(name);
    const steps = plan.steps.filter((s) => s.campaign === name);
    const diagnostics = plan.diagnostics.filter((d) => d.campaign === name);
    const recipientsOutputs = resources.find((r) => r.kind === KIND.OrderRecipients)?.outputs;
    const headSide = sideOf(head, headCampaign);
    const checkout = resources.find((r) => r.kind === KIND.Checkout)?.outputs;
    const facts: CampaignFacts = {
      name,
      file: fileOf(headCampaign, head) ?? fileOf(baseCampaign, base),
      steps,
      diagnostics,
      // A preview that failed on one of the campaign's resources did not plan it whole.
      planned: steps.length > 0 && !diagnostics.some((d) => d.severity === "error"),
      offline: client === undefined,
      base: baseCampaign?.document,
      head: headCampaign?.document,
      orderId,
      orderStatus: status,
      deployedCheckout: checkout
        ? { totalCharges: typeof checkout.totalCharges === "number" ? checkout.totalCharges : null }
        : undefined,
      drops: recipientsOutputs ? dropReportOf(recipientsOutputs) : undefined,
      predicted: headSide ? await predictDraft(headSide, recipientsOutputs) : undefined,
      recipients: recipientChanges,
      quote: undefined,
      proof: undefined,
      notes,
    };
    const editable = client !== undefined && orderId !== undefined && isEditable(status);
    try {
      const terms = checkoutTerms(facts);
      const actions = actionsOf(facts);
      if (editable && terms && actions.includes("pay")) facts.quote = await quote(client, orderId, terms);
      // The proof of a draft the change touches: an unchanged draft's is the one its last review showed.
      if (editable && !actions.includes("no change")) {
        const proof = await saveProof(client, orderId, input.proofsDir, name);
        if ("note" in proof) notes.push(proof.note);
        else facts.proof = proof;
      }
    } catch (error) {
      serviceProblem(error);
    }
    return reviewCampaign(facts);
  });
}

function fileOf(campaign: LoadedCampaign | undefined, side: CampaignFiles | undefined): string | undefined {
  return campaign && side ? path.relative(side.root, campaign.file) : undefined;
}
