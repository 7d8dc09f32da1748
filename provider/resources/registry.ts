/**
 * The registry of resource implementations, and `providerFor`, which the thin serialized provider
 * (thin-provider.ts) calls inside the dynamic provider's process, each time from the installed
 * package (through implementation.ts, the path stored in every stack's state).
 */
import type * as pulumi from "@pulumi/pulumi";
import { answerWithNames, hostRequestOf } from "../host-request";
import { memoryBudget } from "../memory-budget";
import { reported, reportedFailures } from "./boundary";
import {
  type CheckResult,
  checkService,
  configureFrom,
  context,
  type EngineValues,
  type ResourceImplementation,
  serviceChecked,
} from "./context";
import { fromEngineInputs, toEngineInputs, withPlainNames } from "./engine-inputs";
import { exitWithEngine } from "./engine-watch";
import { KIND, type ResourceKind } from "./kinds";
import { namedDiff } from "./named-diff";
import { bounded } from "./timeouts";
import { UserError } from "./user-error";

// Loaded by the first hook, inside the dynamic-provider process: that process must not outlive an
// engine that was killed.
exitWithEngine();

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
      // No inputs stored: a resource still to be created. The program's inputs for check alone by their names.
      check: (olds, news) => {
        const before = inputs(olds);
        return check(
          Object.keys(before).length === 0 ? undefined : before,
          declared(withPlainNames(kind, news)),
        );
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
 * kinds of eight, and the process loads only their modules.
 */
const implementations: Record<string, () => Promise<EngineHooks>> = {
  [KIND.ProviderInfo]: async () =>
    engineHooks(
      KIND.ProviderInfo,
      (await import("./provider-info/provider.js")).providerInfoImplementation(context),
    ),
  [KIND.Order]: async () =>
    engineHooks(KIND.Order, (await import("./order/provider.js")).orderImplementation(context)),
  [KIND.OrderRecipients]: async () =>
    engineHooks(
      KIND.OrderRecipients,
      (await import("./order-recipients/provider.js")).orderRecipientsImplementation(context),
    ),
  [KIND.Checkout]: async () =>
    engineHooks(KIND.Checkout, (await import("./checkout/provider.js")).checkoutImplementation(context)),
  [KIND.AddressBookEntry]: async () =>
    engineHooks(
      KIND.AddressBookEntry,
      (await import("./address-book-entry/provider.js")).addressBookEntryImplementation(context),
    ),
  [KIND.Conversions]: async () =>
    engineHooks(
      KIND.Conversions,
      (await import("./conversions/provider.js")).conversionsImplementation(context),
    ),
  [KIND.AutomationRecipients]: async () =>
    engineHooks(
      KIND.AutomationRecipients,
      (await import("./automation-recipients/provider.js")).automationRecipientsImplementation(context),
    ),
  [KIND.ProximitySearch]: async () =>
    engineHooks(
      KIND.ProximitySearch,
      (await import("./proximity-search/provider.js")).proximitySearchImplementation(context),
    ),
} satisfies Record<ResourceKind, () => Promise<EngineHooks>>;
const loaded = new Map<string, Promise<EngineHooks>>();

/** Kinds whose hooks never call the service: a silent service or a refused key is not theirs to report. */
const SERVICE_FREE_KINDS: ReadonlySet<string> = new Set([KIND.ProviderInfo]);

export function providerFor(kind: string): Required<pulumi.dynamic.ResourceProvider> {
  const load = Object.hasOwn(implementations, kind) ? implementations[kind] : undefined;
  const asksService = !SERVICE_FREE_KINDS.has(kind);
  const impl = (): Promise<EngineHooks> => {
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
  /** A hook under the `customTimeouts` the host's patch handed over with its values, if any. */
  const withinTimeout = <R>(values: EngineValues, operation: string, work: () => Promise<R>): Promise<R> =>
    bounded(kind, operation, hostRequestOf(values)?.timeoutSeconds ?? 0, work);
  // Every hook reports its failure through `reported`.
  const guarded =
    <A extends unknown[], R>(hook: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const memory = memoryBudget();
      try {
        memory.hookStarted();
        // A refused key or a silent service fails the first hook, before anything is planned.
        if (hook !== "configure" && asksService) await serviceChecked();
        return await run(...args);
      } catch (error) {
        throw reported(error, kind, hook);
      } finally {
        // Before the SDK encodes the answer: see runtime/memory.ts.
        memory.hookEnded();
      }
    };
  return {
    configure: guarded("configure", async (req: pulumi.dynamic.ConfigureRequest) => {
      await configureFrom(req.config);
      // Asked here, so its request precedes every hook's; a failure is the hooks' to report.
      if (asksService) await checkService();
    }),
    // The engine stores inputs in its own form (engine-inputs.ts); the hooks see them as checked.
    check: guarded("check", async (olds: EngineValues, news: EngineValues) => {
      const i = await impl();
      const checked = i.check ? await i.check(olds, news) : { inputs: news };
      return {
        ...checked,
        ...(checked.failures ? { failures: reportedFailures(checked.failures) } : {}),
        inputs: toEngineInputs(kind, checked.inputs, news),
      };
    }),
    diff: guarded("diff", async (id: string, olds: EngineValues, stored: EngineValues) => {
      const i = await impl();
      const result = i.diff
        ? await i.diff(id, olds, stored)
        : {
            changes:
              JSON.stringify(declared(olds)) !== JSON.stringify(declared(fromEngineInputs(kind, stored))),
          };
      // In Pulumi's dynamic-provider host, with its patch installed: the answer names what changed.
      const oldInputs = hostRequestOf(olds)?.oldInputs;
      if (!oldInputs) return result;
      const names = namedDiff(declared(oldInputs), declared(stored), result);
      return answerWithNames({ ...result, replaces: names.replaces }, names);
    }),
    create: guarded("create", async (stored: EngineValues) =>
      withinTimeout(stored, "create", async () => (await impl()).create(stored)),
    ),
    read: guarded("read", async (id: string, props: EngineValues) => {
      const i = await impl();
      return i.read ? i.read(id, props) : { id, props };
    }),
    update: guarded("update", async (id: string, olds: EngineValues, stored: EngineValues) => {
      const i = await impl();
      const update = i.update;
      if (!update) throw new UserError(`${kind} ${id} cannot be updated in place`);
      return withinTimeout(stored, "update", () => update(id, olds, stored));
    }),
    delete: guarded("delete", async (id: string, props: EngineValues) => {
      const i = await impl();
      const remove = i.delete;
      if (remove) await withinTimeout(props, "delete", () => remove(id, props));
    }),
  };
}
