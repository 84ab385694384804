// Naipes REST client for JavaScript (browsers and Node.js 18+): no dependencies, just fetch.
//
//   import { Naipes } from "./naipes.mjs";
//   const naipes = new Naipes("http://127.0.0.1:8080");
//   const result = await naipes.validateHand(record);   // the validation result of FORMAT.md
//
// Every method takes and returns the JSON of records/FORMAT.md and the API's proto messages.
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
}
