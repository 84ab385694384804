// The types of naipes.mjs, the REST client, for TypeScript: what each method takes and answers, in
// the JSON of the REST API (protobuf's JSON mapping of protos/naipes/v1/naipes.proto, docs/api.md).
// The messages are generated from the proto (messages.d.mts: make js-types), and each game's house
// rules from the engine's option tables (rules.d.mts: make js-types); this file, by hand,
// types the client itself.
//
//   import { Naipes, type HandRecord } from "./naipes.mjs";
//   const result = await new Naipes("http://127.0.0.1:8080").validateHand(record);
//   if (!result.valid) console.log(result.violation?.code);
//
// An answer's field that may be absent is optional (`violation?`): a field the proto marks
// `optional` or a message is there when it applies, a plain string always; a list is there when
// it is not empty, but for the lists every answer has (a result's `tricks` and `events`, `legal`
// and `actions`). A request's fields may all be left out (the service answers MISSING_FIELD for
// one it needs). Numbers are int32, JSON numbers (the API has no int64; the service also reads an
// integer sent as a string, "4", which these types do not offer); cards, card lists and actions
// are strings ("1e", "1e 7o 12c", "2 1e").
//
// A request's house rules are typed by its game (rules.d.mts, generated from the engine's option
// tables: make js-types): a record, ResolveTrick's and SettleHand's request with `game: "rentoy"`
// take `rules?: RentoyRules`, so a misspelt option or a value the option does not take is a type
// error. `game` is then one of the three names, as a literal: a `rules` object built apart is
// typed as its game's (`const rules: RentoyRules = {...}`, or `as const`) for its strings to stay
// literals. A request without `game` (refused: MISSING_FIELD) takes no rules. A game named on its
// own (describeRules' argument, deal's `game`) is a Game too: "mus" is a type error, as a string
// typed only as string is (narrow it first: `game === "rentoy"`).

import type * as M from "./messages.mjs";
import type { GameRules } from "./rules.mjs";

export type {
  CartulinaEntry, Condicion, Contract, Deal, DealResponse, DescribeRulesResponse, Event, Forfeit,
  LegalAction, LegalActionsResponse, NapolitanaOutcome, Next, Payment, Problem, Proposal,
  ResolveTrickResponse, RevesinoOutcome, RuleOption, RuleValue, ServiceErrorCode, SettleHandResponse, Table,
  Trick, ValidationResult, View, Violation, ViolationCode,
} from "./messages.mjs";
export type { GameRules, RentoyRules, RevesinoRules, TresilloRules } from "./rules.mjs";

/** A game's name: "tresillo", "revesino" or "rentoy". */
export type Game = keyof GameRules;

/** A message as a client sends it: every field, at every depth, may be left out. */
export type Sent<T> = T extends string | number | boolean | null | undefined ? T
  : T extends readonly (infer Item)[] ? Sent<Item>[]
  : { [K in keyof T]?: Sent<T[K]> };

/** A request T for the game G: `game` G, and `rules` G's house rules (GameRules[G]). */
export type ForGame<T, G extends Game> = Flat<{ game: G; rules?: GameRules[G] | undefined } & Omit<T, "game" | "rules">>;
/** A request T without a game, which the service refuses (MISSING_FIELD): no rules either. */
export type NoGame<T> = Flat<{ game?: undefined; rules?: undefined } & Omit<T, "game" | "rules">>;
/** A request T for any one game, with that game's rules, or without a game. */
export type ByGame<T> = { [G in Game]: ForGame<T, G> }[Game] | NoGame<T>;
type Flat<T> = { [K in keyof T]: T[K] };
/** A method's request for the game its `game` names (G, inferred from it), as sent. */
type Request<T, G extends Game> = ForGame<Sent<T>, G> | NoGame<Sent<T>>;

/** A hand record (docs/format.md section 3): the body of validateHand and legalActions, its
 *  `rules` those of its game (TresilloRules, RevesinoRules, RentoyRules). */
