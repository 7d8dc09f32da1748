/**
 * What Pulumi's dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`) leaves out between the
 * engine and the hooks, put back by patching the protobuf messages it reads and writes:
 * - a diff's answer names the changed properties (`diffs`, `detailedDiff`): the host forwards only
 *   "some changes", so `preview --json` showed no `diffReasons` and `replaceOnChanges` never
 *   matched. The hook's answer (registry.ts) hands its names over as the host reads its `changes`,
 *   and the host's next call, `setChanges` on its answer, writes them (host-request.ts);
 * - a diff's hook is given the stored inputs before (`old_inputs`), which the names are made from:
 *   the host gives it the old state alone;
 * - a create, update or delete is given its `customTimeouts` (`timeout`), which the host drops.
 * The values the host hands a hook are made by `toJavaScript()` of the request's Struct; that Struct
 * is given a `toJavaScript` that attaches the request's missing parts (host-request.ts).
 *
 * The host's shape is its own (`@pulumi/pulumi` 3.259.0, pinned): test/unit/runtime/library-shapes.test.ts
 * fails when the methods reached here change, and test/unit/runtime/host-requests.test.ts drives the
 * host's own diff and create with the patch installed.
 */
import { createRequire } from "node:module";
import { attachHostRequest, type HostRequest, takeDiffNames } from "../host-request";

interface StructLike {
  toJavaScript(): Record<string, unknown>;
}

type Getter = (this: RequestLike) => StructLike | undefined;

interface RequestLike {
  getOldInputs?(): StructLike | undefined;
  getTimeout?(): number;
}

interface PropertyDiffLike {
  setKind(kind: number): PropertyDiffLike;
  setInputdiff(input: boolean): PropertyDiffLike;
}

interface DiffResponseLike {
  setChanges(changes: number): DiffResponseLike;
  setDiffsList(names: string[]): DiffResponseLike;
  setHasdetaileddiff(has: boolean): DiffResponseLike;
  getDetaileddiffMap(): { set(key: string, value: PropertyDiffLike): unknown };
}

/** The provider messages of the SDK's `proto/provider_pb`, as far as the patch reaches. */
export interface ProviderMessages {
  DiffRequest?: { prototype: RequestLike & { getOlds: Getter } };
  CreateRequest?: { prototype: RequestLike & { getProperties: Getter } };
  UpdateRequest?: { prototype: RequestLike & { getNews: Getter } };
  DeleteRequest?: { prototype: RequestLike & { getProperties: Getter } };
  DiffResponse?: { prototype: DiffResponseLike; DiffChanges?: { DIFF_SOME?: number } };
  PropertyDiff?: (new () => PropertyDiffLike) & { Kind: Record<string, number> };
}

const PATCHED = Symbol.for("pulumi-directmail.hostRequests");

/** Has `getter` of a request give a Struct whose values carry what `extra` reads of the request. */
function patchGetter<Name extends string>(
  message: { prototype: RequestLike & Record<Name, Getter> },
  name: Name,
  extra: (request: RequestLike) => HostRequest,
): void {
  const original = message.prototype[name];
  if ((original as { [PATCHED]?: true })[PATCHED]) return;
  const patched: Getter = function (this: RequestLike) {
    const struct = original.call(this);
    if (!struct) return struct;
    return Object.assign(Object.create(struct) as StructLike, {
      toJavaScript: () => attachHostRequest(struct.toJavaScript(), extra(this)),
    });
  };
  Object.assign(patched, { [PATCHED]: true, original });
  (message.prototype as Record<Name, Getter>)[name] = patched;
}

/** Installs the patch on one copy of the provider messages; says whether every part was there. */
export function patchHostRequests(messages: ProviderMessages): boolean {
  const { DiffRequest, CreateRequest, UpdateRequest, DeleteRequest, DiffResponse, PropertyDiff } = messages;
  if (!DiffRequest || !CreateRequest || !UpdateRequest || !DeleteRequest || !DiffResponse || !PropertyDiff)
    return false;
  const getters = [
    DiffRequest.prototype.getOlds,
    DiffRequest.prototype.getOldInputs,
    CreateRequest.prototype.getProperties,
    CreateRequest.prototype.getTimeout,
    UpdateRequest.prototype.getNews,
    UpdateRequest.prototype.getTimeout,
    DeleteRequest.prototype.getProperties,
    DeleteRequest.prototype.getTimeout,
    DiffResponse.prototype.setChanges,
  ];
  if (getters.some((getter) => typeof getter !== "function")) return false;
  const timeout = (request: RequestLike): HostRequest => ({ timeoutSeconds: request.getTimeout?.() ?? 0 });
  patchGetter(DiffRequest, "getOlds", (request) => {
    const oldInputs = request.getOldInputs?.()?.toJavaScript();
    return oldInputs ? { oldInputs } : {};
  });
  patchGetter(CreateRequest, "getProperties", timeout);
  patchGetter(UpdateRequest, "getNews", timeout);
  patchGetter(DeleteRequest, "getProperties", timeout);

  const someChanges = DiffResponse.DiffChanges?.DIFF_SOME;
  if (someChanges === undefined) return false;
  const answer = DiffResponse.prototype;
  if (!(answer.setChanges as { [PATCHED]?: true })[PATCHED]) {
    const original = answer.setChanges;
    const setChanges = function (this: DiffResponseLike, changes: number) {
      const names = takeDiffNames();
      original.call(this, changes);
      // Names only for an answer of "some changes": a stray hand-over never reaches another answer.
      if (!names?.changes || changes !== someChanges) return this;
      this.setDiffsList(Object.keys(names.detailed));
      this.setHasdetaileddiff(true);
      const detail = this.getDetaileddiffMap();
      for (const [key, change] of Object.entries(names.detailed)) {
        const kind = PropertyDiff.Kind[change];
        if (kind !== undefined) detail.set(key, new PropertyDiff().setKind(kind).setInputdiff(true));
      }
      return this;
    };
    Object.assign(setChanges, { [PATCHED]: true, original });
    answer.setChanges = setChanges;
  }
  return true;
}

/**
 * In the dynamic-provider host: the patch on the provider messages the host reads and writes
 * (resolved from the host's own entry module). Elsewhere (`inHost` false: the plugin, a test):
 * nothing. Says whether it was installed; without it the hooks run as the host calls them.
 */
export function patchHostRequestsInProviderHost(
  inHost: boolean,
  entry: string | undefined = require.main?.filename,
): boolean {
  if (!entry || !inHost) return false;
  try {
    return patchHostRequests(createRequire(entry)("../../proto/provider_pb") as ProviderMessages);
  } catch {
    return false;
  }
}
