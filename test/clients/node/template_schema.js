// Validates instances (JSON files) against the Template's shipped JSON Schema with ajv in
// strict mode, its defaults otherwise, and prints one line per instance: "valid FILE", or
// "invalid FILE" and then one "  PATH KEYWORD PARAMS" line per error.
// Usage: node template_schema.js SCHEMA.json INSTANCE.json...
"use strict";
const fs = require("fs");
const Ajv = require("ajv");

const ajv = new Ajv({ strict: true, allErrors: true });
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
for (const file of process.argv.slice(3)) {
  if (validate(JSON.parse(fs.readFileSync(file, "utf8")))) {
    console.log("valid " + file);
    continue;
  }
  console.log("invalid " + file);
  for (const e of validate.errors) {
    console.log("  " + (e.instancePath || "/") + " " + e.keyword + " " + JSON.stringify(e.params));
  }
}
