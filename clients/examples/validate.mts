// validate.mjs in TypeScript, typed by clients/js/naipes.d.mts: validate a hand record file over
// REST, print the result (and a summary of its fields on stderr) and exit as `naipes validate`
// (0 valid, 1 a violation, 2 a file that cannot be read as JSON or a request the service refused,
// 3 no answer). tests/test_js_types.py type-checks it with the tools of clients/js/package.json:
//   make js-tools && T=build/js-tools/node_modules && $T/.bin/tsc --strict --noEmit \
//     --module nodenext --typeRoots $T/@types --types node clients/examples/validate.mts
import { readFile } from "node:fs/promises";
import { Naipes, NaipesError, type HandRecord, type ValidationResult } from "../js/naipes.mjs";

const NO_ANSWER = new Set(["UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL"]);
const args = process.argv.slice(2);
if (args.length < 1 || args.length > 2) {
  console.error("usage: validate.mts RECORD.json [http://HOST:PORT]");
  process.exit(2);
}
const [file, baseUrl = "http://127.0.0.1:8080"] = args;
let record: HandRecord;
try {
  const data = JSON.parse(await readFile(file, "utf8"));
  record = data?.record !== undefined && data.game === undefined ? data.record : data;  // an example file
} catch (error) {
  console.error(`MALFORMED_JSON (${file}): ${(error as Error).message}`);
  process.exit(2);
}

/** One line per fact of the result: the verdict, the tricks, the money. */
function summary(result: ValidationResult): string[] {
  const lines = [`${result.game}: ${result.valid ? "valid" : "invalid"}${result.finished ? ", finished" : ""}`];
  if (result.violation) {
    const { action, code, message } = result.violation;
    lines.push(`action ${action ?? 0}: ${code}: ${message}`);
  }
  if (result.next) lines.push(`seat ${result.next.seat ?? 0} to act: ${result.next.legal.join(", ")}`);
  for (const trick of result.tricks) {
    lines.push(`trick led by ${trick.leader ?? 0}: ${(trick.cards ?? []).join(" ")}${trick.winner === undefined ? "" : ` won by ${trick.winner}`}`);
  }
  for (const payment of result.payments ?? []) {
    lines.push(`${payment.payer ?? "(scored)"} -> ${payment.payee}: ${payment.amount ?? 0} ${payment.reason}`);
  }
  if (result.table) lines.push(`table: ${JSON.stringify(result.table)}`);
  return lines;
}

try {
  const result = await new Naipes(baseUrl).validateHand(record);
  console.log(JSON.stringify(result, null, 2));
  console.error(summary(result).join("\n"));
  process.exitCode = result.valid ? 0 : 1;
} catch (error) {
  if (!(error instanceof NaipesError)) throw error;
  console.error(`${error.code}${error.field ? ` (${error.field})` : ""}: ${error.message}`);
  process.exitCode = NO_ANSWER.has(error.code) || /^HTTP_5/.test(error.code) ? 3 : 2;
}
