// Naipes over gRPC from Node.js, speaking the REST API's JSON: @grpc/grpc-js and
// @grpc/proto-loader load protos/naipes/v1/naipes.proto as shipped, and this module maps each
// call's JSON to its request message and its answer back to JSON, as protobuf's JSON mapping
// (and the service) spell it. validate_grpc.mjs is built on it.
//
//   import { call, connect, NaipesError } from "./naipes_grpc.mjs";
//   const client = connect("127.0.0.1:50051");
//   const result = await call(client, "ValidateHand", { record });   // what POST /v1/hands:validate answers
//   const rules = await call(client, "DescribeRules", { game: "rentoy" });
//
// What the mapping does that grpc-js does not: proto-loader names fields in lowerCamelCase and
// ignores `json_name` (RuleOption's `default_value` is "default" in JSON); it decodes a
// google.protobuf.Value as its oneof ({numberValue: 5}), not as the JSON value (5); it takes any
// object as a request (an unknown field dropped, "four" sent as 0), where the service refuses
// the same JSON over REST, naming the field; and it prints every empty list, where the API's
// JSON leaves out the lists that do not apply (docs/api.md).
//
// The packages: `cd clients/examples && npm ci` (package-lock.json; make node-grpc does the same).
// The stubs come from the .proto at run time: it imports google/api/annotations.proto (from the
// npm package google-proto-files, which also has google/rpc/status.proto and error_details.proto
// for the error details) and google/protobuf/struct.proto (protobufjs has it too).
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";
import googleProtoFiles from "google-proto-files";
import protobuf from "protobufjs";

const PROTOS = fileURLToPath(new URL("../../protos", import.meta.url));
const GOOGLE = dirname(googleProtoFiles.getProtoPath());  // the folder that holds google/api, google/rpc, google/protobuf
export const TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;  // the longest a call waits (as the REST client's timer holds)

// The service, as grpc-js calls it: messages as plain objects, fields in lowerCamelCase, every
// field without presence at its default (a list as []), an `optional` field only when sent.
const OPTIONS = { keepCase: false, defaults: true, arrays: true, longs: String, enums: String, includeDirs: [PROTOS, GOOGLE] };
const definition = protoLoader.loadSync("naipes/v1/naipes.proto", OPTIONS);
export const { NaipesService } = grpc.loadPackageDefinition(definition).naipes.v1;
/** A client of the service at `target` (HOST:PORT), without TLS; `client.close()` when done. */
export const connect = (target) => new NaipesService(target, grpc.credentials.createInsecure());
// The same files read by protobufjs, for what the client does with the types: the request's JSON
// checked, the answer printed field by field, and the error details decoded.
const root = new protobuf.Root();
root.resolvePath = (origin, target) => {
  for (const dir of [PROTOS, GOOGLE]) {
    const path = `${dir}/${target}`;
    if (existsSync(path)) return path;
  }
  return protobuf.util.path.resolve(origin, target);
};
root.loadSync(["naipes/v1/naipes.proto", "google/rpc/status.proto", "google/rpc/error_details.proto"], { keepCase: false });
export const type = (name) => root.lookupType(name);
// The same files with the proto's own field names (plate_holds), which protobuf's JSON mapping (and
// the service) takes in a request as well as the JSON names (plateHolds).
const protoRoot = new protobuf.Root();
protoRoot.resolvePath = root.resolvePath;
protoRoot.loadSync("naipes/v1/naipes.proto", { keepCase: true });
const protoName = (messageType, field) => protoRoot.lookupType(messageType.fullName).fieldsById[field.id].name;
const SERVICE = root.lookupService("naipes.v1.NaipesService");

export class NaipesError extends Error {
  constructor(code, message, field = null) {
    // (cut as the service cuts an error's, service/errors.py: a field named after a request's key)
    super(cut(message, MESSAGE_AT_MOST));
    Object.assign(this, { code, field: field === null ? null : cut(field, FIELD_AT_MOST) });
  }
}

// The most an error's message and field hold, in bytes of UTF-8 (service/errors.py).
const MESSAGE_AT_MOST = 2000;
const FIELD_AT_MOST = 200;
const UTF8 = new TextEncoder();

/** `text`, or, when longer than `atMost` bytes of UTF-8, as much of it as those bytes hold beside
 *  its length in characters: `atMost` bytes in all. A character the cut splits is dropped (as
 *  Python's decode with "ignore" drops it), a whole U+FFFD kept. */
function cut(text, atMost) {
  const bytes = UTF8.encode(text);
  if (bytes.length <= atMost) return text;
  const tail = `... (${[...text].length.toLocaleString("en-US")} characters)`;
  let end = atMost - tail.length;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;  // (back to the first byte of the character cut)
  return new TextDecoder().decode(bytes.subarray(0, end)) + tail;
}

