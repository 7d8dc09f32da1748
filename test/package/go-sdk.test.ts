/**
 * The Go SDK (sdk/go) and the Go example program (examples/go) compile and pass `go vet` against
 * github.com/pulumi/pulumi/sdk/v3 at the CLI's version, with only the committed go.mod and go.sum
 * (`-mod=readonly`: nothing is added on the way). Go's build cache keeps a second run to seconds.
 */
import * as path from "node:path";
import { expect, it } from "vitest";
import packageJson from "../../package.json";
import { repoRoot } from "../support/package";
import { goCommand, run } from "../support/sdks";

const env = { ...process.env, GOFLAGS: "-mod=readonly" };

it("sdk/go requires the sdk/v3 of the Pulumi CLI in use", async () => {
  const modules = await run(goCommand(), ["list", "-m", "github.com/pulumi/pulumi/sdk/v3"], {
    cwd: path.join(repoRoot, "sdk/go"),
    env,
  });
  expect(modules.trim()).toBe(
    `github.com/pulumi/pulumi/sdk/v3 v${packageJson.devDependencies["@pulumi/pulumi"]}`,
  );
});

// Minutes on a machine with an empty Go build cache (the Pulumi SDK compiles once).
for (const dir of ["sdk/go", "examples/go"]) {
  it(`${dir} builds and passes go vet`, { timeout: 900_000 }, async () => {
    const cwd = path.join(repoRoot, dir);
    await run(goCommand(), ["build", "-o", "/dev/null", "./..."], { cwd, env });
    await run(goCommand(), ["vet", "./..."], { cwd, env });
  });
}
