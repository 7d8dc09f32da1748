#!/usr/bin/env node
"use strict";
// The `directmail` command; the implementation is compiled TypeScript in dist/.
// It prints its own failures (one line, exit code 1).
// Node's compile cache (in the system's temporary folder) spares each later run compiling its modules again.
require("node:module").enableCompileCache?.();
require("../dist/cli/main.js").main(process.argv);