// --- JSON to a request message, checked against the schema -----------------------------------
// protobufjs's fromObject takes anything (an unknown field is dropped, "four" becomes 0), so a
// request is checked here first and refused, as the service refuses it over REST: INVALID_FIELD
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
  : Array.isArray(value) ? "a list" : value !== null && typeof value === "object" ? "an object"
    : typeof value === "bigint" ? `the BigInt ${value}n` : JSON.stringify(value);  // (JSON.stringify threw TypeError on a BigInt)
const kind = (value) => typeof value === "number" ? "a number" : typeof value === "string" ? "a string" : what(value);

function jsonToValue(value, where) {  // a JSON value as a google.protobuf.Value
  if (value === null) return { nullValue: "NULL_VALUE" };  // (the service names the option it does not take)
  if (typeof value === "number") return { numberValue: value };
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map((v, i) => jsonToValue(v, `${where}[${i}]`)) } };
  return { structValue: jsonToStruct(value, where) };
}

function jsonToStruct(value, where) {  // (the service words a Struct that is no object by its value: "not 'x'", "not 5")
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new NaipesError("INVALID_FIELD", `${where}: expected an object, not ${what(value)}`, where);
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
    throw new NaipesError("INVALID_FIELD", `${where}: expected true or false, not ${what(value)}`, where);  // (the service's words)
  }
  if (INT32.has(field.type)) {  // a JSON number, or a decimal string as protobuf's JSON mapping allows
    const number = typeof value === "string" && /^-?[0-9]+$/.test(value) ? Number(value) : value;
    if (typeof number !== "number" || !Number.isInteger(number)) {
      throw new NaipesError("INVALID_FIELD", `${where}: expected an integer, not ${what(value)}`, where);
    }
    if (number < -(2 ** 31) || number >= 2 ** 31) throw new NaipesError("INVALID_FIELD", `${where}: ${what(value)} is out of range`, where);
    return number;
  }
  throw new NaipesError("INVALID_FIELD", `${where}: a ${field.type} field this module does not write`, where);
}

/** A message's JSON (a record, a request) as the plain object grpc-js sends, checked against
 *  `messageType`; a field is named from `where` (deal.hands[1]). */
export function jsonToMessage(messageType, data, where = "") {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    if (!where) throw new NaipesError("INVALID_FIELD", `the body must be a JSON object, not ${kind(data)}`, "body");
    throw new NaipesError("INVALID_FIELD", `${where}: expected an object, not ${kind(data)}`, where);
  }
  const out = {};
  const named = new Map();  // field -> the key that gave it
  for (const [key, value] of Object.entries(data)) {
    const path = where ? `${where}.${key}` : key;
    const field = messageType.fieldsArray.find((f) => jsonName(f) === key || protoName(messageType, f) === key);
    if (field === undefined) throw new NaipesError("INVALID_FIELD", `${path}: unknown field ${shown(key)} of ${messageType.name}`, path);
    if (named.has(field)) {  // (by its JSON name and its proto name: one was kept, silently)
      const at = where ? `${where}.${jsonName(field)}` : jsonName(field);
      throw new NaipesError("INVALID_FIELD", `${at}: the field is given twice in one object, as ${shown(named.get(field))} and as ${shown(key)}`, at);
    }
    named.set(field, key);
    if (value === null || value === undefined) continue;  // null is the field absent, as in protobuf's JSON mapping (undefined, as JSON.stringify leaves it out)
    field.resolve();
    const wellKnown = field.resolvedType?.fullName;
    const one = (item, at) => wellKnown === ".google.protobuf.Struct" ? jsonToStruct(item, at)
      : wellKnown === ".google.protobuf.Value" ? jsonToValue(item, at)
        : field.resolvedType instanceof protobuf.Type ? jsonToMessage(field.resolvedType, item, at) : scalar(field, item, at);
    if (field.repeated) {
      if (!Array.isArray(value)) throw new NaipesError("INVALID_FIELD", `${path}: expected a list, not ${what(value)}`, path);
      out[field.name] = value.map((item, i) => one(item, `${path}[${i}]`));  // (a null item is refused as the type it is not)
    } else {
      out[field.name] = one(value, path);
    }
  }
  return out;
}

// --- A response message to the API's JSON -----------------------------------------------------
// Protobuf's JSON mapping, fields in the schema's order: a field with presence only when the
// server set it, a field without presence always (`"game"`, a violation's `"code"`), and a list
// only when it has items, except the lists the service's JSON always carries (docs/api.md;
// service/codec.py's ALWAYS_PRINTED): `tricks`, `events`, `legal` and `actions`, and the lists
// printed beside another field (PRINTED_WITH: a Tresillo table's `cartulina` beside its `plate`,
// a finished hand's `payments` beside its `table` and a Tresillo hand's `condiciones` beside its
// `outcome`). A google.protobuf.Value, Struct or ListValue is its JSON value; `default_value` is
// `default` (its json_name).
const ALWAYS = {
  "naipes.v1.ValidationResult": ["tricks", "events"],
  "naipes.v1.Next": ["legal"],
  "naipes.v1.LegalActionsResponse": ["legal", "actions"],
  "naipes.v1.View": ["tricks"],
  "naipes.v1.ResolveTrickResponse": ["events"],
};
const BESIDE = {
  "naipes.v1.Table": { cartulina: "plate" },
  "naipes.v1.ValidationResult": { condiciones: "outcome", payments: "table" },
  "naipes.v1.SettleHandResponse": { condiciones: "outcome", payments: "table" },
};

