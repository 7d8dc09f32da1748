/**
 * The registry of resource implementations, and `providerFor`, which the thin serialized provider
 * (thin-provider.ts) calls inside the dynamic provider's process, each time from the installed
 * package (through implementation.ts, the path stored in every stack's state).
 */
import type * as pulumi from "@pulumi/pulumi";
import { resolveSettings } from "../settings";
import { addressBookEntryImplementation } from "./address-book-entry/provider";
import { automationRecipientsImplementation } from "./automation-recipients/provider";
import { reported } from "./boundary";
import { checkoutImplementation } from "./checkout/provider";
import { checkService, configure, context, type ResourceImplementation, serviceChecked } from "./context";
import { conversionsImplementation } from "./conversions/provider";
import { fromEngineInputs, toEngineInputs } from "./engine-inputs";
import { exitWithEngine } from "./engine-watch";
import { KIND, type ResourceKind } from "./kinds";
import { encodeLongStringsInProviderHost } from "./long-strings";
import { orderImplementation } from "./order/provider";
import { orderRecipientsImplementation } from "./order-recipients/provider";
import { providerInfoImplementation } from "./provider-info/provider";
import { proximitySearchImplementation } from "./proximity-search/provider";
import { hookEnded } from "./recipients/memory";
import { UserError } from "./user-error";

// Loaded by the first hook, inside the dynamic-provider process: that process must not outlive an
// engine that was killed.
exitWithEngine();
encodeLongStringsInProviderHost();

const implementations: Record<string, ResourceImplementation> = {
  [KIND.ProviderInfo]: providerInfoImplementation(context),
  [KIND.Order]: orderImplementation(context),
  [KIND.OrderRecipients]: orderRecipientsImplementation(context),
  [KIND.Checkout]: checkoutImplementation(context),
  [KIND.AddressBookEntry]: addressBookEntryImplementation(context),
  [KIND.Conversions]: conversionsImplementation(context),
  [KIND.AutomationRecipients]: automationRecipientsImplementation(context),
  [KIND.ProximitySearch]: proximitySearchImplementation(context),
} satisfies Record<ResourceKind, ResourceImplementation>;

/** Inputs as the user declared them, without the engine's bookkeeping property. */
function declared(inputs: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _provider, ...rest } = inputs;
  return rest;
}

/** Kinds whose hooks never call the service: a silent service or a refused key is not theirs to report. */
const SERVICE_FREE_KINDS: ReadonlySet<string> = new Set([KIND.ProviderInfo]);

export function providerFor(kind: string): Required<pulumi.dynamic.ResourceProvider> {
  const found = implementations[kind];
  const asksService = !SERVICE_FREE_KINDS.has(kind);
  const impl = (): ResourceImplementation => {
    if (found) return found;
    throw new UserError(
      `This version of pulumi-directmail has no resource kind "${kind}". ` +
        "Install the package version that created this resource, or remove it with `pulumi state delete`.",
    );
  };
  // Every hook reports its failure through `reported`.
  const guarded =
    <A extends unknown[], R>(hook: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        // A refused key or a silent service fails the first hook, before anything is planned.
        if (hook !== "configure" && asksService) await serviceChecked();
        return await run(...args);
      } catch (error) {
        throw reported(error, kind, hook);
      } finally {
        // Before the SDK encodes the answer: see recipients/memory.ts.
        hookEnded();
      }
    };
  return {
    configure: guarded("configure", async (req: pulumi.dynamic.ConfigureRequest) => {
      configure(resolveSettings(req.config));
      // Asked here, so its request precedes every hook's; a failure is the hooks' to report.
      if (asksService) await checkService();
    }),
    // The engine stores inputs in its own form (engine-inputs.ts); the hooks see them as checked.
    check: guarded("check", async (olds: any, news: any) => {
      const i = impl();
      const checked = i.check ? await i.check(fromEngineInputs(kind, olds), news) : { inputs: news };
      return checked.inputs ? { ...checked, inputs: toEngineInputs(kind, checked.inputs, news) } : checked;
    }),
    diff: guarded("diff", async (id: string, olds: any, stored: any) => {
      const i = impl();
      const news = fromEngineInputs(kind, stored);
      return i.diff
        ? i.diff(id, olds, news)
        : { changes: JSON.stringify(declared(olds)) !== JSON.stringify(declared(news)) };
    }),
    create: guarded("create", async (stored: any) => impl().create(fromEngineInputs(kind, stored))),
    read: guarded("read", async (id: string, props: any) => {
      const i = impl();
      return i.read ? i.read(id, props) : { id, props };
    }),
    update: guarded("update", async (id: string, olds: any, stored: any) => {
      const i = impl();
      if (!i.update) throw new UserError(`${kind} ${id} cannot be updated in place`);
      return i.update(id, olds, fromEngineInputs(kind, stored));
    }),
    delete: guarded("delete", async (id: string, props: any) => {
      const i = impl();
      if (i.delete) await i.delete(id, props);
    }),
  };
}
