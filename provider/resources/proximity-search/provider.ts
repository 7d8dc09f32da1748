/**
 * The provider hooks of `ProximitySearch` (resource.ts): one request of entry 16, checked against
 * the service's request schema first, so a broken rule names the field as the program spells it.
 */
import { ProximityRequest } from "../../api/schemas/integration";
import { formatPath } from "../../api/schemas/issues";
import { checkInputs, inputKeys, isUnknown } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { progress } from "../progress";
import { withTier } from "../tier";
import { UserError } from "../user-error";
import { ProximitySearchInputs } from "./inputs";
import type { ProximitySearchOutputs } from "./outputs";

const capital = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const lower = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

/** The request body: the service's names are the program's, capitalised (`Addresses[].DesiredCount`). */
export function proximityBody(inputs: ProximitySearchInputs): ProximityRequest {
  const { integrationOrderId: _id, addresses, ...rest } = inputs;
  const body: Record<string, unknown> = Object.fromEntries(
    Object.entries(rest)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [capital(k), v]),
  );
  body.Addresses = addresses.map(({ desiredCount, ...a }) => ({ ...a, DesiredCount: desiredCount }));
  return body as ProximityRequest;
}

/**
 * The request schema's problems, each naming the field as the program spells it. Reported without a
 * property, the path leading the reason: the engine would print an absent property's value as `{<nil>}`.
 */
export function proximityProblems(inputs: ProximitySearchInputs): { property: string; reason: string }[] {
  const parsed = ProximityRequest.safeParse(proximityBody(inputs));
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === "string" ? lower(p) : p));
    const message = issue.message.replace(/\bReturn(\w+)/g, "return$1");
    return { property: "", reason: path.length === 0 ? message : `${formatPath(path)}: ${message}` };
  });
}

const subject = (id: number) => `Integration order ${id}`;

export function proximitySearchImplementation(
  ctx: ProviderContext,
): ResourceImplementation<ProximitySearchInputs, ProximitySearchOutputs> {
  const read = async (id: number) => (await ctx.client().listIntegrationOrders()).find((o) => o.id === id);

  return {
    async check(_olds, news) {
      const checked = checkInputs(ProximitySearchInputs, news);
      if (checked.failures) return checked;
      if (Object.values(news).some(isUnknown)) return checked;
      const failures = proximityProblems(checked.inputs);
      return failures.length > 0 ? { inputs: news, failures } : checked;
    },

    async diff(_id, olds, news) {
      const changed = inputKeys(ProximitySearchInputs).filter(
        (key) => isUnknown(news[key]) || JSON.stringify(olds[key]) !== JSON.stringify(news[key]),
      );
      if (changed.length === 0) return { changes: false };
      throw new UserError(
        `Proximity search "${olds.name}" of ${subject(olds.integrationOrderId).toLowerCase()} ran at the service on ` +
          `${olds.requestedAt}: it cannot change (${changed.join(", ")}), as a search is paid and its pieces are mailed. ` +
          "Put the previous values back; for another search, declare a new ProximitySearch (another resource name).",
      );
    },

    async create(inputs) {
      const id = inputs.integrationOrderId;
      const order = await withTier(subject(id), "nothing was searched or mailed", () =>
        ctx.client().requestProximityMailing(id, proximityBody(inputs)),
      );
      progress(
        subject(id),
        `proximity search "${inputs.name}" accepted; the service discovers addresses and mails them ` +
          "(`pulumi refresh` shows when it is complete)",
      );
      const requestedAt = new Date().toISOString();
      return {
        id: `proximity-${id}-${Date.parse(requestedAt)}`,
        outs: {
          ...inputs,
          searchStatus: "Processing",
          recipientCount: order.recipientCount ?? null,
          requestedAt,
        } satisfies ProximitySearchOutputs,
      };
    },

    async read(id, props) {
      const order = await withTier(subject(props.integrationOrderId), "nothing was read", () =>
        read(props.integrationOrderId),
      );
      if (!order) {
        progress(
          subject(props.integrationOrderId),
          "no longer exists at the service: its proximity search leaves this stack",
        );
        return {};
      }
      const searchStatus = (order.pendingProximitySearches ?? 0) > 0 ? "Processing" : "Complete";
      return { id, props: { ...props, searchStatus, recipientCount: order.recipientCount ?? null } };
    },

    async delete(_id, props) {
      progress(
        subject(props.integrationOrderId),
        `proximity search "${props.name}" leaves this stack; the addresses it found stay queued (mailed pieces ` +
          "cannot be recalled), and nothing is sent to the service",
      );
    },
  };
}
