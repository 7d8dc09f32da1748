// Test-only preload (`NODE_OPTIONS=--require <this file>`): each time a process opens a file whose
// path ends with DIRECTMAIL_COUNT_OPENS_OF, one line "<pid> <its script and arguments>" is appended
// to DIRECTMAIL_COUNT_OPENS_LOG, so a test can count the reads of that file per process.
"use strict";
const fs = require("node:fs");

const name = process.env.DIRECTMAIL_COUNT_OPENS_OF;
const log = process.env.DIRECTMAIL_COUNT_OPENS_LOG;
if (name && log) {
  const note = (file) => {
    if (String(file).endsWith(name))
      fs.appendFileSync(log, `${process.pid} ${process.argv.slice(1).join(" ")}\n`);
  };
  // Streams (createReadStream) open through fs.open; readFile and FileHandle through the others.
  for (const method of ["open", "openSync"]) {
    const original = fs[method];
    fs[method] = function (file, ...rest) {
      note(file);
      return original.call(this, file, ...rest);
    };
  }
  const open = fs.promises.open;
  fs.promises.open = function (file, ...rest) {
    note(file);
    return open.call(this, file, ...rest);
  };
  const readFile = fs.promises.readFile;
  fs.promises.readFile = function (file, ...rest) {
    note(file);
    return readFile.call(this, file, ...rest);
  };
  const readFileSync = fs.readFileSync;
  fs.readFileSync = function (file, ...rest) {
    note(file);
    return readFileSync.call(this, file, ...rest);
  };
}
