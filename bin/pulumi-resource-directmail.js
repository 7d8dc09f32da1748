#!/usr/bin/env node
// The Pulumi provider plugin of pulumi-directmail (directmail:index:* resources): Pulumi starts it
// from PATH or its plugin folder. See docs/resources.md, "The provider plugin".
require("../dist/provider/plugin/main.js")
  .main(process.argv.slice(2))
  .catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