export type HandRecord = ByGame<Sent<M.HandRecord>>;
/** resolveTrick's request: {game, seats, leader, contract: {trump}, cards, rules}. */
export type ResolveTrickRequest = ByGame<Sent<M.ResolveTrickRequest>>;
/** settleHand's request: a finished hand's summary, the table before it, its game's rules. */
export type SettleHandRequest = ByGame<Sent<M.SettleHandRequest>>;
/** deal's request: {game, seats, dealer, seed}, `game` one of the three names. */
export type DealRequest = Flat<{ game?: Game | undefined } & Omit<Sent<M.DealRequest>, "game">>;

/** validateHands' answer to one record: its result (what validateHand answers), or the error
 *  that kept it from being validated, as an NDJSON stream's entry gives it. */
export type ValidateHandsAnswer =
  | { result: M.ValidationResult; error?: undefined }
  | { error: M.Problem; result?: undefined };

/** A NaipesError's code: the service's, or the client's own when no answer of the service came:
 *  UNAVAILABLE, DEADLINE_EXCEEDED, HTTP_<status> (HTTP_502: an HTTP error that is not the service's
 *  problem JSON). */
export type ErrorCode = M.ServiceErrorCode | "UNAVAILABLE" | "DEADLINE_EXCEEDED" | `HTTP_${number}`;

/** The JSON of an error (RFC 9457 problem JSON, docs/api.md): the service's, or the client's own
 *  for a failure to get an answer (UNAVAILABLE, DEADLINE_EXCEEDED, HTTP_<status>). */
export interface ProblemJson {
  type?: string;
  title?: string;
  /** The HTTP status; absent when no HTTP answer came (UNAVAILABLE, DEADLINE_EXCEEDED). */
  status?: number;
  detail?: string;
  code: ErrorCode;
  field?: string;
  fieldViolations?: { field: string; description: string }[];
}

/** Every failure of a call: a request the service rejects (the problem JSON's code and field),
 *  UNAVAILABLE (no server, or an answer that cannot be read; in a browser also an answer the page
 *  may not read, its origin not allowed by the server's CORS: Chromium's "Failed to fetch",
 *  Firefox's "NetworkError when attempting to fetch resource."), DEADLINE_EXCEEDED (no answer
 *  within the timeout) or HTTP_<status> (HTTP_502: an HTTP error that is not the service's problem JSON). */
export class NaipesError extends Error {
  constructor(problem: ProblemJson);
  readonly name: "NaipesError";
  /** The code of docs/api.md's error table, or UNAVAILABLE, DEADLINE_EXCEEDED, HTTP_<status>. */
  code: ErrorCode;
  /** The HTTP status, when an HTTP answer came. */
  status: number | undefined;
  /** The offending field in the record's JSON spelling (deal.hands[3]), when one is at fault. */
  field: string | undefined;
  /** The whole problem JSON. */
  problem: ProblemJson;
}

export interface NaipesOptions {
  /** The fetch to call (default: globalThis.fetch), called as a function, with no `this` (a
   *  browser's own fetch refuses any other than the window). */
  fetchImpl?: typeof fetch;
  /** How long a call waits for its answer (DEADLINE_EXCEEDED after); for validateHands, how long
   *  the stream may go without answering. Default 10,000; above 0 and at most 2 ** 31 - 1 (what a
   *  timer holds, about 24.8 days), else the constructor throws RangeError. */
  timeoutMs?: number;
  /** True: every body sent gzip-compressed (Content-Encoding: gzip; an archive's NDJSON in about a
   *  tenth of its bytes), which the service decodes. The answers come compressed whatever this
   *  says, fetch asking for it and decoding it unseen (docs/api.md, "Compressed answers"). Default false. */
  compress?: boolean;
}

/** What every call takes besides its request. */
export interface CallOptions {
  /** The request's ID, sent as its X-Request-Id header (none without one): 1 to 128 visible ASCII
   *  characters (`!` to `~`). The service sends it back on the answer, errors included, and writes
   *  it in its access log; one it would refuse is refused before sending, a NaipesError
   *  INVALID_FIELD naming the field `x-request-id`. */
  requestId?: string | null | undefined;
}

