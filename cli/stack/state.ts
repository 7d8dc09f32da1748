/**
 * The deployed state of a stack, as `pulumi stack export` gives it (./pulumi.ts): its resources' outputs the CLI reads,
 * each grouped under the campaign it belongs to. `directmail review`, `status`, `report`, `orders`
 * and `scans` read a stack through it.
 */
import { isCampaignGroup, kindOfType, STATE_OUTPUTS, type StateOutput } from "../../provider/campaign/names";
import type { PulumiProject } from "./pulumi";
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

/**
 * The deployed resources (the last state) of the project's stack `stackName`, each with its
 * campaign. A secret output (a recipient index) is read only `withSecrets`: the state is decrypted
 * for the commands that use one, and no other.
 */
export async function deployedResources(
  stack: { pulumi: Pick<PulumiProject, "exportStack">; stackName: string },
  options: { withSecrets?: boolean } = {},
): Promise<DeployedResource[]> {
  let deployment: { deployment?: { resources?: unknown[] } };
  try {
    deployment = (await stack.pulumi.exportStack(stack.stackName, {
      showSecrets: options.withSecrets === true,
    })) as typeof deployment;
  } catch (error) {
    throw new Error(`cannot read the state of stack "${stack.stackName}": ${pulumiMessage(error)}`);
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
      // Only what the CLI reads is kept: an export with secrets shows them (the provider's API key)
      // in clear. A recipient index is a secret output (withSecretIndex), which the reader reveals.
      outputs: pick(r.outputs ?? {}, STATE_OUTPUTS),
    }));
}

function pick<K extends string>(
  outputs: Record<string, unknown>,
  keys: readonly K[],
): Partial<Record<K, unknown>> {
  const picked: Partial<Record<K, unknown>> = {};
  for (const key of keys) {
    if (!Object.hasOwn(outputs, key)) continue;
    const value = revealed(outputs[key]);
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

/** The key and value that mark a secret in a Pulumi state (the SDK's `specialSigKey` and `specialSecretSig`). */
const SECRET_SIGNATURE = ["4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"] as const;

/**
 * An output as the program saw it. A secret output (a recipient index: withSecretIndex) is exported,
 * with `--show-secrets`, as the secret's mark and its value as JSON text (`plaintext`); one still
 * encrypted (`ciphertext`), or whose text is not JSON, is not known here: undefined.
 */
export function revealed(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const marked = value as Record<string, unknown>;
  if (marked[SECRET_SIGNATURE[0]] !== SECRET_SIGNATURE[1]) return value;
  if (typeof marked.plaintext !== "string") return undefined;
  try {
    return JSON.parse(marked.plaintext);
  } catch {
    return undefined;
  }
}
