/**
 * Modules of the Pulumi SDK's own dependencies (@grpc/grpc-js, google-protobuf), loaded from where
 * the installed @pulumi/pulumi finds them: its generated gRPC service code loads the same copies,
 * and a user's project installs them only as the SDK's dependencies.
 */
import { createRequire } from "node:module";

const fromSdk = createRequire(require.resolve("@pulumi/pulumi/package.json"));

export function sdkModule<T>(name: string): T {
  return fromSdk(name) as T;
}
