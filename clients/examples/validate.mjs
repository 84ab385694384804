// Validate a hand record file over REST and print the result; exit as `naipes validate`: 0 valid,
// 1 a violation, 2 a file that cannot be read as JSON or a request the service refused (its code,
// field and message on stderr), 3 no answer (the server unreachable or silent past the timeout,
// its INTERNAL error, or a proxy's HTTP 5xx page).
//   node clients/examples/validate.mjs clients/examples/rentoy-hand.json [http://127.0.0.1:8080]
import { readFile } from "node:fs/promises";
import { Naipes, NaipesError } from "../js/naipes.mjs";

const NO_ANSWER = new Set(["UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL"]);
const args = process.argv.slice(2);
if (args.length < 1 || args.length > 2) {
  console.error("usage: validate.mjs RECORD.json [http://HOST:PORT]");
  process.exit(2);
}
const [file, baseUrl = "http://127.0.0.1:8080"] = args;
let record;
try {
  record = JSON.parse(await readFile(file, "utf8"));
} catch (error) {
  console.error(`MALFORMED_JSON (${file}): ${error.message}`);
  process.exit(2);
}
if (record?.record !== undefined && record.game === undefined) record = record.record;  // an example file
try {
  const result = await new Naipes(baseUrl).validateHand(record);
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.valid ? 0 : 1;
} catch (error) {
  if (!(error instanceof NaipesError)) throw error;
  console.error(`${error.code}${error.field ? ` (${error.field})` : ""}: ${error.message}`);
  process.exitCode = NO_ANSWER.has(error.code) || /^HTTP_5/.test(error.code) ? 3 : 2;
}
