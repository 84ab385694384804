// Validate a hand record file over REST and print the result.
//   node clients/examples/validate.mjs clients/examples/rentoy-hand.json [http://127.0.0.1:8080]
import { readFile } from "node:fs/promises";
import { Naipes, NaipesError } from "../js/naipes.mjs";

const [file, baseUrl = "http://127.0.0.1:8080"] = process.argv.slice(2);
const record = JSON.parse(await readFile(file, "utf8"));
try {
  const result = await new Naipes(baseUrl).validateHand(record.record ?? record);
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.valid ? 0 : 1;
} catch (error) {
  if (!(error instanceof NaipesError)) throw error;
  console.error(`${error.code} (${error.field}): ${error.message}`);
  process.exitCode = 2;
}
