import type * as pulumi from "@pulumi/pulumi";

/**
 * The dynamic provider that Pulumi serializes into the state for every directmail resource.
 *
 * Pulumi stores the provider's code, closure and all, in the state (`__provider`), and `refresh`
 * and `destroy` run that stored copy. So this object captures nothing but two strings: the kind of
 * resource and, as a last resort, the path of the implementation at the time of the deployment.
 * Each method loads the implementation of the *installed* package when it runs, so a newer
 * package version fixes old stacks too, and no API key, client or schema lands in the state.
 */
export function thinProvider(kind: string, implementationPath: string): pulumi.dynamic.ResourceProvider {
  // Everything below is serialized as source text: keep it self-contained.
  const load = () => {
    const nodeModule = require("node:module");
    const nodePath = require("node:path");
    // Resolve from the program's directory, where the package is installed (or, inside this
    // repository, where package.json's self-reference finds it).
    const fromProgram = nodeModule.createRequire(nodePath.join(process.cwd(), "__directmail__.js"));
    let implementation: any;
    try {
      implementation = fromProgram("pulumi-directmail/dist/provider/resources/implementation.js");
    } catch (error: any) {
      if (error?.code !== "MODULE_NOT_FOUND" && error?.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw error;
      implementation = fromProgram(implementationPath);
    }
    return implementation.providerFor(kind);
  };
  return {
    configure: async (req) => load().configure(req),
    check: async (olds, news) => load().check(olds, news),
    diff: async (id, olds, news) => load().diff(id, olds, news),
    create: async (inputs) => load().create(inputs),
    read: async (id, props) => load().read(id, props),
    update: async (id, olds, news) => load().update(id, olds, news),
    delete: async (id, props) => load().delete(id, props),
  };
}
