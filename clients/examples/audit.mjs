// Audit an archive of hand records over REST, as `naipes audit` does without a server: NDJSON, a
// record a line, or {"id": ..., "record": ...}, or a {"batch": [...]} of these, from a file (one
// whose name ends in .gz read gunzipped) or stdin (`-`: a live feed too, `tail -f hands.ndjson |
// node audit.mjs -`). Each record's answer is printed
// as a line as it comes, in order, as the service's stream answers a record: {"id": ..., "result":
// ...} or {"id": ..., "error": {"code", "field", "message"}}, without "id" when the record has none
// (a batch's records a line each; a line that is not JSON is answered here, MALFORMED_JSON naming
// its line); then on stderr how many records were valid, broke a rule or were not validated. The exit code is the worst record's, as `naipes
// audit`'s: 0 all valid, 1 a violation, 2 a record not well formed; 3 no answer (the server
// unreachable or silent past the timeout, or its INTERNAL error), the answers before it printed.
// Through naipes.mjs's validateHandsStream: one request's records and answers held at a time,
// whatever the archive's length. It sends records, not the lines themselves: a line's own
// "omitEvents" is not read (--omit-events is, for every record), and the fields of a line beside
// its record and id are not checked, where naipes audit answers them as the service does.
//   node clients/examples/audit.mjs hands.ndjson [http://127.0.0.1:8080] [--omit-events]
import { once } from "node:events";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { Naipes, NaipesError } from "../js/naipes.mjs";

const NO_ANSWER = new Set(["UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL"]);
const args = process.argv.slice(2);
const omitEvents = args.includes("--omit-events");
const [file, baseUrl = "http://127.0.0.1:8080", ...extra] = args.filter((arg) => arg !== "--omit-events");
if (!file || extra.length) {
  console.error("usage: audit.mjs ARCHIVE.ndjson|- [http://HOST:PORT] [--omit-events]");
  process.exit(2);
}

const read = file === "-" ? process.stdin : createReadStream(file);
const input = file.endsWith(".gz") ? read.pipe(createGunzip()) : read;
for (const stream of new Set([read, input])) {
  stream.on("error", (error) => {
    console.error(`audit.mjs: cannot read ${file}: ${error.message}`);
    process.exit(2);
  });
}
const counts = { valid: 0, violation: 0, error: 0 };
let worst = 0;
const waiting = [];  // each line's entry not yet printed, in order: {id} a record sent, {id, error} answered here

async function print(entry) {
  if (entry.result) {
    counts[entry.result.valid ? "valid" : "violation"]++;
    worst = Math.max(worst, entry.result.valid ? 0 : 1);
  } else {
    counts.error++;
    worst = Math.max(worst, entry.error.code === "INTERNAL" ? 3 : 2);
  }
  if (!process.stdout.write(`${JSON.stringify(entry)}\n`)) await once(process.stdout, "drain");
}

/** The entries answered here that come next, printed. */
async function printAnswered() {
  while (waiting.length && waiting[0].error) await print(waiting.shift());
}

/** The archive's records, line by line, as they come. */
async function* records() {
  let number = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    number++;
    if (!line.trim()) continue;
    let data;
    try {
      data = JSON.parse(line);
    } catch (error) {
      waiting.push({ error: { code: "MALFORMED_JSON", message: `line ${number} is not valid JSON: ${error.message}` } });
      await printAnswered();  // (at once when every line before it has been answered)
      continue;
    }
    const message = isMessage(data);
    if (message && data.batch !== undefined && !Array.isArray(data.batch)) {  // (it was sent as a record, its id lost)
      waiting.push({ ...ident(data), error: { code: "INVALID_FIELD", field: "batch", message: `batch: expected a list, not ${JSON.stringify(data.batch)}` } });
      await printAnswered();
      continue;
    }
    if (message && data.record === undefined && !data.batch?.length) {  // ({"id": "b"} was sent as a record; {"batch": []} not answered)
      waiting.push({ ...ident(data), error: { code: "MISSING_FIELD", field: "record", message: "record is required" } });
      await printAnswered();
      continue;
    }
    for (const item of message && Array.isArray(data.batch) ? data.batch : [data]) {
      const wrapped = item?.record !== undefined && item.game === undefined;  // {"id", "record"}, or a record
      waiting.push(wrapped && item.id !== undefined ? { id: item.id } : {});
      yield wrapped ? item.record : item;
    }
  }
}

/** Whether a line's JSON is a message of the stream rather than a bare record, as the service
 *  reads it: an object without "game" holding any of its keys. */
function isMessage(data) {
  return data !== null && typeof data === "object" && !Array.isArray(data) && data.game === undefined
    && ["record", "batch", "id", "omitEvents"].some((key) => key in data);
}

/** {id} of a message whose id is a string (the service answers under it), else {}. */
function ident(data) {
  return typeof data.id === "string" ? { id: data.id } : {};
}

const start = performance.now();
try {
  for await (const answer of new Naipes(baseUrl).validateHandsStream(records(), { omitEvents })) {
    await printAnswered();
    await print({ ...waiting.shift(), ...answer });
  }
  await printAnswered();
} catch (error) {
  if (!(error instanceof NaipesError)) throw error;
  console.error(`${error.code}${error.field ? ` (${error.field})` : ""}: ${error.message}`);
  worst = NO_ANSWER.has(error.code) || /^HTTP_5/.test(error.code) ? 3 : Math.max(worst, 2);
}
const seconds = (performance.now() - start) / 1000;
const total = counts.valid + counts.violation + counts.error;
console.error(`audit.mjs: ${total} records in ${seconds.toFixed(1)} s (${Math.round(total / seconds || 0).toLocaleString("en-US")} a second): `
              + `${counts.valid} valid, ${counts.violation} with a violation, ${counts.error} not validated (an error entry)`);
process.exitCode = worst;
