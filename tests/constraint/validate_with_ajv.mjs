// Validates sampled answers against their schemas with ajv (an independent JSON Schema
// validator, with ajv-formats for `format`; patterns compiled with the u flag, ajv's default):
// node validate_with_ajv.mjs SCHEMAS.json SAMPLES.jsonl
// Each sample line: {"schema": index into SCHEMAS, "kind": "constrained"|..., "text": answer}.
// Prints the first failures of each kind, then "ajv KIND valid N invalid M" per kind.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fs from "node:fs";

const schemas = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);  // "full" mode: date checks the days of the month (and leap years), time the ranges
const validators = schemas.map((s) => ajv.compile(s));
const lines = fs.readFileSync(process.argv[3], "utf8").split("\n").filter((l) => l.length > 0);
const tally = {};
for (const line of lines) {
  const sample = JSON.parse(line);
  const t = (tally[sample.kind] ??= { valid: 0, invalid: 0, shown: 0 });
  let ok = false;
  let why = "";
  try {
    const validate = validators[sample.schema];
    ok = validate(JSON.parse(sample.text));
    if (!ok) why = ajv.errorsText(validate.errors);
  } catch (e) {
    why = "not JSON: " + e.message;
  }
  if (ok) {
    t.valid++;
  } else {
    t.invalid++;
    if (t.shown++ < 3) console.log(`${sample.kind}, schema ${sample.schema}: ${why}: ${sample.text.slice(0, 160)}`);
  }
}
for (const [kind, t] of Object.entries(tally)) console.log(`ajv ${kind} valid ${t.valid} invalid ${t.invalid}`);
