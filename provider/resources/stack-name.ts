/**
 * The name of the stack the engine is running, for messages that give the exact command to run.
 *
 * The dynamic-provider process is told neither the stack nor the project (no variable, no
 * argument, no field of `configure`). The engine it serves, whose address is the process's
 * argument, answers `GetRootResource` with the stack resource's URN (`urn:pulumi:<stack>::…`)
 * once the program has registered it. A refresh runs no program: then the name is unknown.
 */
import { createRequire } from "node:module";

let asked: Promise<string | undefined> | undefined;

/** The stack's name, or undefined when the engine cannot tell (within half a second). */
export function engineStackName(): Promise<string | undefined> {
  asked ??= ask().catch(() => undefined);
  return asked;
}

async function ask(): Promise<string | undefined> {
  const address = process.argv[2];
  if (address === undefined || !/^[\w.-]+:\d+$/.test(address)) return undefined;
  // The engine's gRPC client is @pulumi/pulumi's, which hosts this process: resolved from it.
  const fromSdk = createRequire(require.resolve("@pulumi/pulumi"));
  const grpc = fromSdk("@grpc/grpc-js");
  const { EngineClient } = fromSdk("@pulumi/pulumi/proto/engine_grpc_pb");
  const { GetRootResourceRequest } = fromSdk("@pulumi/pulumi/proto/engine_pb");
  const client = new EngineClient(address, grpc.credentials.createInsecure());
  try {
    const urn = await new Promise<string>((resolve, reject) =>
      client.getRootResource(
        new GetRootResourceRequest(),
        { deadline: Date.now() + 500 },
        (error: Error | null, response: { getUrn(): string }) =>
          error ? reject(error) : resolve(response.getUrn()),
      ),
    );
    return /^urn:pulumi:([^:]+)::/.exec(urn)?.[1];
  } finally {
    client.close();
  }
}
