/**
 * The plugin's answer to each call of Pulumi's ResourceProvider contract, over gRPC as the engine
 * asks it: every call of the contract has a deliberate handler, and those the package does not
 * offer (data functions through Invoke, methods through Call, List, ...) answer UNIMPLEMENTED, which
 * the engine reads as "not supported", with a message naming what the plugin serves.
 */
import type * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkModule } from "../../../provider/plugin/sdk";
import { resourceProviderService } from "../../../provider/plugin/server";

const grpcJs = sdkModule<typeof grpc>("@grpc/grpc-js");
const { ResourceProviderService } = sdkModule<{ ResourceProviderService: grpc.ServiceDefinition }>(
  "@pulumi/pulumi/proto/provider_grpc_pb",
);
const provider = sdkModule<Record<string, new () => { serializeBinary(): Uint8Array }>>(
  "@pulumi/pulumi/proto/provider_pb",
);

const service = resourceProviderService(() => "{}");
let server: grpc.Server;
let client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;

beforeAll(async () => {
  server = new grpcJs.Server();
  server.addService(ResourceProviderService, service as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpcJs.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const Client = grpcJs.makeGenericClientConstructor(ResourceProviderService, "ResourceProvider");
  client = new Client(`127.0.0.1:${port}`, grpcJs.credentials.createInsecure()) as typeof client;
});

afterAll(() => {
  client?.close();
  server?.forceShutdown();
});

const NOT_OFFERED = {
  invoke: ["Invoke", "InvokeRequest"],
  call: ["Call", "CallRequest"],
  parameterize: ["Parameterize", "ParameterizeRequest"],
  handshake: ["Handshake", "ProviderHandshakeRequest"],
  attach: ["Attach", "PluginAttach"],
  getMapping: ["GetMapping", "GetMappingRequest"],
  getMappings: ["GetMappings", "GetMappingsRequest"],
} as const;

/** A unary call's error (or undefined when it succeeded). */
function unaryError(method: string, request: unknown): Promise<grpc.ServiceError | undefined> {
  return new Promise((resolve) => {
    (client[method] as (r: unknown, cb: (e: grpc.ServiceError | null) => void) => void).call(
      client,
      request,
      (error) => resolve(error ?? undefined),
    );
  });
}

describe("the plugin's ResourceProvider calls", () => {
  it("has a handler for every call of the contract, and none it does not define", () => {
    expect(Object.keys(service).sort()).toEqual(Object.keys(ResourceProviderService).sort());
  });

  for (const [method, [name, requestType]] of Object.entries(NOT_OFFERED)) {
    it(`answers ${name} UNIMPLEMENTED, naming what it serves`, async () => {
      const pluginProto = sdkModule<Record<string, new () => unknown>>("@pulumi/pulumi/proto/plugin_pb");
      const Request = provider[requestType] ?? pluginProto[requestType];
      const error = await unaryError(method, new (Request as new () => unknown)());
      expect(error?.code).toBe(grpcJs.status.UNIMPLEMENTED);
      expect(error?.details).toBe(
        `${name} is not offered by pulumi-resource-directmail: it serves the resources and components of its ` +
          "schema (docs/resources.md)",
      );
    });
  }

  it("answers List, a stream, UNIMPLEMENTED with no result", async () => {
    const results: unknown[] = [];
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      const stream = (client.list as (r: unknown) => grpc.ClientReadableStream<unknown>).call(
        client,
        new (provider.ListRequest as new () => unknown)(),
      );
      stream.on("data", (result) => results.push(result));
      stream.on("error", resolve);
    });
    expect(error.code).toBe(grpcJs.status.UNIMPLEMENTED);
    expect(error.details).toBe(
      "List is not offered by pulumi-resource-directmail: it serves the resources and components of its " +
        "schema (docs/resources.md)",
    );
    expect(results).toEqual([]);
  });
});
