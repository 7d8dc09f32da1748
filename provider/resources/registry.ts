/**
 * The registry of resource implementations, and `providerFor`, which the thin serialized provider
 * (thin-provider.ts) calls inside the dynamic provider's process, each time from the installed
 * package (through implementation.ts, the path stored in every stack's state).
 */
import type * as pulumi from "@pulumi/pulumi";
import { resolveSettings } from "../settings";
import { reported } from "./boundary";
import {
  type CheckResult,
  checkService,
  configure,
  context,
  type EngineValues,
  type ResourceImplementation,
  serviceChecked,
} from "./context";
import { fromEngineInputs, toEngineInputs } from "./engine-inputs";
import { exitWithEngine } from "./engine-watch";
import { KIND, type ResourceKind } from "./kinds";
import { encodeLongStringsInProviderHost } from "./long-strings";
import { hookEnded } from "./recipients/memory";
import { UserError } from "./user-error";

// Loaded by the first hook, inside the dynamic-provider process: that process must not outlive an
// engine that was killed.
exitWithEngine();
encodeLongStringsInProviderHost();

/** Inputs or a state as the user declared them, without the engine's bookkeeping property. */
function declared(values: EngineValues): EngineValues {
  const { __provider: _provider, ...rest } = values;
  return rest;
}

/** A kind's hooks on the engine's values (the registry's defaults stand in for those it lacks). */
type EngineHooks = Omit<ResourceImplementation<EngineValues, EngineValues>, "check"> & {
  check?(olds: EngineValues, news: EngineValues): Promise<CheckResult<EngineValues>>;
};

/**
 * The hooks of `implementation` on the engine's values. The engine's values are untyped: this is
 * where they become the kind's inputs and outputs, the one place they are taken on trust. Inputs
 * are what `check` made of the declaration, stored in the engine's form (engine-inputs.ts); a state
 * is what `create`, `update` or `read` answered. Neither carries `__provider` to the hooks.
 */
function engineHooks<Inputs extends EngineValues, Outputs extends EngineValues>(
  kind: string,
  implementation: ResourceImplementation<Inputs, Outputs>,
): EngineHooks {
  const { check, diff, create, read, update, delete: remove } = implementation;
  const inputs = (stored: EngineValues) => declared(fromEngineInputs(kind, stored)) as Inputs;
  const state = (stored: EngineValues) => declared(stored) as Outputs;
  return {
    create: (stored) => create(inputs(stored)),
    ...(check && {
      // No inputs stored: a resource still to be created.
      check: (olds, news) => {
        const before = inputs(olds);
        return check(Object.keys(before).length === 0 ? undefined : before, declared(news));
      },
    }),
    ...(diff && { diff: (id, olds, stored) => diff(id, state(olds), inputs(stored)) }),
    ...(read && { read: (id, props) => read(id, state(props)) }),
    ...(update && { update: (id, olds, stored) => update(id, state(olds), inputs(stored)) }),
    ...(remove && { delete: (id, props) => remove(id, state(props)) }),
  };
}

/**
 * Each kind's hooks, loaded when the engine first asks for that kind: a stack of campaigns uses three
 * kinds of eight, and the process loads only their modules (a `require` here, not an `import`).
 */
const implementations: Record<string, () => EngineHooks> = {
  [KIND.ProviderInfo]: () =>
    engineHooks(KIND.ProviderInfo, require("./provider-info/provider").providerInfoImplementation(context)),
  [KIND.Order]: () => engineHooks(KIND.Order, require("./order/provider").orderImplementation(context)),
  [KIND.OrderRecipients]: () =>
    engineHooks(
      KIND.OrderRecipients,
      require("./order-recipients/provider").orderRecipientsImplementation(context),
    ),
  [KIND.Checkout]: () =>
    engineHooks(KIND.Checkout, require("./checkout/provider").checkoutImplementation(context)),
  [KIND.AddressBookEntry]: () =>
    engineHooks(
      KIND.AddressBookEntry,
      require("./address-book-entry/provider").addressBookEntryImplementation(context),
    ),
  [KIND.Conversions]: () =>
    engineHooks(KIND.Conversions, require("./conversions/provider").conversionsImplementation(context)),
  [KIND.AutomationRecipients]: () =>
    engineHooks(
      KIND.AutomationRecipients,
      require("./automation-recipients/provider").automationRecipientsImplementation(context),
    ),
  [KIND.ProximitySearch]: () =>
    engineHooks(
      KIND.ProximitySearch,
      require("./proximity-search/provider").proximitySearchImplementation(context),
    ),
} satisfies Record<ResourceKind, () => EngineHooks>;
const loaded = new Map<string, EngineHooks>();

/** Kinds whose hooks never call the service: a silent service or a refused key is not theirs to report. */
const SERVICE_FREE_KINDS: ReadonlySet<string> = new Set([KIND.ProviderInfo]);

export function providerFor(kind: string): Required<pulumi.dynamic.ResourceProvider> {
  const load = Object.hasOwn(implementations, kind) ? implementations[kind] : undefined;
  const asksService = !SERVICE_FREE_KINDS.has(kind);
  const impl = (): EngineHooks => {
    if (load) {
      let hooks = loaded.get(kind);
      if (!hooks) {
        hooks = load();
        loaded.set(kind, hooks);
      }
      return hooks;
    }
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
    check: guarded("check", async (olds: EngineValues, news: EngineValues) => {
      const i = impl();
      const checked = i.check ? await i.check(olds, news) : { inputs: news };
      return { ...checked, inputs: toEngineInputs(kind, checked.inputs, news) };
    }),
    diff: guarded("diff", async (id: string, olds: EngineValues, stored: EngineValues) => {
      const i = impl();
      return i.diff
        ? i.diff(id, olds, stored)
        : {
            changes:
              JSON.stringify(declared(olds)) !== JSON.stringify(declared(fromEngineInputs(kind, stored))),
          };
    }),
    create: guarded("create", async (stored: EngineValues) => impl().create(stored)),
    read: guarded("read", async (id: string, props: EngineValues) => {
      const i = impl();
      return i.read ? i.read(id, props) : { id, props };
    }),
    update: guarded("update", async (id: string, olds: EngineValues, stored: EngineValues) => {
      const i = impl();
      if (!i.update) throw new UserError(`${kind} ${id} cannot be updated in place`);
      return i.update(id, olds, stored);
    }),
    delete: guarded("delete", async (id: string, props: EngineValues) => {
      const i = impl();
      if (i.delete) await i.delete(id, props);
    }),
  };
}
