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
// @grpc/proto-loader: it imports google/api/annotations.proto (from the npm package
// google-proto-files, which also has google/rpc/status.proto and error_details.proto for the
// error details) and google/protobuf/struct.proto (protobufjs has it too).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";
import googleProtoFiles from "google-proto-files";
import protobuf from "protobufjs";

const PROTOS = fileURLToPath(new URL("../../protos", import.meta.url));
const GOOGLE = dirname(googleProtoFiles.getProtoPath());  // the folder that holds google/api, google/rpc, google/protobuf
const NO_ANSWER = new Set(["UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN", "CANCELLED"]);
const TIMEOUT_MS = 10_000;

// The service, as grpc-js calls it: messages as plain objects, fields in lowerCamelCase, every
// field without presence at its default (a list as []), an `optional` field only when sent.
const OPTIONS = { keepCase: false, defaults: true, arrays: true, longs: String, enums: String, includeDirs: [PROTOS, GOOGLE] };
const definition = protoLoader.loadSync("naipes/v1/naipes.proto", OPTIONS);
const { NaipesService } = grpc.loadPackageDefinition(definition).naipes.v1;
// The same files read by protobufjs, for what the client does with the types: the record's JSON
// checked and the answer printed field by field, and the error details decoded.
const root = new protobuf.Root();
root.resolvePath = (origin, target) => {
  for (const dir of [PROTOS, GOOGLE]) {
    const path = `${dir}/${target}`;
    if (existsSync(path)) return path;
  }
  return protobuf.util.path.resolve(origin, target);
};
root.loadSync(["naipes/v1/naipes.proto", "google/rpc/status.proto", "google/rpc/error_details.proto"], { keepCase: false });
const type = (name) => root.lookupType(name);

class NaipesError extends Error {
  constructor(code, message, field = null) {
    super(message);
    Object.assign(this, { code, field });
  }
}

// --- JSON to a request message, checked against the schema -----------------------------------
// protobufjs's fromObject takes anything (an unknown field is dropped, "four" becomes 0), so a
// record is checked here first and refused, as the service refuses it over REST: INVALID_FIELD
// naming the field.
const INT32 = new Set(["int32", "sint32", "sfixed32"]);
// A string is quoted as the service quotes it (engine/errors.py, shown): in single quotes, escaped
// as Python's repr escapes a character (a backslash, a quote, one Python does not print), and a
// long one by its first 60 characters and its length.
const UNPRINTED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;  // (str.isprintable's, but for " ")
const ESCAPES = { "\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const escape = (char) => {
  if (ESCAPES[char] !== undefined) return ESCAPES[char];
  if (char === " " || !UNPRINTED.test(char)) return char;
  const point = char.codePointAt(0);
  const [prefix, width] = point < 0x100 ? ["x", 2] : point < 0x10000 ? ["u", 4] : ["U", 8];
  return `\\${prefix}${point.toString(16).padStart(width, "0")}`;
};
const quoted = (chars) => `'${chars.map(escape).join("")}'`;
const shown = (text) => {
  const chars = [...text];  // (characters, as Python counts them: a code point each)
  return chars.length > 60 ? `${quoted(chars.slice(0, 60))}... (${chars.length.toLocaleString("en-US")} characters)` : quoted(chars);
};
const what = (value) => typeof value === "string" ? shown(value)
  : Array.isArray(value) ? "a list" : value !== null && typeof value === "object" ? "an object" : JSON.stringify(value);
const kind = (value) => typeof value === "number" ? "a number" : typeof value === "string" ? "a string" : what(value);

function jsonToValue(value, where) {  // a JSON value as a google.protobuf.Value
  if (value === null) return { nullValue: "NULL_VALUE" };  // (the service names the option it does not take)
  if (typeof value === "number") return { numberValue: value };
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map((v, i) => jsonToValue(v, `${where}[${i}]`)) } };
  return { structValue: jsonToStruct(value, where) };
}

function jsonToStruct(value, where) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new NaipesError("INVALID_FIELD", `${where}: expected an object, not ${kind(value)}`, where);
  }
  return { fields: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonToValue(v, `${where}.${k}`)])) };
}

function scalar(field, value, where) {
  if (field.type === "string") {
    if (typeof value === "string" && value.isWellFormed()) return value;
    if (typeof value === "string") throw new NaipesError("INVALID_FIELD", `${where}: Unpaired surrogate`, where);
    throw new NaipesError("INVALID_FIELD", `${where}: expected a string, not ${what(value)}`, where);
  }
  if (field.type === "bool") {
    if (typeof value === "boolean") return value;
    throw new NaipesError("INVALID_FIELD", `${where}: expected a boolean, not ${what(value)}`, where);
  }
  if (INT32.has(field.type)) {  // a JSON number, or a decimal string as protobuf's JSON mapping allows
    const number = typeof value === "string" && /^-?[0-9]+$/.test(value) ? Number(value) : value;
    if (typeof number !== "number" || !Number.isInteger(number)) {
      throw new NaipesError("INVALID_FIELD", `${where}: expected an integer, not ${what(value)}`, where);
    }
    if (number < -(2 ** 31) || number >= 2 ** 31) throw new NaipesError("INVALID_FIELD", `${where}: ${value} is out of range`, where);
    return number;
  }
  throw new NaipesError("INVALID_FIELD", `${where}: a ${field.type} field this example does not write`, where);
}

