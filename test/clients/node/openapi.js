// Validates OpenAPI documents with swagger-parser as its users call it, default options:
// SwaggerParser.validate(file) checks Swagger 2.0 and OpenAPI 3.x against their schemas and
// resolves every $ref. Usage: node openapi.js FILE...; prints "valid: FILE (title, version,
// paths)" per document, or the first problem of each and exits 1.
"use strict";
const SwaggerParser = require("@apidevtools/swagger-parser");

async function main(files) {
  let failed = false;
  for (const file of files) {
    try {
      const api = await SwaggerParser.validate(file);
      const version = api.swagger ? "swagger " + api.swagger : "openapi " + api.openapi;
      console.log(`valid: ${file} (${version}, ${Object.keys(api.paths || {}).length} paths)`);
    } catch (err) {
      failed = true;
      console.log(`invalid: ${file}: ${err.message}`);
      for (const detail of (err.details || []).slice(0, 5)) {
        console.log("  " + JSON.stringify(detail).slice(0, 400));
      }
    }
  }
  process.exit(failed ? 1 : 0);
}

main(process.argv.slice(2));
