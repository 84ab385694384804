// Naipes REST client for JavaScript (browsers and Node.js 18+): no dependencies, just fetch.
//
//   import { Naipes } from "./naipes.mjs";
//   const naipes = new Naipes("http://127.0.0.1:8080");
//   const result = await naipes.validateHand(record);   // the validation result of FORMAT.md
//
// Every method takes and returns the JSON of docs/format.md and the API's proto messages.
// Every failure throws a NaipesError with a `code`: a request the service rejects, the problem
// JSON's code and field; a body JSON cannot hold (NaN, a BigInt), INVALID_FIELD naming the field,
// before sending; besides, UNAVAILABLE (no server, or an answer that cannot be read: in a
// browser, an answer the page may not read too, its origin not allowed by the server's CORS),
// DEADLINE_EXCEEDED (no answer within the timeout) and HTTP_<status> (HTTP_502) for an HTTP error
// that is not the service's problem JSON (a proxy's page). Every method answers with a promise
// (validateHandsStream with an async iterator) whatever it is given: a failure, a bad argument's
// too, is its rejection, never a throw at once. Options null are none, as undefined.
//
// Every method takes a `requestId` in its last argument (`{ requestId: "abc-1" }`): 1 to 128
// visible ASCII characters, sent as the request's X-Request-Id header, which the service sends
// back on its answer, errors included, and writes in its access log (docs/api.md, "Access log
// and request IDs"); one the service would refuse is refused before sending, INVALID_FIELD naming
// x-request-id, as the Python client's `request_id`. (In a browser, a call with one is preflighted.)
//
// validateHands validates many records (an archive) in NDJSON streams; validateHandsStream does the
// same as an async iterator, each answer as it comes, its records an async iterable too (a live
// feed): `for await (const answer of naipes.validateHandsStream(records)) ...`.
//
// validateHand and validateHands take `omitEvents: true` too (`{ omitEvents: true }`): each result
// comes with its `events` (what happened, action by action: most of a result's size) empty, every
// other field as without it, for a caller that needs only the verdicts and the money.
//
// TypeScript: naipes.d.mts types every method's request and answer as the REST API speaks them
// (its messages, messages.d.mts, generated from the proto), a request's rules by its game (rules.d.mts,
// generated from the engine's option tables); `import type { HandRecord } from "./naipes.mjs"`.

export class NaipesError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || "request failed");
    this.name = "NaipesError";
    this.status = problem.status;
    this.code = problem.code;
    this.field = problem.field;
    this.problem = problem;
  }
}

export class Naipes {
  /** `timeoutMs`: how long a call waits for its answer (DEADLINE_EXCEEDED after); for
   *  validateHands, how long the stream may go without answering (it may take much longer). */
  constructor(baseUrl = "http://127.0.0.1:8080", options = undefined) {
    const { fetchImpl = globalThis.fetch, timeoutMs = 10_000, compress = false } = options ?? {};  // (null: none, as the methods')
    // (a timer holds at most 2 ** 31 - 1 ms, about 24.8 days: past it, or Infinity, a call ended
    // DEADLINE_EXCEEDED at once; NaN, -1 or null were a RangeError or TypeError from the call)
    if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > MAX_TIMEOUT_MS) {
      throw new RangeError(`timeoutMs must be a number of milliseconds above 0 and at most ${MAX_TIMEOUT_MS} (a timer's), not ${String(timeoutMs)}`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.fetch = fetchImpl;
    this.timeoutMs = timeoutMs;
    this.compress = compress;
  }

  /** A body's text as sent, and its headers: gzip-compressed (CompressionStream, in browsers and
   *  Node.js) with Content-Encoding: gzip when the client compresses, as the Python RestClient's
   *  `compress=True`; the service decodes it (docs/api.md, "Compressed request bodies"). */
  async #coded(text, headers) {
    if (!this.compress) return [text, headers];
    const compressed = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
    return [new Uint8Array(await new Response(compressed).arrayBuffer()), { ...headers, "Content-Encoding": "gzip" }];
  }

