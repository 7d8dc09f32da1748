/**
 * Construct: how the plugin builds a component (`directmail:index:CampaignFolder`, `Campaign`) for
 * a Pulumi YAML program. The component runs here, as the TypeScript one runs in a program: it
 * registers itself and its resources through the engine's resource monitor, and its outputs go
 * back to the program. This is the SDK's own construct path (`Server.construct` of
 * @pulumi/pulumi/provider/server.js, which `provider.main` serves), built from the same runtime
 * pieces: the SDK does not export that server, and the plugin answers every other call itself.
 */
import type * as pulumi from "@pulumi/pulumi";
import type * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { sdkModule } from "./sdk";

type Inputs = Record<string, unknown>;

/** What a component of the plugin gives back: its URN and the outputs the program reads. */
export interface Constructed {
  urn: pulumi.Output<string>;
  state: Inputs;
}

/** A component the plugin builds: from its name, inputs (Outputs where the program gave them) and options. */
export type ComponentConstructor = (
  name: string,
  inputs: Inputs,
  opts: pulumi.ComponentResourceOptions,
) => Promise<Constructed>;

interface Runtime {
  settings: {
    resetOptions(...args: [string, string, number, string, string, boolean, string]): void;
    awaitFeatureSupport(): Promise<void>;
    waitForRPCs(): Promise<void>;
  };
  state: { withLocalStorage<T>(run: () => Promise<T>): Promise<T> };
  config: { setAllConfig(config: Record<string, string>, secretKeys?: string[]): void };
  rpc: {
    serializeResourceProperties(
      label: string,
      props: Inputs,
    ): Promise<[Inputs, Map<string, Set<pulumi.Resource>>]>;
  };
  server: { deserializeInputs(inputs: Struct | undefined, deps: unknown): Promise<Inputs> };
  resource: typeof pulumi & {
    DependencyResource: new (urn: string) => pulumi.Resource;
    DependencyProviderResource: new (ref: string) => pulumi.ProviderResource;
  };
}

let loaded: Runtime | undefined;
/** The SDK's runtime modules, loaded at the first Construct (the other calls need none of them). */
function runtime(): Runtime {
  loaded ??= {
    settings: sdkModule("@pulumi/pulumi/runtime/settings"),
    state: sdkModule("@pulumi/pulumi/runtime/state"),
    config: sdkModule("@pulumi/pulumi/runtime/config"),
    rpc: sdkModule("@pulumi/pulumi/runtime/rpc"),
    server: sdkModule("@pulumi/pulumi/provider/server"),
    resource: sdkModule("@pulumi/pulumi/resource"),
  };
  return loaded;
}

/** The options the program gave the component, as the SDK rebuilds them (the aliases given by URN). */
function optionsOf(req: provproto.ConstructRequest, rt: Runtime): pulumi.ComponentResourceOptions {
  const providers: Record<string, pulumi.ProviderResource> = {};
  for (const [pkg, ref] of req.getProvidersMap().entries())
    providers[pkg] = new rt.resource.DependencyProviderResource(ref);
  return {
    aliases: req
      .getAliasesList()
      .filter((alias) => alias.hasUrn())
      .map((alias) => alias.getUrn()),
    dependsOn: req.getDependenciesList().map((urn) => new rt.resource.DependencyResource(urn)),
    protect: req.getProtect() ?? false,
    providers,
    ...(req.getParent() ? { parent: new rt.resource.DependencyResource(req.getParent()) } : {}),
    ...(req.getRetainondelete() ? { retainOnDelete: true } : {}),
  };
}

/**
 * Answers a ConstructRequest: the SDK's runtime pointed at the engine's monitor for this program,
 * the component built, its outputs serialized with the resources each depends on, once every
 * registration it made has been sent.
 */
export function construct(
  req: provproto.ConstructRequest,
  engineAddress: string | undefined,
  build: ComponentConstructor,
): Promise<provproto.ConstructResponse> {
  const rt = runtime();
  const P = sdkModule<typeof provproto>("@pulumi/pulumi/proto/provider_pb");
  const StructClass = sdkModule<{ Struct: typeof Struct }>(
    "google-protobuf/google/protobuf/struct_pb",
  ).Struct;
  return rt.state.withLocalStorage(async () => {
    if (!engineAddress)
      throw new Error("pulumi-resource-directmail was started without the engine's address");
    rt.settings.resetOptions(
      req.getProject(),
      req.getStack(),
      req.getParallel(),
      engineAddress,
      req.getMonitorendpoint(),
      req.getDryrun(),
      req.getOrganization(),
    );
    await rt.settings.awaitFeatureSupport();
    rt.config.setAllConfig(Object.fromEntries(req.getConfigMap().entries()), req.getConfigsecretkeysList());
    const inputs = await rt.server.deserializeInputs(req.getInputs(), req.getInputdependenciesMap());
    const result = await build(req.getName(), inputs, optionsOf(req, rt));
    const label = `construct(${req.getType()}, ${req.getName()})`;
    const [state, dependencies] = await rt.rpc.serializeResourceProperties(label, result.state);
    const response = new P.ConstructResponse();
    response.setUrn(await (result.urn as unknown as { promise(): Promise<string> }).promise());
    const dependencyMap = response.getStatedependenciesMap();
    for (const [key, resources] of dependencies) {
      const urns = await Promise.all(
        [...resources].map((r) => (r.urn as unknown as { promise(): Promise<string> }).promise()),
      );
      dependencyMap.set(key, new P.ConstructResponse.PropertyDependencies().setUrnsList(urns));
    }
    response.setState(StructClass.fromJavaScript(state as Parameters<typeof StructClass.fromJavaScript>[0]));
    await rt.settings.waitForRPCs();
    return response;
  });
}
