/**
 * The provider plugin's gRPC service: Pulumi's ResourceProvider contract, answered for every
 * directmail kind through the same hooks as the dynamic providers (`providerFor` of
 * resources/registry.ts). It is written on the contract itself, not on the SDK's `provider.main`,
 * because that server drops `detailedDiff` and reads request fields an import leaves unset.
 *
 * What the plugin adds to the hooks: the user's property names in every diff (resources/named-diff.ts), Read for
 * `pulumi import` (imports.ts), `customTimeouts` as a deadline on every request a hook sends, and
 * Cancel. The components (CampaignFolder, Campaign) are built by Construct (construct.ts,
 * components.ts).
 */
import type * as grpc from "@grpc/grpc-js";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { configure } from "../resources/context";
import type { ResourceKind } from "../resources/kinds";
import { namedDiff } from "../resources/named-diff";
import { providerFor } from "../resources/registry";
import { bounded } from "../resources/timeouts";
import { parseMonthlyBudget, resolveSettings } from "../settings";
import { packageVersion } from "../version";
import { asResource, urnOfRequest } from "./engine-log";
import { CONFIG_KEYS, kindOfPluginType, PLUGIN_PACKAGE } from "./kinds";
import { sdkModule } from "./sdk";

type Values = Record<string, unknown>;
type Hooks = ReturnType<typeof providerFor>;

const grpcJs = sdkModule<typeof grpc>("@grpc/grpc-js");
const StructClass = sdkModule<{ Struct: typeof Struct }>("google-protobuf/google/protobuf/struct_pb").Struct;
const { Empty } = sdkModule<{ Empty: new () => unknown }>("google-protobuf/google/protobuf/empty_pb");
const pluginProto = sdkModule<{ PluginInfo: new () => { setVersion(v: string): void } }>(
  "@pulumi/pulumi/proto/plugin_pb",
);

/** The marker a secret value carries in a Struct when the engine sends it wrapped. */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

function unwrapSecret(value: unknown): unknown {
  if (value && typeof value === "object" && (value as Values)[SIG_KEY] === SECRET_SIG)
    return (value as Values).value;
  return value;
}

/**
 * A value with every secret in it plain: the hooks take plain values. The plugin accepts secrets
 * (the engine requires it of a plugin that constructs components), and the engine marks secret
 * again each output whose input was.
 */
function revealed(value: unknown): unknown {
  const plain = unwrapSecret(value);
  if (Array.isArray(plain)) return plain.map(revealed);
  if (plain && typeof plain === "object")
    return Object.fromEntries(Object.entries(plain).map(([key, v]) => [key, revealed(v)]));
  return plain;
}

const toValues = (struct: Struct | undefined): Values =>
  struct ? (revealed(struct.toJavaScript()) as Values) : {};
const toStruct = (values: Values): Struct =>
  StructClass.fromJavaScript(
    JSON.parse(JSON.stringify(values)) as Parameters<typeof StructClass.fromJavaScript>[0],
  );

/** Pending work, so that Cancel can stop it. */
const cancelled = new AbortController();

/** A gRPC answer for a failed hook: an error with an id is a resource created that failed after. */
function failure(error: unknown): grpc.ServiceError {
  const e = error as Error & { id?: string; properties?: Values; reasons?: string[] };
  const metadata = new grpcJs.Metadata();
  if (e.id) {
    const status = sdkModule<{ Status: new () => StatusMessage }>("@pulumi/pulumi/proto/status_pb").Status;
    const { Any } = sdkModule<{ Any: new () => AnyMessage }>("google-protobuf/google/protobuf/any_pb");
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId(e.id);
    detail.setProperties(toStruct(e.properties ?? {}));
    detail.setReasonsList(e.reasons ?? []);
    const packed = new Any();
    packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const resp = new status();
    resp.setCode(grpcJs.status.UNKNOWN);
    resp.setMessage(e.message);
    resp.addDetails(packed);
    metadata.add("grpc-status-details-bin", Buffer.from(resp.serializeBinary()));
  }
  return Object.assign(new Error(e.message), { code: grpcJs.status.UNKNOWN, details: e.message, metadata });
}

interface StatusMessage {
  setCode(code: number): void;
  setMessage(message: string): void;
  addDetails(detail: AnyMessage): void;
  serializeBinary(): Uint8Array;
}
interface AnyMessage {
  pack(bytes: Uint8Array, name: string): void;
}