  async #call(method, path, body, requestId) {
    const headers = requestHeaders(requestId);
    // A body JSON cannot hold (NaN, which JSON.stringify would send as null, the field lost; a
    // BigInt, on which it throws TypeError) is refused before sending, INVALID_FIELD naming the
    // field, as validateHands answers such a record and the Python client refuses it.
    // (a POST's body left undefined is sent as JSON null, refused as the body, as the Python
    // client sends its None: no body at all was read as {}, MISSING_FIELD game)
    const sent = method === "GET" ? undefined : recordText(body === undefined ? null : body);
    if (sent !== undefined && typeof sent !== "string") {
      const { code, field, message } = sent.error;
      throw new NaipesError({ code, field, detail: message });
    }
    const [data, sentHeaders] = sent === undefined ? [undefined, headers]
      : await this.#coded(sent, { ...headers, "Content-Type": "application/json" });
    const response = await this.#fetch(path, {
      method,
      headers: sentHeaders,
      body: data,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await readText(response, this.baseUrl);
    if (!response.ok) throw httpError(response, text);
    return parse(text, this.baseUrl);
  }

  /** fetch, its failures as NaipesError (UNAVAILABLE). It is called as a function, not as a
   *  method of this client: a browser's fetch called on any other object than the window (or
   *  undefined) throws TypeError "Illegal invocation", which made every call UNAVAILABLE there. */
  async #fetch(path, init) {
    const fetch = this.fetch;
    try {
      return await fetch(this.baseUrl + path, init);
    } catch (error) {
      throw transportError(error, this.baseUrl);
    }
  }

  /** Replay a hand record: legality, next legal actions, tricks, settlement. `omitEvents`: the
   *  result's `events` empty, every other field as without it (?omitEvents=true; nothing is
   *  sent without it). */
  async validateHand(record, options) {
    const { omitEvents = false, requestId } = options ?? {};
    return this.#call("POST", `/v1/hands:validate${omitEvents ? "?omitEvents=true" : ""}`, record, requestId);
  }

  /** Who acts and every legal action; with `seat`, that seat's view only (null or undefined: no
   *  seat, everyone's). */
  async legalActions(record, seat, options) {
    const { requestId } = options ?? {};
    if (seat !== undefined && seat !== null && !["number", "string", "bigint"].includes(typeof seat)) {
      // (a list [3] went as its text, 3: seat 3's view)
      throw new NaipesError({ code: "INVALID_FIELD", field: "seat", status: 400, detail: `seat: expected an integer, not ${quoted(written(seat))}` });
    }
    const query = seat === undefined || seat === null ? "" : `?seat=${encodeURIComponent(seat)}`;
    return this.#call("POST", `/v1/hands:legalActions${query}`, record, requestId);
  }

  /** The winner of one trick: {game, seats, leader, contract: {trump}, cards}. */
  async resolveTrick(request, options) {
    const { requestId } = options ?? {};
    return this.#call("POST", "/v1/tricks:resolve", request, requestId);
  }

  /** The settlement of a finished hand from its summary and the table before it. */
  async settleHand(request, options) {
    const { requestId } = options ?? {};
    return this.#call("POST", "/v1/hands:settle", request, requestId);
  }

  /** A deterministic deal from a seed, with its commitment. */
  async deal(request, options) {
    const { requestId } = options ?? {};
    return this.#call("POST", "/v1/deals", request, requestId);
  }

  /** A game's house-rule options with their defaults. */
  async describeRules(game, options) {
    const { requestId } = options ?? {};
    if (game === undefined || game === null) game = "";  // (no game, as the Python clients' None: not 'null')
    if (typeof game !== "string") {  // (["rentoy"] went as its text, rentoy; 5 as '5')
      throw new NaipesError({ code: "INVALID_FIELD", field: "game", status: 400, detail: `game: expected a string, not ${said(game)}` });
    }
    // "." and ".." are no game, but no path segment either: fetch's URL parser drops them (and
    // their spellings with %2e) with the segment before, and the service answered NOT_FOUND for
    // its route /v1/rules. They are refused here as the service refuses any other unknown game.
    if (game === "." || game === "..") {
      throw new NaipesError({ code: "UNKNOWN_GAME", field: "game", status: 400,
                              detail: `unknown game ${quoted(game)}: expected tresillo, revesino or rentoy` });
    }
    return this.#call("GET", `/v1/games/${encodeURIComponent(game)}/rules`, undefined, requestId);
  }

  /** Validate many records: a promise of one answer per record, in order, `{result}` (what
   *  validateHand answers) or `{error: {code, field, message}}` (a record JSON cannot hold, with
   *  NaN or a BigInt, is INVALID_FIELD naming the field, answered here), once every record has been
   *  answered. `records`: an array, any iterable, or an async iterable; they go as
   *  validateHandsStream sends them, which gives each answer as it comes instead (for an archive
   *  too large to hold its answers, or a live feed). */
  async validateHands(records, options = {}) {
    const answers = [];
    for await (const answer of this.validateHandsStream(records, options)) answers.push(answer);
    return answers;
  }

  /** Validate many records as they come: an async iterator of one answer per record, in order (as
   *  validateHands' answers), each given as soon as its line of the stream is answered.
   *  `records`: an array, any iterable, or an async iterable (an async generator reading a file, a
   *  Node.js stream of objects, a live feed). They are sent as NDJSON streams of up to 2,000
   *  records each (REQUEST_RECORDS, as the Python RestClient sends them), in lines of `batch`
   *  records (each stream one body: browsers cannot send a request body as a stream over
   *  HTTP/1.1); a stream not yet full is sent once an async iterable's records pause (FLUSH_MS, as
   *  the Python clients' FLUSH_SECONDS), so that each is answered soon after it comes, and the
   *  next stream's records are read while one is answered: one stream's records and answers are
   *  held at a time, whatever the archive's length. A server process validates a few streams at a
   *  time and refuses more (TOO_MANY_STREAMS): the stream is sent again after its Retry-After,
   *  `retries` times. `omitEvents`: every result's `events` empty, every other field as without
   *  it ("omitEvents": true on each line; nothing is sent without it). `requestId`: each stream's
   *  (each attempt's). An error the iterable throws is thrown after the answers of the records
   *  before it; leaving the loop early (break) cancels the stream in flight and closes the
   *  iterable (its `return()`). A stream cut short after some answers (the service ends one whose
   *  caller holds an answer 30 s) is sent again from its first record not answered. */
  async *validateHandsStream(records, options) {
    // (read here, not in the parameters: a generator's parameters are read as it is called, and
    // options null threw TypeError at once, outside the iterator)
    const { batch = 50, retries = 30, omitEvents = false, requestId } = options ?? {};
    if (!Number.isInteger(batch) || batch < 1 || batch > MAX_BATCH) {
      throw new NaipesError({ code: "INVALID_FIELD", field: "batch",
                              detail: `batch: expected a number of records from 1 to ${MAX_BATCH}, not ${String(batch)}` });
    }
    const headers = { ...requestHeaders(requestId), "Content-Type": "application/x-ndjson" };
    const chunks = new Chunks(records, REQUEST_RECORDS);
    let coming = chunks.next();
    try {
      for (let chunk; (chunk = await coming).length; ) {
        coming = chunks.next();  // (gathered while this one is answered; its error thrown when awaited, after these answers)
        coming.catch(() => {});
        // Each record's JSON alone (one that JSON cannot hold is its own error), REQUEST_RECORDS
        // a stream: an archive's answers in one request's text outgrew what a JavaScript string
        // may hold (about 512 MiB in V8: some 160,000 Revesino results with their events).
        const texts = chunk.map(recordText);
        const answers = this.#validateStream(lines(texts.filter((text) => typeof text === "string"), batch), headers, retries, omitEvents);
        try {
          for (const text of texts) yield typeof text === "string" ? (await answers.next()).value : text;
          await answers.next();  // (none is left: this reads the stream to its end and checks its count)
        } finally {
          await answers.return();
        }
      }
    } finally {
      chunks.close();
    }
  }

  /** One NDJSON stream of `parts` (lines of records' JSON texts): each record's answer, in order,
   *  as its line comes. A stream cut short after some answers (the server ends one whose caller
   *  takes none of its answer for 30 s, or it went away: UNAVAILABLE) is sent again from its first
   *  line not answered. */
  async *#validateStream(parts, headers, retries, omitEvents) {
    for (;;) {
      const sent = { answered: 0, cut: false };
      try {
        yield* this.#validateOnce(parts, headers, retries, omitEvents, sent);
        return;
      } catch (error) {
        if (!sent.cut || !sent.answered || sent.answered >= parts.length) throw error;
        parts = parts.slice(sent.answered);
      }
    }
  }

  /** `#validateStream`'s one request: `sent.answered` counts its lines answered, and `sent.cut`
   *  says that its answer was cut short (its connection lost before its end). */
  async *#validateOnce(parts, headers, retries, omitEvents, sent) {
    if (!parts.length) return;
    const head = omitEvents ? `{"omitEvents": true, "batch": [` : `{"batch": [`;
    const [body, sentHeaders] = await this.#coded(
      parts.map((part) => `${head}${part.map((text) => `{"record": ${text}}`).join(", ")}]}\n`).join(""), headers);
    // The stream is bounded by its progress, not its length: it is cancelled when the server
    // sends nothing for timeoutMs (each line is answered as soon as the server has read it).
    // The clock runs while this waits for the server, not while the caller holds an answer.
    const controller = new AbortController();
    let timer;
    const waiting = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new DOMException("no answer", "TimeoutError")), this.timeoutMs);
    };
    let answered = 0;  // (the stream's lines answered so far)
    try {
      let response;
      for (let attempt = 0; ; attempt++) {
        waiting();
        response = await this.#fetch("/v1/hands:validateStream", {
          method: "POST", headers: sentHeaders, body, signal: controller.signal,
        });
        if (response.ok) break;
        const error = httpError(response, await readText(response, this.baseUrl));
        if (error.code !== "TOO_MANY_STREAMS" || attempt >= retries) throw error;
        clearTimeout(timer);
        const seconds = Number(response.headers.get("Retry-After")) || 1;
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      }
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      let pending = [];  // (the text of a line not yet ended)
      for (let done = false; !done; ) {
        waiting();
        let chunk;
        try {
          chunk = await reader.read();
        } catch (error) {
          sent.cut = !controller.signal.aborted;  // (the answer cut short, not ended: not this client's own timeout)
          throw error;
        }
        clearTimeout(timer);
        done = chunk.done;
        const text = done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
        if (!text.includes("\n") && !done) {
          pending.push(text);
          continue;
        }
        const ended = (pending.join("") + text).split("\n");
        pending = done ? [] : [ended.pop()];
        for (const line of ended.filter((line) => line.trim())) {
          const part = parts[answered++];
          if (!part) continue;  // (more lines than sent: counted below)
          const answer = parse(line, this.baseUrl);  // a line's own error (too long, say) is each of its records' answer
          if (answer.batch && answer.batch.length !== part.length) {
            throw new NaipesError({ code: "UNAVAILABLE", detail: `${this.baseUrl}: a line of ${part.length} records was answered by ${answer.batch.length}` });
          }
          sent.answered = answered;
          yield* answer.batch ?? part.map(() => answer);
        }
      }
    } catch (error) {
      throw transportError(controller.signal.aborted ? controller.signal.reason : error, this.baseUrl);
    } finally {
      clearTimeout(timer);
      controller.abort();  // (a stream left before its end, the caller's loop broken: its request cancelled)
    }
    if (answered !== parts.length) {
      throw new NaipesError({ code: "UNAVAILABLE", detail: `${this.baseUrl}: the stream ended after ${answered} of ${parts.length} answers` });
    }
  }
}

