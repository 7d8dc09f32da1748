/**
 * The deployed state of a stack, through the Automation API: its resources' outputs the CLI reads,
 * each grouped under the campaign it belongs to. `directmail review`, `status`, `report`, `orders`
 * and `scans` read a stack through it.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { isCampaignGroup, kindOfType, STATE_OUTPUTS, type StateOutput } from "../../provider/campaign/names";
import { pulumiMessage } from "./settings";

export interface DeployedResource {
  urn: string;
  type: string;
  name: string;
  kind: string;
  campaign: string | undefined;
  /** The outputs the CLI reads (STATE_OUTPUTS of the naming contract); nothing else. */
  outputs: Partial<Record<StateOutput, unknown>>;
}

/** The name of a resource: the part of its URN after the last `::`. */
export function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** The campaign a resource belongs to: its parent's name when the parent is a Campaign (or an Automation). */
export function campaignOf(urn: string, type: string, parent: string | undefined): string | undefined {
  if (isCampaignGroup(type)) return nameOf(urn);
  if (parent && isCampaignGroup(typeOf(parent))) return nameOf(parent);
  return undefined;
}

/** The type of the resource a URN names: the last `$`-separated part of its type chain. */
export function typeOf(urn: string): string {
  const parts = urn.split("::");
  const chain = parts[parts.length - 2] ?? "";
  return chain.slice(chain.lastIndexOf("$") + 1);
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
      kind: kindOfType(r.type),
      campaign: campaignOf(r.urn, r.type, r.parent),
      // Only what the CLI reads is kept: the export shows secrets (the provider's API key) in clear.
      outputs: pick(r.outputs ?? {}, STATE_OUTPUTS),
    }));
}

function pick<K extends string>(
  outputs: Record<string, unknown>,
  keys: readonly K[],
): Partial<Record<K, unknown>> {
  const picked: Partial<Record<K, unknown>> = {};
  for (const key of keys) if (Object.hasOwn(outputs, key)) picked[key] = outputs[key];
  return picked;
}
