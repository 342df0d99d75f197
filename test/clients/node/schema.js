// Compiles a template's parameter schema with ajv as docs/parameters.md tells users to: Ajv2020
// (the schema is draft 2020-12) with every option at its default, strict mode included, and
// Stencil's own keywords declared. Any warning ajv logs fails the run. Then validates each
// case's instance and prints one line per case: "accepted NAME", or "refused NAME KEYWORD..."
// with the keywords that failed.
// Usage: node schema.js SCHEMA.json CASES.json KEYWORD,...   (CASES: [{name, instance}])
"use strict";
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020");

const [schemaFile, casesFile, keywords] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));
const warnings = [];
const logger = {
  log: () => {},
  warn: (...args) => warnings.push(args.join(" ")),
  error: (...args) => warnings.push(args.join(" ")),
};
const ajv = new Ajv2020({ keywords: keywords.split(","), logger });
const validate = ajv.compile(schema);
if (warnings.length > 0) {
  console.log("ajv warned: " + warnings.join("; "));
  process.exit(1);
}
for (const c of cases) {
  if (validate(c.instance)) {
    console.log(`accepted ${c.name}`);
  } else {
    const failed = [...new Set(validate.errors.map((e) => e.keyword))].sort();
    console.log(`refused ${c.name} ${failed.join(",")}`);
  }
}
