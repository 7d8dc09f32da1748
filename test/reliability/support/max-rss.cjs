// Preloaded (`node --require`) into a child process whose peak memory a test measures: at exit,
// writes the process's peak resident set size (KiB) and its CPU time (ms) to file descriptor 3, if
// the parent opened it.
"use strict";
const fs = require("node:fs");

process.on("exit", () => {
  try {
    const usage = process.resourceUsage();
    fs.writeSync(3, `${usage.maxRSS} ${(usage.userCPUTime + usage.systemCPUTime) / 1000}`);
  } catch {
    // No descriptor 3: nobody asked.
  }
});
