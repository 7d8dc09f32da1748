/**
 * The plan and the state of a stack, through the Automation API: `pulumi preview`'s steps (one per
 * resource: create, update, delete, same, replace...) and its diagnostics, and the deployed
 * resources' outputs, each grouped under the campaign it belongs to.
 */
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import { pulumiMessage } from "../stack-settings";

/** The type of the `Campaign` component: its resource name is the campaign's `metadata.name`. */
export const CAMPAIGN_TYPE = "directmail:index:Campaign";
/** The component of a campaign file's `kind: Automation` document, reviewed as a campaign of that name. */
export const AUTOMATION_COMPONENT_TYPE = "directmail:index:Automation";
const GROUP_TYPES = new Set([CAMPAIGN_TYPE, AUTOMATION_COMPONENT_TYPE]);

export interface PlannedStep {
  op: string;
  urn: string;
  type: string;
  /** The resource's name (the last part of its URN). */
  name: string;
  /** The kind of a directmail resource (`Order`, `OrderRecipients`, `Checkout`, ...), else the type. */
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
  /** The kind of the resource it is about (see kindOf); undefined for the stack's own messages. */
  kind: string | undefined;
  campaign: string | undefined;
}

export interface PlanResult {
  steps: PlannedStep[];
  diagnostics: Diagnostic[];
  /** Set when the preview failed: what the pulumi CLI said. */
  failure: string | undefined;
}

export interface DeployedResource {
  urn: string;
  type: string;
  name: string;
  kind: string;
  campaign: string | undefined;
  outputs: Record<string, unknown>;
}

/** The name of a resource: the part of its URN after the last `::`. */
export function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** `pulumi-nodejs:dynamic/directmail:Order` → `Order`; a type of another package stays whole. */
export function kindOf(type: string): string {
  const match = /(?:^|[/:])directmail:(?:index:)?([A-Za-z]+)$/.exec(type);
  return match?.[1] ?? type;
}

/** The campaign a resource belongs to: its parent's name when the parent is a Campaign. */
function campaignOf(urn: string, type: string, parent: string | undefined): string | undefined {
  if (GROUP_TYPES.has(type)) return nameOf(urn);
  if (parent && GROUP_TYPES.has(typeOf(parent))) return nameOf(parent);
  return undefined;
}

/** The type of the resource a URN names: the last `$`-separated part of its type chain. */
function typeOf(urn: string): string {
  const parts = urn.split("::");
  const chain = parts[parts.length - 2] ?? "";
  return chain.slice(chain.lastIndexOf("$") + 1);
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
 * which campaign failed and still report the others.
 */
export async function previewPlan(stack: Stack): Promise<PlanResult> {
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
        kind: kindOf(pre.type),
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
        kind: urn ? kindOf(typeOf(urn)) : undefined,
        campaign: undefined,
      });
    }
  };
  let failure: string | undefined;
  try {
    await stack.preview({ onEvent });
  } catch (error) {
    failure = pulumiMessage(error);
  }
  // The campaign of a diagnostic is known once its resource's step is.
  for (const diagnostic of diagnostics) {
    const step = diagnostic.urn ? steps.get(diagnostic.urn) : undefined;
    diagnostic.campaign = step?.campaign ?? (diagnostic.urn ? campaignFromUrn(diagnostic.urn) : undefined);
  }
  return { steps: [...steps.values()], diagnostics, failure };
}

/**
 * The campaign of a resource from its URN alone: a resource directly under a Campaign is named
 * after it (`spring`, `spring-recipients`, `spring-checkout`, `spring-address-…`).
 */
function campaignFromUrn(urn: string): string | undefined {
  const parts = urn.split("::");
  const chain = (parts[parts.length - 2] ?? "").split("$");
  if (GROUP_TYPES.has(chain[chain.length - 1] ?? "")) return nameOf(urn);
  if (!GROUP_TYPES.has(chain[chain.length - 2] ?? "")) return undefined;
  const name = nameOf(urn);
  return name.replace(/-(recipients|checkout|address-[0-9a-f]+|search-[a-z0-9-]+)$/, "");
}

/** Inputs without the serialized provider (`__provider`), which is code, not data of the resource. */
function withoutProvider(inputs: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _provider, ...rest } = inputs;
  return rest;
}

/** The stack's deployed resources (its last state), each with its campaign. */
export async function deployedResources(
  stack: Pick<Stack, "name" | "exportStack">,
): Promise<DeployedResource[]> {
  let deployment: { deployment?: { resources?: unknown[] } };
  try {
    deployment = (await stack.exportStack()) as typeof deployment;
  } catch (error) {
    throw new Error(`cannot read the state of stack "${stack.name}": ${pulumiMessage(error)}`);
  }
  const resources = (deployment.deployment?.resources ?? []) as {
    urn: string;
    type: string;
    parent?: string;
    outputs?: Record<string, unknown>;
    delete?: boolean;
  }[];
  return resources
    .filter((r) => !r.delete)
    .map((r) => ({
      urn: r.urn,
      type: r.type,
      name: nameOf(r.urn),
      kind: kindOf(r.type),
      campaign: campaignOf(r.urn, r.type, r.parent),
      // Only what the review reads is kept: the export shows secrets (the provider's API key) in clear.
      outputs: pick(r.outputs ?? {}, OUTPUTS_READ),
    }));
}

/** The outputs the review reads from the state; nothing else leaves deployedResources. */
const OUTPUTS_READ = [
  "orderId",
  "status",
  "orderStatus",
  "acceptedCount",
  "droppedCount",
  "dropReasons",
  "droppedSample",
  "totalCharges",
  // OrderRecipients' index of keys (hashes) and fates, and how they are keyed: the prediction of a draft.
  "index",
  "keyColumn",
  "identityField",
] as const;

function pick(outputs: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(outputs, key)) picked[key] = outputs[key];
  return picked;
}