type Handler<Req, Res> = (
  call: { request: Req },
  callback: (error: grpc.ServiceError | null, value?: Res) => void,
) => void;

/** A server-streaming handler: it writes results to the call, or ends it with an error. */
type StreamHandler = (call: { emit(event: "error", error: grpc.ServiceError): void }) => void;

/**
 * A unary handler whose thrown error becomes the gRPC failure the engine shows under the resource;
 * the progress lines it writes are shown under that resource too (engine-log.ts).
 */
function unary<Req, Res>(answer: (request: Req) => Promise<Res>): Handler<Req, Res> {
  return (call, callback) => {
    asResource(urnOfRequest(call.request), () => answer(call.request)).then(
      (value) => callback(null, value),
      (error: unknown) => callback(failure(error)),
    );
  };
}

/**
 * An optional call of the ResourceProvider contract that this provider does not offer, answered as
 * the contract says: UNIMPLEMENTED, which the engine reads as "not supported" (for Handshake, Attach
 * and the mappings it then goes on without them). Invoke and Call would serve data functions and
 * methods, and List the resources of a type at the service, none of which the package declares in
 * its schema; the message says what it does serve.
 */
function notOffered(name: string): Handler<unknown, unknown> {
  return (_call, callback) => callback(notOfferedError(name));
}

/** List, a server stream, answered as notOffered: no result, then UNIMPLEMENTED. */
function notOfferedStream(name: string): StreamHandler {
  return (call) => call.emit("error", notOfferedError(name));
}

function notOfferedError(name: string): grpc.ServiceError {
  const message =
    `${name} is not offered by pulumi-resource-${PLUGIN_PACKAGE}: it serves the resources and ` +
    "components of its schema (docs/resources.md)";
  return Object.assign(new Error(message), {
    code: grpcJs.status.UNIMPLEMENTED,
    details: message,
    metadata: new grpcJs.Metadata(),
  });
}

/** The hooks of the kind a resource's type names. */
function hooksOf(type: string): { kind: ResourceKind; hooks: Hooks } {
  const kind = kindOfPluginType(type);
  if (!kind) throw new Error(`pulumi-resource-${PLUGIN_PACKAGE} has no resource type ${type}`);
  return { kind, hooks: providerFor(kind) };
}

/** The stack's `directmail:*` configuration, as the settings read it. */
function configReader(args: Values) {
  return {
    get(key: string): string | undefined {
      const name = key.startsWith(`${PLUGIN_PACKAGE}:`) ? key.slice(PLUGIN_PACKAGE.length + 1) : key;
      const value = unwrapSecret(args[name]);
      return value === undefined || value === null ? undefined : String(value);
    },
  };
}

