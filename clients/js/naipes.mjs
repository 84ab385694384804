// Naipes REST client for JavaScript (browsers and Node.js 18+): no dependencies, just fetch.
//
//   import { Naipes } from "./naipes.mjs";
//   const naipes = new Naipes("http://127.0.0.1:8080");
//   const result = await naipes.validateHand(record);   // the validation result of FORMAT.md
//
// Every method takes and returns the JSON of docs/format.md and the API's proto messages.
// A request the service rejects throws a NaipesError carrying the problem JSON's code and field.

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
  constructor(baseUrl = "http://127.0.0.1:8080", { fetchImpl = globalThis.fetch } = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.fetch = fetchImpl;
  }

  async #call(method, path, body) {
    const response = await this.fetch(this.baseUrl + path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = await response.json();
    if (!response.ok) throw new NaipesError(payload);
    return payload;
  }

  /** Replay a hand record: legality, next legal actions, tricks, settlement. */
  validateHand(record) {
    return this.#call("POST", "/v1/hands:validate", record);
  }

  /** Who acts and every legal action; with `seat`, that seat's view only. */
  legalActions(record, seat) {
    const query = seat === undefined ? "" : `?seat=${encodeURIComponent(seat)}`;
    return this.#call("POST", `/v1/hands:legalActions${query}`, record);
  }

  /** The winner of one trick: {game, seats, leader, contract: {trump}, cards}. */
  resolveTrick(request) {
    return this.#call("POST", "/v1/tricks:resolve", request);
  }

  /** The settlement of a finished hand from its summary and the table before it. */
  settleHand(request) {
    return this.#call("POST", "/v1/hands:settle", request);
  }

  /** A deterministic deal from a seed, with its commitment. */
  deal(request) {
    return this.#call("POST", "/v1/deals", request);
  }

  /** A game's house-rule options with their defaults. */
  describeRules(game) {
    return this.#call("GET", `/v1/games/${encodeURIComponent(game)}/rules`);
  }

  /** Validate many records (an array): one answer per record, in order, `{result}` (what
   *  validateHand answers) or `{error: {code, field, message}}`; sent as one NDJSON stream in
   *  lines of `batch` records. A server process validates a few streams at a time and refuses
   *  more (TOO_MANY_STREAMS): the stream is sent again after its Retry-After, `retries` times. */
  async validateHands(records, { batch = 50, retries = 30 } = {}) {
    // Lines of `batch` records, fewer when they are large: a line is at most 1 MiB.
    const parts = [];
    let part = [], used = 0;
    for (const record of records) {
      const length = JSON.stringify(record).length;
      if (part.length && (part.length === batch || used + length > BATCH_BYTES)) {
        parts.push(part);
        part = [];
        used = 0;
      }
      part.push(record);
      used += length;
    }
    if (part.length) parts.push(part);
    const body = parts.map((part) => JSON.stringify({ batch: part.map((record) => ({ record })) }) + "\n").join("");
    let response;
    for (let attempt = 0; ; attempt++) {
      response = await this.fetch(this.baseUrl + "/v1/hands:validateStream", {
        method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body,
      });
      if (response.ok) break;
      const problem = await response.json();
      if (problem.code !== "TOO_MANY_STREAMS" || attempt >= retries) throw new NaipesError(problem);
      const seconds = Number(response.headers.get("Retry-After")) || 1;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
    const lines = (await response.text()).split("\n").filter((line) => line.trim());
    return lines.flatMap((line, i) => {
      const answer = JSON.parse(line);  // a line's own error (too long, say) is each of its records' answer
      return answer.batch ?? parts[i].map(() => answer);
    });
  }
}

const BATCH_BYTES = 768 * 1024;  // the JSON text of a line's records at most