/** The caller's records in chunks of at most `size` (a stream each), one chunk gathered while the
 *  one before is answered. An async iterable's chunk not yet full is given once its records pause
 *  FLUSH_MS (a live feed's each answered soon after it comes); an iterable's are there at once.
 *  An error of the iterable is thrown by the call after the chunk of the records before it. */
class Chunks {
  constructor(records, size) {
    const asynchronous = records?.[Symbol.asyncIterator];
    const iterate = asynchronous ?? records?.[Symbol.iterator];
    if (typeof iterate !== "function" || typeof records === "string") {
      throw new NaipesError({ code: "INVALID_FIELD", field: "records",
                              detail: `records: expected an array, an iterable or an async iterable of records, not ${typeof records === "string" ? quoted(records) : String(records)}` });
    }
    this.iterator = iterate.call(records);
    this.asynchronous = Boolean(asynchronous);
    this.size = size;
    this.step = null;  // (an async iterable's record asked for and not yet taken)
    this.over = false;
    this.error = null;
  }

  /** The next chunk of records: [] once they have ended. */
  async next() {
    const chunk = [];
    try {
      while (!this.over && chunk.length < this.size) {
        const step = this.asynchronous ? await this.#paused(chunk.length > 0) : this.iterator.next();
        if (step === PAUSED) break;
        this.step = null;
        if (step.done) this.over = true;
        else chunk.push(step.value);
      }
    } catch (error) {
      this.over = true;
      this.error = error;
    }
    if (!chunk.length && this.error) throw this.error;
    return chunk;
  }