/** What validateHand takes besides its record. */
export interface ValidateHandOptions extends CallOptions {
  /** True: the result's `events` (what happened, action by action) empty, every other field as
   *  without it (sent as ?omitEvents=true). Default false (nothing sent). */
  omitEvents?: boolean | undefined;
}

export interface ValidateHandsOptions extends CallOptions {
  /** Records per NDJSON line (fewer when they are large: a line is at most 1 MiB), an integer from
   *  1 to 1000 (else a NaipesError INVALID_FIELD naming `batch`, before sending). Default 50. */
  batch?: number;
  /** How many times a stream refused with TOO_MANY_STREAMS is sent again. Default 30. */
  retries?: number;
  /** True: every result's `events` empty, every other field as without it (sent as
   *  "omitEvents": true on each line). Default false (nothing sent). */
  omitEvents?: boolean | undefined;
  /** The stream's request ID (each attempt's): CallOptions' `requestId`. */
  requestId?: string | null | undefined;
}

/** The REST client. Every method throws a NaipesError for every failure (its promise rejects, or
 *  validateHandsStream's iterator: never at once, whatever it is given), and takes a request ID
 *  in its last argument (`{ requestId: "abc-1" }`, CallOptions; options null are none). */
export class Naipes {
  /** `baseUrl` default "http://127.0.0.1:8080". */
  constructor(baseUrl?: string, options?: NaipesOptions | null);
  /** The base URL, without a trailing slash. */
  baseUrl: string;
  fetch: typeof fetch;
  timeoutMs: number;
  compress: boolean;

  /** Replay a hand record: legality, next legal actions, tricks, settlement (with `omitEvents`,
   *  its `events` empty). */
  validateHand<G extends Game>(record: Request<M.HandRecord, G>, options?: ValidateHandOptions | null): Promise<M.ValidationResult>;
  /** Who acts and every legal action; with `seat`, that seat's view only (null: no seat). */
  legalActions<G extends Game>(record: Request<M.HandRecord, G>, seat?: number | null, options?: CallOptions | null): Promise<M.LegalActionsResponse>;
  /** The winner of one trick. */
  resolveTrick<G extends Game>(request: Request<M.ResolveTrickRequest, G>, options?: CallOptions | null): Promise<M.ResolveTrickResponse>;
  /** The settlement of a finished hand from its summary and the table before it. */
  settleHand<G extends Game>(request: Request<M.SettleHandRequest, G>, options?: CallOptions | null): Promise<M.SettleHandResponse>;
  /** A deterministic deal from a seed, with its commitment. */
  deal(request: DealRequest, options?: CallOptions | null): Promise<M.DealResponse>;
  /** A game's house-rule options with their defaults. */
  describeRules(game: Game, options?: CallOptions | null): Promise<M.DescribeRulesResponse>;
  /** Validate many records (an array, any iterable or an async iterable): a promise of one answer
   *  per record, in order, once every record has been answered (2,000 records a stream). A record
   *  JSON cannot hold (NaN, a BigInt) is answered by an INVALID_FIELD error in its place. */
  validateHands(records: Iterable<HandRecord> | AsyncIterable<HandRecord>, options?: ValidateHandsOptions | null): Promise<ValidateHandsAnswer[]>;
  /** validateHands' answers one by one, each as soon as its line of the stream is answered
   *  (`for await (const answer of naipes.validateHandsStream(records))`), one stream's records and
   *  answers held at a time: for an archive too large to hold its answers, or a live feed (an async
   *  iterable's records not yet a full stream are sent once they pause 50 ms). An error of the
   *  iterable is thrown after the answers of the records before it; leaving the loop early cancels
   *  the stream in flight and closes the iterable. A stream cut short after some answers (the
   *  service ends one whose caller holds an answer 30 s) is sent again from its first record not
   *  answered. */
  validateHandsStream(records: Iterable<HandRecord> | AsyncIterable<HandRecord>, options?: ValidateHandsOptions | null): AsyncGenerator<ValidateHandsAnswer, void, undefined>;
}
