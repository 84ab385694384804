// Validate a hand record over gRPC from Node.js and print the result JSON; exit as `naipes validate`:
// 0 valid, 1 a violation, 2 a file that cannot be read as JSON or a request the service refused
// (its code, field and message on stderr, read from the google.rpc.Status of the
// `grpc-status-details-bin` trailer), 3 no answer (the server unreachable or silent past the
// timeout, or its INTERNAL error). validate_grpc.py in Node.js: the same output and exit codes.
//
// With --stream, every file goes through one ValidateHands stream (bidirectional): each record is
// sent as the previous one is answered, and each answer is printed as it comes, a line of JSON, in
// order: {"result": ..., "id": FILE}, or {"id": FILE, "error": {"code", "field", "message"}} for
// a record that is not well formed (the stream goes on); the exit code is the worst of the
// records' (an error entry is 2).
//
//   cd clients/examples && npm ci    (once: package-lock.json; make node-grpc does the same)
//   node clients/examples/validate_grpc.mjs clients/examples/rentoy-hand.json [127.0.0.1:50051]
//   node clients/examples/validate_grpc.mjs --stream clients/examples/*-hand.json [--target 127.0.0.1:50051]
//
// The stubs come from protos/naipes/v1/naipes.proto as shipped, loaded at run time by
// @grpc/proto-loader, and each record's JSON goes to a message and each answer back to JSON
// through naipes_grpc.mjs (the mapping every RPC shares: naipes_grpc.mjs's `call`).
import { readFile } from "node:fs/promises";
import { NaipesError, TIMEOUT_MS, call, callError, connect, jsonToMessage, messageToJson, type } from "./naipes_grpc.mjs";

const NO_ANSWER = new Set(["UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN", "CANCELLED"]);

// --- The calls ----------------------------------------------------------------------------------
async function readRecord(file) {
  let record;
  try {
    record = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    console.error(`MALFORMED_JSON (${file}): ${error.message}`);
    process.exit(2);
  }
  return record?.record !== undefined && record.game === undefined ? record.record : record;  // an example file
}

function validateHand(client, record) {
  return call(client, "ValidateHand", { record });
}

// One ValidateHands stream: each record sent once the previous one is answered (the server
// answers a message as it comes); yields the answers in order, as JSON, each with its record's id.
// A record no message can hold is answered here, as the server answers a record it refuses.
async function* validateHands(client, named) {
  const call = client.ValidateHands();
  const answers = call[Symbol.asyncIterator]();
  try {
    for (const [id, record] of named) {
      let message;
      try {
        message = { id, record: jsonToMessage(type("naipes.v1.HandRecord"), record) };
      } catch (error) {
        if (!(error instanceof NaipesError)) throw error;
        yield { id, error: { code: error.code, field: error.field, message: error.message } };
        continue;
      }
      call.write(message);
      let timer;
      const silent = new Promise((_, reject) => { timer = setTimeout(() => reject(new NaipesError("DEADLINE_EXCEEDED", `no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS); });
      const next = await Promise.race([answers.next(), silent]).finally(() => clearTimeout(timer));
      if (next.done) throw new NaipesError("UNAVAILABLE", "the stream ended before every record was answered");
      const answer = messageToJson(type("naipes.v1.ValidateHandsResponse"), next.value);
      if (answer.id !== id) throw new NaipesError("INTERNAL", `answer ${JSON.stringify(answer.id)} for record ${JSON.stringify(id)}`);
      yield answer;
    }
    call.end();
  } catch (error) {
    call.cancel();
    throw error instanceof NaipesError ? error : error.code !== undefined ? callError(error) : error;
  }
}

const args = process.argv.slice(2);
try {
  if (args[0] === "--stream") {
    const files = args.slice(1);
    const at = files.indexOf("--target");
    const target = at >= 0 ? files.splice(at, 2)[1] : "127.0.0.1:50051";
    const named = [];
    for (const file of files) named.push([file, await readRecord(file)]);
    const naipes = connect(target);
    let status = 0;
    try {
      for await (const answer of validateHands(naipes, named)) {
        console.log(JSON.stringify(answer));
        status = Math.max(status, answer.error ? 2 : answer.result.valid ? 0 : 1);
      }
    } finally {
      naipes.close();
    }
    process.exitCode = status;
  } else {
    if (args.length < 1 || args.length > 2) {
      console.error("usage: validate_grpc.mjs RECORD.json [HOST:PORT] | --stream RECORD.json... [--target HOST:PORT]");
      process.exit(2);
    }
    const [file, target = "127.0.0.1:50051"] = args;
    const record = await readRecord(file);
    const naipes = connect(target);
    try {
      const result = await validateHand(naipes, record);
      console.log(JSON.stringify(result, null, 2));
      process.exitCode = result.valid ? 0 : 1;
    } finally {
      naipes.close();
    }
  }
} catch (error) {
  if (!(error instanceof NaipesError)) throw error;
  console.error(`${error.code}${error.field ? ` (${error.field})` : ""}: ${error.message}`);
  process.exitCode = NO_ANSWER.has(error.code) ? 3 : 2;
}
