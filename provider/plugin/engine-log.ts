/**
 * The hooks' progress lines on the plugin door. The engine hides what a provider plugin writes to
 * stderr (it passes on only a dynamic provider's), so the plugin sends each line to the engine's Log
 * service under the URN of the resource whose call wrote it: the user reads it on that resource's
 * line and in its diagnostics, as on the dynamic door.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type * as grpc from "@grpc/grpc-js";
import type * as engineProto from "@pulumi/pulumi/proto/engine_pb";
import { showProgressWith } from "../resources/progress";
import { sdkModule } from "./sdk";

/** The resource whose call is running, for the lines it writes, and those lines still on their way. */
interface CallOfResource {
  urn: string;
  sending: Set<Promise<void>>;
}
const resourceOfCall = new AsyncLocalStorage<CallOfResource>();

/**
 * Runs one call of the engine's with the URN it names (none for a call about no resource). The call
 * answers once its lines reached the engine: they show before the step's end, in the order of the
 * steps, never after the next resource's.
 */
export async function asResource<T>(urn: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!urn) return work();
  const call: CallOfResource = { urn, sending: new Set() };
  try {
    return await resourceOfCall.run(call, work);
  } finally {
    await Promise.all(call.sending);
  }
}

/** The URN a request of the ResourceProvider contract names, if it has one. */
export function urnOfRequest(request: unknown): string | undefined {
  const getUrn = (request as { getUrn?: () => string } | undefined)?.getUrn;
  return typeof getUrn === "function" ? getUrn.call(request) || undefined : undefined;
}

/**
 * Shows the progress lines through the engine at `engineAddress`. A line that cannot be sent (the
 * engine gone at the end of a run) goes to stderr, where the engine's debug log keeps it.
 */
export function showProgressThroughEngine(engineAddress: string): void {
  const grpcJs = sdkModule<typeof grpc>("@grpc/grpc-js");
  const proto = sdkModule<typeof engineProto>("@pulumi/pulumi/proto/engine_pb");
  const { EngineClient } = sdkModule<{
    EngineClient: new (
      address: string,
      credentials: grpc.ChannelCredentials,
    ) => {
      log(request: engineProto.LogRequest, callback: (error: grpc.ServiceError | null) => void): void;
    };
  }>("@pulumi/pulumi/proto/engine_grpc_pb");
  const engine = new EngineClient(engineAddress, grpcJs.credentials.createInsecure());
  showProgressWith((line) => {
    const call = resourceOfCall.getStore();
    const request = new proto.LogRequest()
      .setSeverity(proto.LogSeverity.INFO)
      .setMessage(line)
      .setUrn(call?.urn ?? "");
    const sent = new Promise<void>((resolve) =>
      engine.log(request, (error) => {
        if (error) process.stderr.write(`${line}\n`);
        resolve();
      }),
    );
    if (call) {
      call.sending.add(sent);
      void sent.then(() => call.sending.delete(sent));
    }
  });
}