export function jsonName(field) {
  return field.options?.json_name ?? field.name;
}

const structToJson = (struct) => Object.fromEntries(Object.entries(struct.fields ?? {}).map(([k, v]) => [k, valueToJson(v)]));

function valueToJson(value) {  // a google.protobuf.Value as grpc-js decodes it, {numberValue: 5}, to its JSON value, 5
  if (value.structValue !== undefined && value.structValue !== null) return structToJson(value.structValue);
  if (value.listValue !== undefined && value.listValue !== null) return (value.listValue.values ?? []).map(valueToJson);
  for (const kind of ["numberValue", "stringValue", "boolValue"]) {
    if (value[kind] !== undefined && value[kind] !== null) return value[kind];
  }
  return null;  // nullValue
}

const WELL_KNOWN = {
  "google.protobuf.Value": valueToJson,
  "google.protobuf.Struct": structToJson,
  "google.protobuf.ListValue": (list) => (list.values ?? []).map(valueToJson),
};

/** A message as grpc-js decodes it to the API's JSON. */
export function messageToJson(messageType, message) {
  const name = messageType.fullName.slice(1);
  if (WELL_KNOWN[name]) return WELL_KNOWN[name](message);
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

/** A grpc-js error as a NaipesError: the service's code (ErrorInfo's reason), field (its
 *  metadata) and message from the google.rpc.Status of the `grpc-status-details-bin` trailer;
 *  without one (no server, a deadline), the gRPC status's name. */
export function callError(error) {
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

// --- A unary call, JSON in and out, as the REST route of the RPC has it ---------------------------
/** The request of `method` from its JSON. Where the REST route's body is one field (a hand
 *  record: `body: "record"`), that field's own fields are named as REST names them, within the
 *  body: `deal.hands[1]`, as the service names them too, not `record.deal.hands[1]`. */
function requestMessage(method, request) {
  const requestType = method.resolvedRequestType;
  const body = method.options?.["(google.api.http).body"];
  const field = body && body !== "*" ? requestType.fields[protobuf.util.camelCase(body)] : undefined;
  if (field === undefined || request === null || typeof request !== "object" || Array.isArray(request)) {
    return jsonToMessage(requestType, request);
  }
  const { [jsonName(field)]: inner, ...rest } = request;
  const message = jsonToMessage(requestType, rest);
  // (a null body field is the REST body null, refused as such: not the field left out)
  if (inner !== undefined) {
    field.resolve();
    message[field.name] = jsonToMessage(field.resolvedType, inner);
  }
  return message;
}

/** Call the unary RPC `rpc` ("Deal") with its request's JSON; its answer's JSON, as the REST route
 *  answers it (ValidateHand's `result` itself: `response_body`). A request no message can hold is
 *  refused before sending, and any failure is a NaipesError: a call of a client once closed
 *  (`client.close()`) UNAVAILABLE, "the client is closed", before anything else is said of it, as
 *  the Python GrpcClient's (grpc-js threw Error "Channel has been shut down"). */
export async function call(client, rpc, request, options) {
  if (client.getChannel?.().getConnectivityState(false) === grpc.connectivityState.SHUTDOWN) {
    throw new NaipesError("UNAVAILABLE", "the client is closed");
  }
  const { timeoutMs = TIMEOUT_MS } = options ?? {};  // (options null are none, as the REST client's)
  const method = SERVICE.methods[rpc];
  if (method === undefined || method.requestStream || method.responseStream) throw new TypeError(`${rpc} is not a unary RPC of NaipesService`);
  // (grpc-js threw on a NaN or too distant deadline outside the call's promise: the process ended)
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > MAX_TIMEOUT_MS) {
    throw new RangeError(`timeoutMs must be a number of milliseconds above 0 and at most ${MAX_TIMEOUT_MS}, not ${String(timeoutMs)}`);
  }
  method.resolve();
  const message = requestMessage(method, request);
  const answer = await new Promise((resolve, reject) => {
    client[rpc](message, { deadline: Date.now() + timeoutMs }, (error, response) => {
      if (error) reject(callError(error)); else resolve(response);
    });
  });
  const responseBody = method.options?.["(google.api.http).response_body"];
  if (!responseBody) return messageToJson(method.resolvedResponseType, answer);
  const field = method.resolvedResponseType.fields[protobuf.util.camelCase(responseBody)];
  field.resolve();
  return messageToJson(field.resolvedType, answer[field.name] ?? {});
}
