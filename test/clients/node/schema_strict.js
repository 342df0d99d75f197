// Compiles a schema with ajv's defaults and nothing declared, as a user who has not read
// docs/parameters.md would, and prints what ajv says: the documented "unknown keyword" error.
// Usage: node schema_strict.js SCHEMA.json
"use strict";
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020");

try {
  new Ajv2020().compile(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
  console.log("compiled");
} catch (err) {
  console.log("refused: " + err.message);
}
