// Builds the Pulumi CLI and this project's Node.js language host at the version of @pulumi/pulumi
// in package.json. scripts/ensure-pulumi.sh rewrites the two pulumi requirements when that
// version changes. The replace line repeats the one in pulumi/pkg's own go.mod.
module pulumi-directmail/tools/pulumi

go 1.25.11

require (
	github.com/pulumi/pulumi/pkg/v3 v3.259.0
	github.com/pulumi/pulumi/sdk/v3 v3.259.0
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
