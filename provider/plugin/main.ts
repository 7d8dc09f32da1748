/**
 * `pulumi-resource-directmail`: the provider plugin Pulumi starts for `directmail:index:*`
 * resources (from PATH or its plugin folder). It serves the gRPC ResourceProvider contract on a
 * loopback port and prints the port, which is how the engine finds it.
 */
import type * as grpc from "@grpc/grpc-js";
import { installInProvider } from "../runtime";
import { showProgressThroughEngine } from "./engine-log";
import { sdkModule } from "./sdk";
import { resourceProviderService } from "./server";

export async function main(args: readonly string[]): Promise<void> {
  if (args.length === 0) {
    console.error(
      "pulumi-resource-directmail is started by Pulumi with the engine's address; it is not run by hand.",
    );
    process.exitCode = 1;
    return;
  }
  // The plugin's process: the runtime's patches (docs/architecture.md, "The runtime's patches").
  installInProvider(false);
  const grpcJs = sdkModule<typeof grpc>("@grpc/grpc-js");
  const { ResourceProviderService } = sdkModule<{ ResourceProviderService: grpc.ServiceDefinition }>(
    "@pulumi/pulumi/proto/provider_grpc_pb",
  );
  const engineAddress = engineAddressOf(args);
  if (engineAddress) showProgressThroughEngine(engineAddress);
  const { packageSchemaText } = await import("./schema.js");
  let schema: string | undefined;
  const server = new grpcJs.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(
    ResourceProviderService,
    resourceProviderService(() => {
      schema ??= packageSchemaText();
      return schema;
    }, engineAddress) as unknown as grpc.UntypedServiceImplementation,
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpcJs.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  console.log(String(port));
}

/** The engine's address among the arguments Pulumi starts a plugin with (as the SDK's provider.main reads them). */
function engineAddressOf(args: readonly string[]): string | undefined {
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--tracing") i++;
    else if (arg !== "--logtostderr" && !arg.startsWith("-v=")) rest.push(arg);
  }
  return rest[0];
}