/** The service's methods, by the names @grpc/grpc-js gives them. */
export function resourceProviderService(
  schema: () => string,
  engineAddress?: string,
): Record<string, Handler<never, unknown> | StreamHandler> {
  const P = provproto;
  return {
    getPluginInfo: unary(async () => {
      const info = new pluginProto.PluginInfo();
      info.setVersion(packageVersion());
      return info;
    }),
    getSchema: unary(async () => new P.GetSchemaResponse().setSchema(schema())),
    checkConfig: unary(async (req: provproto.CheckRequest) => {
      const news = toValues(req.getNews());
      const response = new P.CheckResponse().setInputs(req.getNews());
      try {
        parseMonthlyBudget(configReader(news).get("monthlyBudget"));
      } catch (error) {
        response.addFailures(
          new P.CheckFailure().setProperty("monthlyBudget").setReason((error as Error).message),
        );
      }
      return response;
    }),
    diffConfig: unary(async (req: provproto.DiffRequest) => {
      const olds = toValues(req.getOldInputs() ?? req.getOlds());
      const news = toValues(req.getNews());
      const changed = CONFIG_KEYS.filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
      return new P.DiffResponse()
        .setChanges(
          changed.length ? P.DiffResponse.DiffChanges.DIFF_SOME : P.DiffResponse.DiffChanges.DIFF_NONE,
        )
        .setDiffsList(changed);
    }),
    configure: unary(async (req: provproto.ConfigureRequest) => {
      configure(resolveSettings(configReader(toValues(req.getArgs()))));
      return new P.ConfigureResponse()
        .setAcceptsecrets(true)
        .setAcceptresources(false)
        .setSupportspreview(false)
        .setAcceptoutputs(false);
    }),
    check: unary(async (req: provproto.CheckRequest) => {
      const { hooks } = hooksOf(req.getType());
      const result = await hooks.check(toValues(req.getOlds()), toValues(req.getNews()));
      const response = new P.CheckResponse().setInputs(toStruct(result.inputs as Values));
      for (const f of result.failures ?? [])
        response.addFailures(new P.CheckFailure().setProperty(f.property).setReason(f.reason));
      return response;
    }),
    diff: unary(async (req: provproto.DiffRequest) => {
      const { hooks } = hooksOf(req.getType());
      const news = toValues(req.getNews());
      const oldInputs = toValues(req.getOldInputs());
      const result = await hooks.diff(req.getId(), toValues(req.getOlds()), news);
      const response = new P.DiffResponse();
      const named = namedDiff(oldInputs, news, result);
      if (!named.changes) return response.setChanges(P.DiffResponse.DiffChanges.DIFF_NONE);
      response.setChanges(P.DiffResponse.DiffChanges.DIFF_SOME);
      response.setReplacesList(named.replaces);
      response.setDeletebeforereplace(Boolean(result.deleteBeforeReplace));
      response.setDiffsList(Object.keys(named.detailed));
      response.setHasdetaileddiff(true);
      const detail = response.getDetaileddiffMap();
      for (const [key, change] of Object.entries(named.detailed)) {
        detail.set(key, new P.PropertyDiff().setKind(P.PropertyDiff.Kind[change]).setInputdiff(true));
      }
      return response;
    }),
    create: unary(async (req: provproto.CreateRequest) => {
      const { kind, hooks } = hooksOf(req.getType());
      const result = await bounded(
        kind,
        "create",
        req.getTimeout(),
        () => hooks.create(toValues(req.getProperties())),
        cancelled.signal,
      );
      return new P.CreateResponse().setId(result.id).setProperties(toStruct(result.outs));
    }),
    read: unary(async (req: provproto.ReadRequest) => {
      const { kind, hooks } = hooksOf(req.getType());
      const props = toValues(req.getProperties());
      const inputs = toValues(req.getInputs());
      const response = new P.ReadResponse();
      // No state and no inputs: an import (`pulumi import` or the `import:` option), imports.ts.
      if (Object.keys(props).length === 0 && Object.keys(inputs).length === 0) {
        const { readForImport } = await import("./imports.js");
        const found = await readForImport(kind, req.getId(), hooks);
        return response
          .setId(found.id)
          .setProperties(toStruct(found.state))
          .setInputs(toStruct(found.inputs));
      }
      const result = await hooks.read(req.getId(), props);
      if (result.id === undefined) return response; // gone at the service: it leaves the stack
      return response
        .setId(result.id)
        .setProperties(toStruct((result.props ?? {}) as Values))
        .setInputs(toStruct(inputs));
    }),
    update: unary(async (req: provproto.UpdateRequest) => {
      const { kind, hooks } = hooksOf(req.getType());
      const result = await bounded(
        kind,
        "update",
        req.getTimeout(),
        () => hooks.update(req.getId(), toValues(req.getOlds()), toValues(req.getNews())),
        cancelled.signal,
      );
      return new P.UpdateResponse().setProperties(toStruct(result.outs ?? {}));
    }),
    delete: unary(async (req: provproto.DeleteRequest) => {
      const { kind, hooks } = hooksOf(req.getType());
      await bounded(
        kind,
        "delete",
        req.getTimeout(),
        () => hooks.delete(req.getId(), toValues(req.getProperties())),
        cancelled.signal,
      );
      return new Empty();
    }),
    cancel: unary(async () => {
      cancelled.abort();
      return new Empty();
    }),
    list: notOfferedStream("List"),
    invoke: notOffered("Invoke"),
    call: notOffered("Call"),
    construct: unary(async (req: provproto.ConstructRequest) => {
      // Loaded only for a component: the other calls need neither the components nor the runtime.
      const { componentConstructor } = await import("./components.js");
      const { construct } = await import("./construct.js");
      return construct(req, engineAddress, componentConstructor(req.getType()));
    }),
    parameterize: notOffered("Parameterize"),
    handshake: notOffered("Handshake"),
    attach: notOffered("Attach"),
    getMapping: notOffered("GetMapping"),
    getMappings: notOffered("GetMappings"),
  } as Record<string, Handler<never, unknown> | StreamHandler>;
}