function jsonToMessage(messageType, data, where = "") {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    if (!where) throw new NaipesError("INVALID_FIELD", `the body must be a JSON object, not ${kind(data)}`, "body");
    throw new NaipesError("INVALID_FIELD", `${where}: expected an object, not ${kind(data)}`, where);
  }
  const out = {};
  for (const [key, value] of Object.entries(data)) {
    const path = where ? `${where}.${key}` : key;
    const field = messageType.fieldsArray.find((f) => jsonName(f) === key || f.name === key);
    if (field === undefined) throw new NaipesError("INVALID_FIELD", `${path}: unknown field '${key}' of ${messageType.name}`, path);
    if (value === null) continue;  // null is the field absent, as in protobuf's JSON mapping
    field.resolve();
    const one = (item, at) => field.resolvedType?.fullName === ".google.protobuf.Struct" ? jsonToStruct(item, at)
      : field.resolvedType instanceof protobuf.Type ? jsonToMessage(field.resolvedType, item, at) : scalar(field, item, at);
    if (field.repeated) {
      if (!Array.isArray(value)) throw new NaipesError("INVALID_FIELD", `${path}: expected a list, not ${what(value)}`, path);
      out[field.name] = value.map((item, i) => {
        if (item === null) throw new NaipesError("INVALID_FIELD", `${path}[${i}]: expected ${field.type === "string" ? "a string" : "a value"}, not null`, `${path}[${i}]`);
        return one(item, `${path}[${i}]`);
      });
    } else {
      out[field.name] = one(value, path);
    }
  }
  return out;
}

// --- A response message to the API's JSON -----------------------------------------------------
// Protobuf's JSON mapping, fields in the schema's order: a field with presence only when the
// server set it, a field without presence always (`"game"`, a violation's `"code"`), and a list
// only when it has items, except the lists the service's JSON always carries (docs/api.md):
// `tricks`, `events` and `legal`, and the lists printed beside another field (a Tresillo table's
// `cartulina` beside its `plate`, a finished hand's `payments` beside its `table` and a Tresillo
// hand's `condiciones` beside its `outcome`). What validate_grpc.py and validate.mjs print.
const ALWAYS = { "naipes.v1.ValidationResult": ["tricks", "events"], "naipes.v1.Next": ["legal"] };
const BESIDE = { "naipes.v1.Table": { cartulina: "plate" }, "naipes.v1.ValidationResult": { condiciones: "outcome", payments: "table" } };

function jsonName(field) {
  return field.options?.json_name ?? field.name;
}

function messageToJson(messageType, message) {
  const name = messageType.fullName.slice(1);
  const out = {};
  for (const field of messageType.fieldsArray) {
    field.resolve();
    let value = message[field.name];
    if (value === undefined || value === null) continue;  // (an unset message field is null: defaults)
    const sub = field.resolvedType instanceof protobuf.Type ? field.resolvedType : null;
    if (field.repeated) {
      if (value.length === 0 && !ALWAYS[name]?.includes(field.name)) {
        const beside = BESIDE[name]?.[field.name];
        if (beside === undefined || message[beside] === undefined || message[beside] === null) continue;
      }
      value = sub ? value.map((item) => messageToJson(sub, item)) : [...value];
    } else if (sub) {
      value = messageToJson(sub, value);
    }
    out[jsonName(field)] = value;
  }
  return out;
}

// --- The error of a call: the service's code, field and message from its details --------------
const STATUS_NAMES = Object.fromEntries(Object.entries(grpc.status).map(([name, code]) => [code, name]));

function callError(error) {
  let code = STATUS_NAMES[error.code] ?? "UNKNOWN", field = null, message = error.details ?? error.message;
  const [details] = error.metadata?.get("grpc-status-details-bin") ?? [];
  if (details !== undefined) {
    const status = type("google.rpc.Status").decode(details);  // {code, message, details: [google.protobuf.Any]}
    message = status.message;
    for (const any of status.details) {  // (protobufjs's own google.protobuf.Any keeps the proto's names: type_url)
      if ((any.typeUrl ?? any.type_url) === "type.googleapis.com/google.rpc.ErrorInfo") {
        const info = type("google.rpc.ErrorInfo").decode(any.value);
        code = info.reason;
        field = info.metadata.field ?? field;
      }
    }
  }
  return new NaipesError(code, message, field);
}

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

const RESULT = type("naipes.v1.ValidationResult");

function validateHand(client, record) {
  const request = { record: jsonToMessage(type("naipes.v1.HandRecord"), record) };
  return new Promise((resolve, reject) => {
    client.ValidateHand(request, { deadline: Date.now() + TIMEOUT_MS }, (error, response) => {
      if (error) reject(callError(error)); else resolve(messageToJson(RESULT, response.result));
    });
  });
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
const client = (target) => new NaipesService(target, grpc.credentials.createInsecure());
try {
  if (args[0] === "--stream") {
    const files = args.slice(1);
    const at = files.indexOf("--target");
    const target = at >= 0 ? files.splice(at, 2)[1] : "127.0.0.1:50051";
    const named = [];
    for (const file of files) named.push([file, await readRecord(file)]);
    const naipes = client(target);
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
    const naipes = client(target);
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