  /** The async iterable's next record's step, or PAUSED when `gathering` and none came in FLUSH_MS. */
  async #paused(gathering) {
    if (!this.step) {
      this.step = Promise.resolve(this.iterator.next());
      this.step.catch(() => {});  // (its error is thrown where it is awaited, not as an unhandled rejection between)
    }
    if (!gathering) return this.step;
    let timer;
    const pause = new Promise((resolve) => { timer = setTimeout(resolve, FLUSH_MS, PAUSED); });
    try {
      return await Promise.race([this.step, pause]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The iterable closed (its `return()`), unless it ended by itself. */
  close() {
    if (this.over) return;
    this.over = true;
    try {
      Promise.resolve(this.iterator.return?.()).catch(() => {});
    } catch {}
  }
}

/** Records' JSON texts in lines of `batch` records, fewer when they are large: a line is at most
 *  BATCH_BYTES of UTF-8 (a character of the text may be three bytes of it). */
function lines(texts, batch) {
  const parts = [];
  let part = [], used = 0;
  for (const text of texts) {
    const length = UTF8.encode(text).length;
    if (part.length && (part.length === batch || used + length > BATCH_BYTES)) {
      parts.push(part);
      part = [];
      used = 0;
    }
    part.push(text);
    used += length;
  }
  if (part.length) parts.push(part);
  return parts;
}

function requestHeaders(requestId) {
  if (requestId === undefined || requestId === null) return {};
  if (typeof requestId !== "string" || !REQUEST_ID.test(requestId)) {
    const shown = typeof requestId === "string" ? quoted(requestId) : String(requestId);
    throw new NaipesError({ code: "INVALID_FIELD", field: "x-request-id",
                            detail: `x-request-id: expected 1 to 128 visible ASCII characters, not ${shown}` });
  }
  return { "X-Request-Id": requestId };
}

/** A value's JSON text, or, when JSON cannot write it (a cycle, a symbol), its String. */
function written(value) {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A string quoted as the service quotes it in a message (engine/errors.py, shown): in single
 *  quotes, a backslash, a quote and a control character escaped as Python escapes them, a long
 *  one by its first 60 characters and its length. */
/** A value given where a string is taken, as the service says it: a string quoted, a number or a
 *  boolean as JSON writes it, a list or an object by its kind. */
function said(value) {
  if (typeof value === "string") return quoted(value);
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return typeof value === "bigint" ? `${value}` : String(value);
}

function quoted(text) {
  const escapes = { "\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  const quote = (chars) => `'${chars.join("").replace(/[\\'\x00-\x1f\x7f-\x9f]/g,
    (char) => escapes[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`)}'`;
  const chars = [...text];  // (a code point each, as Python counts them)
  return chars.length > 60 ? `${quote(chars.slice(0, 60))}... (${chars.length.toLocaleString("en-US")} characters)` : quote(chars);
}

/** A record's JSON text, or, when JSON cannot hold it, the error entry that answers it:
 *  INVALID_FIELD naming the field (NaN and Infinity, which JSON.stringify would write as null;
 *  a BigInt, which it throws on). `undefined` is left out as JSON.stringify leaves it. */
function recordText(record) {
  try {
    const text = JSON.stringify(record, (key, value) => {
      if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError(`${value}`);
      if (value instanceof Map || value instanceof Set) throw new TypeError("a Map");  // (written {}: its entries lost)
      return value;
    });
    if (text === undefined) {  // (undefined, a function or a symbol: JSON.stringify writes nothing)
      return { error: { code: "INVALID_FIELD", message: `the record: JSON cannot hold ${typeof record === "undefined" ? "undefined" : `a ${typeof record}`}` } };
    }
    return text;
  } catch (error) {
    const [field, what] = unwritable(record, "", new Set()) ?? ["", error.message];
    return { error: { code: "INVALID_FIELD", ...(field ? { field } : {}), message: `${field || "the record"}: JSON cannot hold ${what}` } };
  }
}

/** The first value under `value` that JSON cannot write: [its field (deal.hands[1]), what it is].
 *  `enclosing`: the objects around `value` (a value held twice, side by side, is no cycle). */
function unwritable(value, path, enclosing) {
  if (typeof value === "number" && !Number.isFinite(value)) return [path, String(value)];
  if (typeof value === "bigint") return [path, `the BigInt ${value}n`];
  if (value instanceof Map || value instanceof Set) return [path, `a ${value instanceof Map ? "Map" : "Set"} (an object or a list is sent)`];
  if (value === null || typeof value !== "object" || typeof value.toJSON === "function") return null;
  if (enclosing.has(value)) return [path, "a reference to itself"];
  enclosing.add(value);
  for (const [key, item] of Object.entries(value)) {
    const found = unwritable(item, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key, enclosing);
    if (found) return found;
  }
  enclosing.delete(value);
  return null;
}

/** A failure to get an answer at all as a NaipesError. */
function transportError(error, baseUrl) {
  if (error instanceof NaipesError) return error;
  const timedOut = error?.name === "TimeoutError" || error?.name === "AbortError";
  const cause = error?.cause?.message ?? error?.cause?.code;
  return new NaipesError({
    code: timedOut ? "DEADLINE_EXCEEDED" : "UNAVAILABLE",
    detail: timedOut ? `${baseUrl}: no answer within the timeout` : `${baseUrl}: ${error?.message}${cause ? ` (${cause})` : ""}`,
  });
}

async function readText(response, baseUrl) {
  try {
    return await response.text();
  } catch (error) {
    throw transportError(error, baseUrl);
  }
}

function parse(text, baseUrl) {
  try {
    return JSON.parse(text);
  } catch {
    throw new NaipesError({ code: "UNAVAILABLE", detail: `${baseUrl}: the answer is not JSON: ${text.slice(0, 200)}` });
  }
}

/** An HTTP error's problem JSON as a NaipesError; HTTP_<status> for any other body. */
function httpError(response, text) {
  let problem;
  try {
    problem = JSON.parse(text);
  } catch {}
  if (problem?.code) return new NaipesError(problem);
  const words = text.split(/\s+/).join(" ").trim().slice(0, 200);
  return new NaipesError({ code: `HTTP_${response.status}`, status: response.status,
                           detail: `HTTP ${response.status} ${response.statusText}${words ? `: ${words}` : ""}` });
}

const MAX_BATCH = 1000;  // the service's limit on the records of one line
const MAX_TIMEOUT_MS = 2 ** 31 - 1;  // the longest a timer (setTimeout, AbortSignal.timeout) waits
const REQUEST_RECORDS = 2000;  // the records of one validateHands request at most (the Python RestClient's REST_CHUNK)
const FLUSH_MS = 50;  // an async iterable's pause after which the records come so far are sent (the Python clients' FLUSH_SECONDS)
const PAUSED = Symbol("paused");
const BATCH_BYTES = 768 * 1024;  // the bytes of a line's records' JSON (UTF-8) at most
const UTF8 = new TextEncoder();
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;  // a request ID, as the service reads it (docs/api.md)
