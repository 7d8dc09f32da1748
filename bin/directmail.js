#!/usr/bin/env node
"use strict";
// The `directmail` command; the implementation is compiled TypeScript in dist/.
require("../dist/cli/main.js")
  .main(process.argv)
  .catch((error) => {
    console.error(`directmail: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
