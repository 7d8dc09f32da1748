#!/usr/bin/env node
"use strict";
// The `directmail` command; the implementation is compiled TypeScript in dist/.
// It prints its own failures (one line, exit code 1).
require("../dist/cli/main.js").main(process.argv);
