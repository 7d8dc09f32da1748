import type * as pulumi from "@pulumi/pulumi";

/**
 * The dynamic provider that Pulumi serializes into the state for every directmail resource.
 *
 * Pulumi stores the provider's code, closure and all, in the state (`__provider`), and `refresh`
 * and `destroy` run that stored copy. So this object captures nothing but the kind of resource.
 * Each method loads the implementation of the *installed* package when it runs, so a newer
 * package version serves old stacks too, no API key, client or schema lands in the state, and the
 * serialized text is the same on every machine (no absolute paths), so a checkout in another
 * folder shows no spurious change.
 */
export function thinProvider(kind: string): pulumi.dynamic.ResourceProvider {
  // One object per kind: Pulumi serializes a provider object once and reuses the text for every
  // resource given the same object, and serializing inspects the closure (tens of ms each).
  let provider = providers.get(kind);
  if (!provider) {
    provider = serializedProvider(kind);
    providers.set(kind, provider);
  }
  return provider;
}

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

function serializedProvider(kind: string): pulumi.dynamic.ResourceProvider {
  // Everything below is serialized as source text: keep it self-contained.
  const load = () => {
    const nodeModule = require("node:module");
    const nodePath = require("node:path");
    // The provider runs in the project's directory, where the package is installed (inside this
    // repository, package.json's self-reference finds it).
    const fromProject = nodeModule.createRequire(nodePath.join(process.cwd(), "__directmail__.js"));
    let implementation: { providerFor(kind: string): Required<pulumi.dynamic.ResourceProvider> };
    try {
      implementation = fromProject("pulumi-directmail/dist/provider/resources/implementation.js");
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === "MODULE_NOT_FOUND") {
        throw new Error(
          `pulumi-directmail is not installed for the project in ${process.cwd()}; ` +
            "run `npm install pulumi-directmail` there, then run the command again.",
        );
      }
      throw error;
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
