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

/**
 * Everything below is serialized as source text, once per kind, into every resource's inputs and
 * outputs in the state: keep it self-contained, and small (its bytes are sent and stored twice a
 * resource, so comments stay out here). `load` runs in the project's directory, where the package
 * is installed (inside this repository, package.json's self-reference finds it).
 */
function serializedProvider(kind: string): pulumi.dynamic.ResourceProvider {
  const load = () => {
    const from = require("node:module").createRequire(`${process.cwd()}/_.js`);
    try {
      return from("pulumi-directmail/dist/provider/resources/implementation.js").providerFor(kind);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== "MODULE_NOT_FOUND") throw error;
      throw new Error(
        `pulumi-directmail is not installed for the project in ${process.cwd()}; run \`npm install pulumi-directmail\` there, then run the command again.`,
      );
    }
  };
  return {
    configure: (r) => load().configure(r),
    check: (o, n) => load().check(o, n),
    diff: (i, o, n) => load().diff(i, o, n),
    create: (n) => load().create(n),
    read: (i, p) => load().read(i, p),
    update: (i, o, n) => load().update(i, o, n),
    delete: (i, p) => load().delete(i, p),
  };
}
