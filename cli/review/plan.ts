/**
 * The plan of a stack: `pulumi preview`'s steps (one per resource:
 * create, update, delete, same, replace...) and its diagnostics, each under the campaign it belongs
 * to. Only the review reads it; the deployed state is cli/stack/state.ts's.
 */
import { campaignOfChild, isCampaignGroup, kindOfType } from "../../provider/campaign/names";
import type { EngineEvent } from "../stack/pulumi";
import { pulumiMessage, type StackSelection } from "../stack/settings";
import { campaignOf, nameOf, typeOf } from "../stack/state";

export interface PlannedStep {
  op: string;
  urn: string;
  type: string;
  /** The resource's name (the last part of its URN). */
  name: string;
  /** The kind of a directmail resource (`Order`, `OrderRecipients`, `Checkout`, ...), else the type (kindOfType). */
  kind: string;
  /** The campaign whose component is the resource's parent; undefined for other resources. */
  campaign: string | undefined;
  newInputs: Record<string, unknown> | undefined;
  /** The resource has retainOnDelete: deleting it leaves the stack only. */
  retained: boolean;
}

export interface Diagnostic {
  severity: "info" | "warning" | "error";
  message: string;
  urn: string | undefined;
  /** The kind of the resource it is about (kindOfType); undefined for the stack's own messages. */
  kind: string | undefined;
  campaign: string | undefined;
}

export interface PlanResult {
  steps: PlannedStep[];
  diagnostics: Diagnostic[];
  /** Set when the preview failed: what the pulumi CLI said. */
  failure: string | undefined;
}

/** Diagnostics the user reads (Pulumi's own debug lines are left out). */
const SHOWN_SEVERITY: Record<string, Diagnostic["severity"]> = {
  info: "info",
  "info#err": "info",
  warning: "warning",
  error: "error",
};

/**
 * Runs `pulumi preview` on the stack and collects what it plans and says. A failed preview is not
 * thrown: its steps so far, its diagnostics and its failure are returned, so the review can say
 * which campaign failed and still report the others. `signal` stops it (its result is then of no use).
 */
export async function previewPlan(stack: StackSelection, signal?: AbortSignal): Promise<PlanResult> {
  const steps = new Map<string, PlannedStep>();
  const diagnostics: Diagnostic[] = [];
  const onEvent = (event: EngineEvent) => {
    const pre = event.resourcePreEvent?.metadata;
    if (pre) {
      const state = pre.new ?? pre.old;
      // A replacement shows as several steps of one resource (create-replacement, replace,
      // delete-replaced); the last one named `replace` wins.
      const known = steps.get(pre.urn);
      if (known && known.op === "replace") return;
      steps.set(pre.urn, {
        op: pre.op,
        urn: pre.urn,
        type: pre.type,
        name: nameOf(pre.urn),
        kind: kindOfType(pre.type),
        campaign: campaignOf(pre.urn, pre.type, state?.parent),
        newInputs: pre.new ? withoutProvider(pre.new.inputs) : undefined,
        retained: state?.retainOnDelete === true,
      });
      return;
    }
    const diagnostic = event.diagnosticEvent;
    const severity = diagnostic && SHOWN_SEVERITY[diagnostic.severity];
    if (diagnostic && severity) {
      const message = diagnostic.message.trim();
      if (message === "") return;
      const urn = diagnostic.urn || undefined;
      diagnostics.push({
        severity,
        message,
        urn,
        kind: urn ? kindOfType(typeOf(urn)) : undefined,
        campaign: undefined,
      });
    }
  };
  let failure: string | undefined;
  try {
    await stack.pulumi.preview(stack.stackName, onEvent, signal);
  } catch (error) {
    failure = pulumiMessage(error);
  }
  // The campaign of a diagnostic is that of the resource its URN names, known once its step is.
  // (The lines a dynamic provider prints on stderr reach the engine without a URN: they stay
  // the stack's, tied to no campaign.)
  for (const diagnostic of diagnostics) {
    const step = diagnostic.urn ? steps.get(diagnostic.urn) : undefined;
    diagnostic.campaign = step?.campaign ?? (diagnostic.urn ? campaignFromUrn(diagnostic.urn) : undefined);
  }
  return { steps: [...steps.values()], diagnostics, failure };
}

/**
 * The campaign of a resource from its URN alone: a resource directly under a Campaign (or an
 * Automation) is named after it by the naming contract (`spring`, `spring-recipients`, ...).
 */
function campaignFromUrn(urn: string): string | undefined {
  const parts = urn.split("::");
  const chain = (parts[parts.length - 2] ?? "").split("$");
  const type = chain[chain.length - 1] ?? "";
  if (isCampaignGroup(type)) return nameOf(urn);
  if (!isCampaignGroup(chain[chain.length - 2] ?? "")) return undefined;
  return campaignOfChild(kindOfType(type), nameOf(urn));
}

/** Inputs without the serialized provider (`__provider`), which is code, not data of the resource. */
function withoutProvider(inputs: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _provider, ...rest } = inputs;
  return rest;
}
