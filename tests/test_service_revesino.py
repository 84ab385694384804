"""Revesino over the service, on both transports (gRPC and REST), against the engine.

* Random legal playouts (random dealers, option sets, tables and deals, a third rigged for a
  napolitana and a third for a revesino): the REST JSON of every prefix's ValidateHand is
  ``engine.api.validate(record)`` exactly, gRPC answers the same, LegalActions (the table's view
  and each seat's) is ``api.legal_actions`` on both transports, and a seat's view shows no card it
  may not see (where every card is, is replayed from the record here, not read from the engine).
* The shared Revesino sample records, with the figures they expect.
* SettleHand: hands worked out from the spec's worked examples (RV-9 won, RV-10 cut and its
  napolitana variants, RV-11 failed napolitana, an ordinary hand with its party), and the
  settlement of finished playouts rebuilt from their record agrees with ValidateHand.
* ResolveTrick: RV-3 to RV-7, the napolitana's renounce and his forced cards.
* Bad Revesino input: the same error code and field on both transports.
* DescribeRules: every option of the spec with its default.
"""

from __future__ import annotations

import copy
import functools
import random
from typing import Any

import pytest
from revesino_support import ACES, DECK, QUINOLA, card_points, cards_in, qualifies, strength, suit, trick_winner
from service_support import (
    assert_healthy,
    assert_same_error,
    call_both,
    call_rest,
    engine_error,
    examples_dir,
    load_example,
)

from engine import api

HANDS = 12  # random playouts; every prefix of each goes over REST
TABLES: list[dict | None] = [None, {}, {"fondo": 0}, {"fondo": 5}, {"fondo": 9}, {"fondo": 33}, {"fondo": 1000}, {"fondo": 250000}]

def engine_answer(rpc: str, request: dict) -> dict:
    if rpc == "ValidateHand":
        return api.validate(request["record"])
    if rpc == "LegalActions":
        return api.legal_actions(request["record"], request.get("seat"))
    return api.settle_hand(request)


def both(stub, http, rest_url, rpc: str, request: dict) -> dict:
    """The answer over both transports, which must be the engine's."""
    expected = engine_answer(rpc, request)
    answer = call_both(stub, http, rest_url, rpc, request)
    assert answer == expected
    return answer


# ---- where every card is, from the record alone -----------------------------------------------------


def _dealt(record: dict) -> dict:
    """The record's deal as cards (a seed is dealt by api.deal)."""
    deal = record["deal"]
    if "seed" in deal:
        deal = api.deal({"game": "revesino", "seats": 4, "dealer": record["dealer"], "seed": deal["seed"]})["deal"]
    return deal


class Tracker:
    """One Revesino hand replayed from its record's actions, independently of the engine (spec A3,
    A5, section 0): each seat's hand, the undealt cards and whose they are, each seat's choice in
    the exchange and its card out of play, the napolitana (called, or under ``implicit`` the first
    renounce of the seat that qualifies), the announcer, and the tricks with their winners and the
    aces and quínola that were forced (the player's only card of the suit led, never the
    napolitana's in tricks 1-9)."""

    def __init__(self, record: dict) -> None:
        self.rules = record.get("rules") or {}
        self.dealer = record["dealer"]
        deal = _dealt(record)
        self.hands = [h.split() for h in deal["hands"]]
        self.undealt = deal["stock"].split()  # S1's, S2's, S3's
        self.choice: dict[int, str] = {}
        self.own_out: dict[int, str] = {}
        self.out: list[str] = []  # the cards out of play, S1's, S2's, S3's, the dealer's
        self.eleven: list[list[str]] | None = None  # the hands right after the exchange
        self.napolitana: int | None = None
        self.announcer: int | None = None
        self.tricks: list[dict] = []
        self.trick: list[str] = []
        self.forced: list[str] = []
        self.leader = (self.dealer + 1) % 4
        for action in record["actions"]:
            self.apply(action)

    def undealt_of(self, seat: int) -> str | None:
        return None if seat == self.dealer else self.undealt[(seat - self.dealer - 1) % 4]

    def apply(self, action: str) -> None:
        seat_text, word, *args = action.split()
        seat = int(seat_text)
        if word in ("cambio", "quedo", "descarte"):
            self.choice[seat] = word
            gone = self.undealt_of(seat) if word == "quedo" else args[0]
            assert gone is not None
            if word != "quedo":
                self.hands[seat].remove(gone)
            if word == "cambio":
                self.hands[seat].append(self.undealt_of(seat))
            self.out.append(gone)
            self.own_out[seat] = gone
            if seat == self.dealer:
                self.eleven = [list(h) for h in self.hands]
        elif word == "napolitana":
            self.napolitana = seat
        elif word == "revesino":
            self.announcer = seat
        else:
            self.play(seat, word)

    def play(self, seat: int, card: str) -> None:
        number = len(self.tricks) + 1
        hand = self.hands[seat]
        if self.trick:
            led = suit(self.trick[0])
            same = [c for c in hand if suit(c) == led]
            assert self.eleven is not None
            if (suit(card) != led and same and number <= 9 and self.napolitana is None
                    and self.rules.get("napolitanaDeclaration") == "implicit" and qualifies(self.eleven[seat])):
                self.napolitana = seat
            privileged = seat == self.napolitana and number <= 9
            if (card in ACES or card == QUINOLA) and suit(card) == led and len(same) == 1 and not privileged:
                self.forced.append(card)
        hand.remove(card)
        self.trick.append(card)
        if len(self.trick) == 4:
            winner = (self.leader + trick_winner(self.trick)) % 4
            self.tricks.append({"leader": self.leader, "cards": self.trick, "winner": winner, "forced": self.forced})
            self.trick, self.forced, self.leader = [], [], winner

    @property
    def played(self) -> set[str]:
        return {c for t in self.tricks for c in t["cards"]} | set(self.trick)

    def visible(self, seat: int) -> set[str]:
        """What ``seat`` may see besides the cards played: its hand, its undealt card once it has
        chosen (before, with peekBeforeExchange), its own card out of play."""
        seen = set(self.hands[seat])
        own = self.undealt_of(seat)
        if own is not None and (seat in self.choice or self.rules.get("peekBeforeExchange") is True):
            seen.add(own)
        if seat in self.own_out:
            seen.add(self.own_out[seat])
        return seen

    def hidden(self, seat: int) -> set[str]:
        """What ``seat`` may never see: the other hands, the others' undealt cards wherever they
        are, the others' cards out of play, and its own undealt card before it has chosen."""
        others = [s for s in range(4) if s != seat]
        secret = {c for s in others for c in self.hands[s]}
        secret |= {c for s in others if (c := self.undealt_of(s)) is not None}
        secret |= {self.own_out[s] for s in others if s in self.own_out}
        return (secret - self.visible(seat)) - self.played


# ---- random hands ----------------------------------------------------------------------------------


def random_rules(key: str) -> dict[str, Any]:
    """Each option of DescribeRules with probability 0.3; a number stays at its default or small.
    Each option draws from a generator of its own, seeded from ``key`` and its name: an option
    added to the engine changes no other option's value, nor a playout's deal or play."""
    rules: dict[str, Any] = {}
    for option in api.describe_rules("revesino")["options"]:
        rng = random.Random(f"{key}-{option['name']}")
        if rng.random() < 0.3:
            choices = option["choices"]
            if isinstance(option["default"], int) and not isinstance(option["default"], bool):
                choices = [option["default"], *choices[:3]]
            rules[option["name"]] = rng.choice(choices)
    return rules


def _give(deal: dict, seat: int, wanted: list[str]) -> dict:
    """The deal with cards swapped so that ``seat`` holds every card of ``wanted``."""
    piles = [h.split() for h in deal["hands"]] + [deal["stock"].split()]
    mine = piles[seat]
    for card in wanted:
        if card in mine:
            continue
        pile = next(p for p in piles if card in p)
        spare = min((c for c in mine if c not in wanted), key=lambda c: c in ACES or c == QUINOLA)
        pile[pile.index(card)], mine[mine.index(spare)] = spare, card
    return {"hands": [" ".join(p) for p in piles[:4]], "stock": " ".join(piles[4])}


def random_record(rng: random.Random, rig: str, spelled: bool, rules: str) -> tuple[dict, int | None]:
    """A random hand's record and its rigged seat: ``napolitana`` (a seat holds three aces and the
    quínola, or the four aces), ``revesino`` (S1 holds the top cards of three suits: nine, or all
    eleven of his cards), or ``""``. The deal is a seed, or (``spelled``, and every rigged one) the
    cards api.deal gives for it, as an app would send them; ``rules`` keys its random rules."""
    dealer = rng.randrange(4)
    seed = f"revesino-service-{rng.random()}"
    record: dict[str, Any] = {"game": "revesino", "seats": 4, "dealer": dealer, "rules": random_rules(rules),
                              "deal": {"seed": seed}, "actions": []}
    table = rng.choice(TABLES)
    if table is not None:
        record["table"] = dict(table)
    if rig or spelled:
        record["deal"] = api.deal({"game": "revesino", "seats": 4, "dealer": dealer, "seed": seed})["deal"]
    seat = None
    if rig == "napolitana":
        seat = rng.randrange(4)
        wanted = list(ACES) if rng.random() < 0.4 else [*rng.sample(ACES, 3), QUINOLA]
        record["deal"] = _give(record["deal"], seat, wanted)
    elif rig == "revesino":
        seat = (dealer + 1) % 4
        a, b, c = rng.sample("oceb", 3)
        tops = [f"{r}{x}" for x in (a, b, c) for r in (1, 12, 11)]
        if rng.random() < 0.6:  # all eleven: a revesino that cannot be cut
            tops += [f"10{a}", f"10{b}"]
        record["deal"] = _give(record["deal"], seat, tops)
    return record, seat


def _kind(action: str) -> str:
    word = action.split()[1]
    return "card" if word[0].isdigit() else word


def choose(rng: random.Random, track: Tracker, legal: list[str], rigged: int | None, rig: str) -> str:
    """A random legal action; the napolitana and revesino calls when legal (mostly; the rigged
    revesino seat always announces); the rigged seat keeps its cards in the exchange, the
    napolitana renounces (under ``implicit``, this is his declaration), and the revesino seat plays
    sure winners."""
    calls = [a for a in legal if _kind(a) in ("napolitana", "revesino")]
    if rig == "revesino":  # the revesino seat (three aces and the quínola, maybe) announces, never a napolitana
        calls = [a for a in calls if a != f"{rigged} napolitana"]
        if f"{rigged} revesino" in calls:
            return f"{rigged} revesino"
    if calls and rng.random() < 0.85:
        return rng.choice(calls)
    seat = int(legal[0].split()[0]) if not track.eleven else (track.leader + len(track.trick)) % 4
    mine = [a for a in legal if int(a.split()[0]) == seat]
    if seat == rigged and track.eleven is None:
        keep = [a for a in mine if _kind(a) == "quedo"]
        if keep:
            return keep[0]
        plain = [a for a in mine if a.split()[-1] not in ACES and a.split()[-1] != QUINOLA
                 and (rig != "revesino" or a.split()[-1][:-1] not in ("1", "12", "11", "10"))]
        return rng.choice(plain or mine)
    cards = [a.split()[1] for a in mine if _kind(a) == "card"]
    if seat == rigged and rig == "revesino" and cards:
        others = [c for s in range(4) if s != seat for c in track.hands[s]]
        sure = [c for c in cards if not any(suit(o) == suit(c) and strength(o) > strength(c) for o in others)]
        return f"{seat} {max(sure or cards, key=lambda c: (strength(c), c))}"
    if seat == rigged and rig == "napolitana" and track.trick and rng.random() < 0.7:
        off = [c for c in cards if suit(c) != suit(track.trick[0])]
        if off:
            return f"{seat} {rng.choice(off)}"
    kinds = sorted({_kind(a) for a in mine})
    kind = rng.choice(kinds)
    return rng.choice([a for a in mine if _kind(a) == kind])


def playout(rng: random.Random, rig: str, spelled: bool, rules: str, overrides: dict | None = None) -> list[dict]:
    """Every prefix of one random legal hand."""
    record, rigged = random_record(rng, rig, spelled, rules)
    record["rules"].update(overrides or {})
    prefixes = [copy.deepcopy(record)]
    track = Tracker(record)
    while True:
        result = api.validate(record)
        assert result["valid"], result.get("violation")
        if result["finished"]:
            return prefixes
        action = choose(rng, track, result["next"]["legal"], rigged, rig)
        track.apply(action)
        record = dict(record, actions=[*record["actions"], action])
        prefixes.append(record)


RIGS = ("", "napolitana", "revesino")
# Options set on top of the random ones, so that the playouts surely meet them: an implicit
# napolitana, a cut revesino played out (seed 2's is cut) and a won one, a peek before the exchange.
OVERRIDES = {2: {"playOutAfterCut": True}, 4: {"napolitanaDeclaration": "implicit"}, 8: {"playOutAfterCut": True},
             9: {"peekBeforeExchange": True}}


@functools.cache
def _playout(seed: int, prefix: str = "revesino") -> list[dict]:
    overrides = OVERRIDES.get(seed, {}) if prefix == "revesino" else {}
    return playout(random.Random(f"{prefix}-{seed}"), RIGS[seed % 3], spelled=seed % 2 == 1, rules=f"{prefix}-{seed}",
                   overrides=overrides)


# ---- 1. random playouts ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(HANDS))
def test_playout_validation_is_the_engine_result(seed: int, stub, http, rest_url) -> None:
    records = _playout(seed)
    for record in records:
        expected = api.validate(record)
        assert call_rest(http, rest_url, "ValidateHand", {"record": record}) == expected
    rng = random.Random(seed)
    for record in (records[0], records[4], rng.choice(records), records[-1]):
        both(stub, http, rest_url, "ValidateHand", {"record": record})
    # The record replayed here agrees with the engine's tricks, napolitana and revesino.
    last = records[-1]
    track = Tracker(last)
    result = api.validate(last)
    assert result["finished"] is True
    assert [(t["leader"], t["cards"], t["winner"]) for t in result["tricks"]] == \
        [(t["leader"], t["cards"], t["winner"]) for t in track.tricks]
    assert (result.get("napolitana") or {}).get("seat") == track.napolitana
    assert (result.get("revesino") or {}).get("seat") == track.announcer
    assert result["cardPoints"] == [sum(card_points(c) for t in track.tricks if t["winner"] == s for c in t["cards"]) for s in range(4)]
    # An action after the end, and a random cut ending in an illegal action.
    over = dict(last, actions=[*last["actions"], f"{(last['dealer'] + 1) % 4} 2o"])
    result = api.validate(over)
    both(stub, http, rest_url, "ValidateHand", {"record": over})
    assert result["valid"] is False and result["violation"]["action"] == len(last["actions"])
    assert result["violation"]["code"] == "NOT_ALLOWED_NOW"
    cut = rng.randrange(len(last["actions"]))
    bad = rng.choice([f"{last['dealer']} quedo", "4 quedo", "0 revesino", "1 napolitana", "2 descarte 1o", "3 cambio 2c", "0 x", "1 1o", "2 9o 8o"])
    broken = dict(last, actions=[*last["actions"][:cut], bad])
    result = api.validate(broken)
    both(stub, http, rest_url, "ValidateHand", {"record": broken})
    if bad in ("4 quedo", "0 x", "2 9o 8o"):
        assert result["violation"] == {**result["violation"], "action": cut, "code": "MALFORMED_ACTION"}


def _view_prefixes(records: list[dict]) -> list[dict]:
    """The start of the exchange and its middle, the napolitana window (right after the dealer's
    discard), the middle of the play, the lead to trick 10 (the revesino window), the end."""
    chosen = [records[0], records[2], records[4], records[(4 + len(records)) // 2]]
    for record in records[4:]:
        if len(Tracker(record).tricks) == 9:
            chosen.append(record)
            break
    chosen.append(records[-1])
    return chosen


@pytest.mark.parametrize("seed", range(HANDS))
def test_playout_legal_actions_and_views(seed: int, stub, http, rest_url) -> None:
    for record in _view_prefixes(_playout(seed)):
        track = Tracker(record)
        played = track.played
        answer = both(stub, http, rest_url, "LegalActions", {"record": record})
        if answer is None:
            continue
        # The table's view is public: the cards played and nothing else.
        assert "hand" not in answer["view"] and "undealtCard" not in answer["view"] and "discarded" not in answer["view"]
        assert cards_in(answer["view"]) <= played
        everyone = set()
        for seat in range(4):
            answer = both(stub, http, rest_url, "LegalActions", {"record": record, "seat": seat})
            assert answer is not None
            view = answer["view"]
            assert view["seat"] == seat
            assert sorted(view["hand"].split()) == sorted(track.hands[seat])
            assert view["handSizes"] == [len(h) for h in track.hands]
            assert view["exchanges"] == [track.choice.get(s, "") for s in range(4)]
            own = track.undealt_of(seat)
            if own is not None and (seat in track.choice or track.rules.get("peekBeforeExchange") is True):
                assert view["undealtCard"] == own
            else:
                assert "undealtCard" not in view
            if track.choice.get(seat) in ("cambio", "descarte"):
                assert view["discarded"] == track.own_out[seat]
            else:
                assert "discarded" not in view
            seen = cards_in(answer)
            assert not (seen & track.hidden(seat)), (seat, sorted(seen & track.hidden(seat)))
            assert seen <= track.visible(seat) | played, (seat, sorted(seen - track.visible(seat) - played))
            assert all(a.split()[0] == str(seat) for a in answer["legal"])
            assert all(a["seat"] == seat for a in answer["actions"])
            everyone |= set(answer["legal"])
        if not answer["finished"]:
            assert everyone == set(api.validate(record)["next"]["legal"])


def test_playouts_cover_the_game() -> None:
    """The playouts above reach the napolitana, the revesino won and cut, and several endings."""
    napolitanas, revesinos, tiebreaks, tables = set(), set(), set(), set()
    for seed in range(HANDS):
        records = _playout(seed)
        last = api.validate(records[-1])
        assert last["finished"] is True and "net" in last and "table" in last
        before = (records[-1].get("table") or {}).get("fondo", 0)
        assert sum(last["net"]) == before - last["table"]["fondo"]
        if "napolitana" in last:
            napolitanas.add(last["napolitana"]["outcome"])
        if "revesino" in last:
            revesinos.add(last["revesino"]["outcome"])
        tiebreaks.add(last.get("tiebreak"))
        tables.add(before)
        assert len({"seed" in r["deal"] for r in records}) == 1
        rules = records[0]["rules"]
        if "napolitana" in last and rules.get("napolitanaDeclaration") == "implicit":
            napolitanas.add("implicit")
        if "revesino" in last and len(last["tricks"]) == 11 and last["revesino"]["outcome"] == "cut":
            revesinos.add("played out")
        if rules.get("peekBeforeExchange") is True:
            revesinos.add("peek")
    assert {"implicit", "success"} <= napolitanas, napolitanas
    assert revesinos >= {"won", "cut", "played out", "peek"}, revesinos
    assert len(tiebreaks) >= 3, tiebreaks
    assert {0, 250000} & tables and len(tables) >= 4, tables
    assert any("seed" in _playout(s)[0]["deal"] for s in range(HANDS))
    assert any("hands" in _playout(s)[0]["deal"] for s in range(HANDS))


def test_deal_over_both_transports(stub, http, rest_url) -> None:
    """A Revesino deal: 11 cards to each non-dealer, 12 to the dealer, 3 undealt; the seed in a
    record deals the same cards."""
    for dealer in range(4):
        request = {"game": "revesino", "seats": 4, "dealer": dealer, "seed": f"deal-{dealer}"}
        answer = call_both(stub, http, rest_url, "Deal", request)
        assert answer == api.deal(request)
        hands = [h.split() for h in answer["deal"]["hands"]]
        assert [len(h) for h in hands] == [12 if s == dealer else 11 for s in range(4)]
        stock = answer["deal"]["stock"].split()
        assert len(stock) == 3 and sorted(stock + [c for h in hands for c in h]) == sorted(DECK)
        seeded = {"game": "revesino", "seats": 4, "dealer": dealer, "deal": {"seed": request["seed"]}, "actions": []}
        spelled = dict(seeded, deal=answer["deal"])
        view = call_both(stub, http, rest_url, "LegalActions", {"record": seeded, "seat": dealer})
        assert view == call_both(stub, http, rest_url, "LegalActions", {"record": spelled, "seat": dealer})
        assert sorted(view["view"]["hand"].split()) == sorted(hands[dealer])


# ---- 2. the shared sample records ----------------------------------------------------------------

EXAMPLES = sorted(examples_dir().glob("revesino-*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_settled_from_its_summary(path, stub, http, rest_url) -> None:
    """(ValidateHand and LegalActions of every sample: test_service_examples.py.)"""
    record, _expect = load_example(path)
    result = api.validate(record)
    if result["finished"]:
        # The settlement of the same hand from its summary.
        answer = call_both(stub, http, rest_url, "SettleHand", settle_request(record, result))
        assert (answer["net"], answer["table"], answer["payments"]) == (result["net"], result["table"], result["payments"])


# ---- 3. SettleHand ----------------------------------------------------------------------------------


def test_settle_a_cut_hand_with_a_named_revoke(stub, http, rest_url) -> None:
    """A trick's ``revoked`` reaches the engine over both transports (tests/test_revesino_money.py
    holds its meaning): the cut hand whose trick-10 revoke nothing else shows."""
    tricks = ["1o 3o 12c 5e", "12o 2o 12e 4e", "11o 3c 11e 3e", "9o 4c 10e 2e", "8o 5c 9e 12b", "7o 6c 8e 11b", "6o 7c 7e 10b",
              "5o 1e 11c 9b", "4o 1b 10c 8b", "2c 1c 6e 7b"]
    summary = {"tricks": [{"cards": t} for t in tricks], "announcer": 1, "outOfPlay": "4b 3b 2b 5b"}
    summary["tricks"][9]["revoked"] = "6e"
    request = {"game": "revesino", "seats": 4, "dealer": 0, "rules": {"allowRevokes": True}, "table": {"fondo": 9}, "revesino": summary}
    answer = both(stub, http, rest_url, "SettleHand", request)
    assert answer["net"] == [-1, -76, 64, -2] and answer["table"] == {"fondo": 24}


def test_settle_a_cut_hand_with_a_named_forced_quinola(stub, http, rest_url) -> None:
    """A trick's ``forced`` reaches the engine over both transports (tests/test_revesino_money.py
    holds its meaning): S2's quínola on S1's 1o in trick 1 of a cut hand, his only oros, which no
    later trick shows. Named, its fondo payment goes into the escrow and back at the announcement."""
    tricks = ["1o 10o 5b 12b", "12o 3c 12e 5e", "11o 4c 11e 4e", "9o 5c 10e 3e", "8o 6c 9e 11b", "7o 7c 8e 10b", "6o 8c 7e 9b",
              "5o 4b 6e 8b", "4o 3b 10c 7b", "2c 1c 12c 6b"]
    summary = {"tricks": [{"cards": t} for t in tricks], "announcer": 1, "outOfPlay": "1e 1b 2b 2o"}
    request = {"game": "revesino", "seats": 4, "dealer": 0, "table": {"fondo": 9}, "revesino": summary}
    unnamed = both(stub, http, rest_url, "SettleHand", request)
    summary["tricks"][0]["forced"] = "10o"
    named = both(stub, http, rest_url, "SettleHand", request)
    assert unnamed["net"] == named["net"] == [-1, -74, 64, 0] and unnamed["table"] == named["table"] == {"fondo": 20}
    escrow = [(p["payer"], p["payee"], p["amount"]) for p in named["payments"] if "escrow" in (p["payer"], p["payee"])]
    assert escrow == [("seat 2", "escrow", 10), ("escrow", "seat 2", 10)]
    assert [p for p in named["payments"] if "escrow" not in (p["payer"], p["payee"])] == unnamed["payments"]


def worked_hand(dealer: int, tricks: list[str], out: str, *, table: int, left: tuple[str, ...] = ("", "", "", ""),
                napolitana: int | None = None, announcer: int | None = None, rules: dict | None = None) -> tuple[dict, dict]:
    """A hand written as its tricks (cards in play order; trick 1 led by the seat after the dealer,
    each next by the winner) and its four cards out of play (S1's, S2's and S3's undealt cards,
    which they keep, then the dealer's discard); ``left``: the cards each seat still holds when a
    cut ends the hand. Returns SettleHand's request and the same hand as a record."""
    leader = (dealer + 1) % 4
    plays: list[list[str]] = [[], [], [], []]
    actions: list[str] = []
    for n, text in enumerate(tricks, 1):
        cards = text.split()
        if n == 10 and announcer is not None:
            actions.append(f"{announcer} revesino")
        for k, card in enumerate(cards):
            plays[(leader + k) % 4].append(card)
            actions.append(f"{(leader + k) % 4} {card}")
        leader = (leader + trick_winner(cards)) % 4
    outs = out.split()
    hands = [plays[s] + left[s].split() + ([outs[3]] if s == dealer else []) for s in range(4)]
    assert sorted([*(c for h in hands for c in h), *outs[:3]]) == sorted(DECK), "test bug: not the 48 cards"
    exchange = [f"{(dealer + k) % 4} quedo" for k in (1, 2, 3)] + [f"{dealer} descarte {outs[3]}"]
    calls = [f"{napolitana} napolitana"] if napolitana is not None else []
    record = {"game": "revesino", "seats": 4, "dealer": dealer, "rules": rules or {}, "table": {"fondo": table},
              "deal": {"hands": [" ".join(h) for h in hands], "stock": " ".join(outs[:3])}, "actions": exchange + calls + actions}
    summary: dict[str, Any] = {"tricks": [{"cards": t} for t in tricks], "outOfPlay": out}
    if napolitana is not None:
        summary["napolitana"] = napolitana
    if announcer is not None:
        summary["announcer"] = announcer
    request = {"game": "revesino", "seats": 4, "dealer": dealer, "rules": rules or {}, "table": {"fondo": table}, "revesino": summary}
    return request, record


# RV-9: S3 holds eleven bastos and takes every trick; S1 places 1e in trick 2 (S3 pays him 1), S2
# places the quínola in trick 4 (17 into escrow; S3 pays 2, S0 and S1 1 each). After trick 9 S3
# announces: all of it is returned; he wins tricks 10 and 11: the fondo (17) and 16 from each. The
# spec's figures are net of the deal fee: the dealer S0's -16 is -17 with it.
RV9 = ["2b 2o 3b 2c", "4b 3c 1e 3o", "5b 4c 4e 4o", "6b 5c 5e 10o", "7b 6c 6e 5o", "8b 7c 7e 6o", "9b 8c 8e 7o",
       "10b 9c 9e 8o", "11b 10c 10e 9o", "12b 11c 11e 11o", "1b 12c 12e 12o"]
# RV-10: the same to trick 9 (S3 keeps 2e); S3 leads it to trick 10 and S1 cuts with 11e.
RV10 = ["2b 2o 4b 2c", "5b 3c 1e 3o", "6b 4c 4e 4o", "7b 5c 5e 10o", "8b 6c 6e 5o", "9b 7c 7e 6o", "10b 8c 8e 7o",
        "11b 9c 9e 8o", "12b 10c 10e 9o", "2e 11c 11e 11o"]
# RV-10's variants: S2 holds 1o 1c 1e 10o and declares a napolitana; he places the quínola in
# trick 4 and an ace in trick 9 (all returned on the announcement); in trick 10 S1 cuts (S2 pays
# him 64 too), or S2 must follow with 1e and cuts himself.
RV10_NAP = ["2b 2o 4b 2c", "5b 3c 3e 3o", "6b 4c 4e 4o", "7b 5c 5e 10o", "8b 6c 6e 5o", "9b 7c 7e 6o", "10b 8c 8e 7o",
            "11b 9c 9e 8o"]
# RV-11: S2 declares a napolitana with 1o 1c 1e 10o; renounces the quínola in trick 3 (the fondo,
# 12, and 2/1/1), 1c in trick 5 (S1 pays 1), 1e in trick 7 (S0 pays 1); in trick 10 S3 leads 2o and
# S2's only oros, 1o, is forced (he pays S3 1) and wins: the napolitana fails. He refunds twice
# what he was paid (S0 6, S1 4, S3 2), pays twice the fondo he took (24) and the party (12o 3o 4o
# 5o out of play: 3 + 4 = 7) to the hand winner, S3 (points S0 12, S1 15, S3 7). S2: -26.
RV11 = ["1b 2c 3b 8b", "12e 4c 4e 5e", "4b 10o 9b 12b", "11b 2b 3c 7b", "3e 11e 1c 2e", "10b 6c 8e 6e",
        "5c 1e 7c 9c", "7e 9e 8c 10e", "12c 10c 11c 5b", "2o 6o 7o 1o", "6b 8o 9o 11o"]
# An ordinary hand (dealer 2; S1 = seat 3) on an empty fondo: the re-ante (2 each) and the fee
# make it 9. Trick 4: seat 1's only espada, 1e, is forced (he pays the leader, seat 2, 1). Trick 8:
# seat 0 places the quínola (takes 9, final after trick 9; seat 1 pays 2, seats 2 and 3 pay 1).
# Trick 9: seat 2 places 1o (seat 1 pays 2), seat 3 places 1b (seat 1 pays 1). Points 0, 25, 9, 0
# and tricks 2, 4, 4, 1: seat 3 wins on fewer tricks; seat 1 (most points) pays the party, 11o 10b
# 12c 12b out of play: 9 + 4 = 13.
ORDINARY = ["4e 2e 3e 9e", "11c 5c 2c 9c", "1c 6c 9b 4c", "5e 12e 10e 1e", "4b 5b 7b 3b", "7e 6e 11b 8e",
            "3c 3o 12o 7c", "10c 2o 11e 10o", "8c 1o 1b 6b", "4o 6o 7o 9o", "8b 5o 2b 8o"]

# (case, hand, net, fondo after, extra figures)
WORKED = [
    ("RV-9 revesino won", worked_hand(0, RV9, "1o 2e 3e 1c", table=16, announcer=3),
     [-17, -16, -16, 65], 0, {"revesino": {"seat": 3, "outcome": "won"}}),
    ("RV-10 revesino cut", worked_hand(0, RV10, "1o 3b 3e 1c", table=16, announcer=3, left=("12c", "12e", "12o", "1b")),
     [-1, 64, 0, -81], 34, {"revesino": {"seat": 3, "outcome": "cut", "cutter": 1}}),
    ("RV-10 cut, napolitana pays", worked_hand(0, RV10_NAP + ["12b 10c 10e 1e", "2e 11c 11e 1c"], "9o 11o 3b 12o", table=16,
                                               announcer=3, napolitana=2, left=("12c", "12e", "1o", "1b")),
     [-1, 128, -64, -81], 34, {"revesino": {"seat": 3, "outcome": "cut", "cutter": 1}, "napolitana": {"seat": 2, "outcome": "void"}}),
    ("RV-10 cut by the napolitana", worked_hand(0, RV10_NAP + ["12b 10c 10e 1c", "2e 11c 11e 1e"], "9o 11o 3b 12o", table=16,
                                                announcer=3, napolitana=2, left=("12c", "12e", "1o", "1b")),
     [-1, 0, 64, -81], 34, {"revesino": {"seat": 3, "outcome": "cut", "cutter": 2}, "napolitana": {"seat": 2, "outcome": "void"}}),
    ("RV-11 napolitana fails", worked_hand(0, RV11, "12o 3o 4o 5o", table=11, napolitana=2),
     [2, 2, -26, 9], 24, {"napolitana": {"seat": 2, "outcome": "failed"}, "handWinner": 3, "partyPayer": 2, "party": 7,
                          "cardPoints": [12, 15, 6, 7], "seatTricks": [3, 4, 2, 2]}),
    # R22 napolitanaQuinolaPayback factor under napolitanaRefundFactor 1: he refunds once (S0 3, S1 2,
    # S3 1) and returns the 12 his quínola took, with no doubling: S2 18 - 1 - 6 - 12 - 7 = -8.
    ("RV-11 napolitana fails, factor 1", worked_hand(0, RV11, "12o 3o 4o 5o", table=11, napolitana=2,
                                                     rules={"napolitanaQuinolaPayback": "factor", "napolitanaRefundFactor": 1}),
     [-1, 0, -8, 8], 12, {"napolitana": {"seat": 2, "outcome": "failed"}, "handWinner": 3, "partyPayer": 2, "party": 7}),
    ("ordinary hand", worked_hand(2, ORDINARY, "11o 10b 12c 12b", table=0),
     [11, -21, -1, 11], 0, {"handWinner": 3, "tiebreak": "fewestTricks", "partyPayer": 1, "party": 13,
                            "cardPoints": [0, 25, 9, 0], "seatTricks": [2, 4, 4, 1]}),
    # The same under partyFromEach with no bonus: each of the other three pays the winner 9.
    ("ordinary hand, party from each", worked_hand(2, ORDINARY, "11o 10b 12c 12b", table=0,
                                                   rules={"handPayout": "partyFromEach", "partyBonus": 0}),
     [2, -17, -10, 25], 0, {"handWinner": 3, "party": 9}),
]


@pytest.mark.parametrize(("case", "hand", "net", "fondo", "figures"), WORKED, ids=[c[0] for c in WORKED])
def test_settle_hand_worked_examples(case, hand, net, fondo, figures, stub, http, rest_url) -> None:
    request, record = hand
    answer = call_both(stub, http, rest_url, "SettleHand", request)
    assert answer == api.settle_hand(request)
    assert answer["net"] == net
    assert answer["table"] == {"fondo": fondo} and answer["fondo"] == fondo and answer["escrow"] == 0
    for key, value in figures.items():
        assert answer[key] == value, key
    if "revesino" not in figures:
        assert "revesino" not in answer
    # Money is conserved: what the seats lose the fondo gains.
    assert sum(answer["net"]) == request["table"]["fondo"] - fondo
    assert all(p["amount"] > 0 and p["reason"] for p in answer["payments"])
    # The same hand played out as a record: the same tricks and the same money.
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
    assert result["valid"] is True and result["finished"] is True, result.get("violation")
    assert [" ".join(t["cards"]) for t in result["tricks"]] == [" ".join(t["cards"]) for t in answer["tricks"]]
    assert (result["net"], result["table"], result["payments"]) == (answer["net"], answer["table"], answer["payments"])


def played(case: str) -> dict:
    """ValidateHand's result (the engine's) for the record of a WORKED case."""
    _request, record = next(hand for name, hand, *_ in WORKED if name == case)
    result = api.validate(record)
    assert result["valid"] is True and result["finished"] is True, result.get("violation")
    return result


def transfers(result: dict, party: str | None = None) -> list[tuple[str, str, int]]:
    """The payments as (payer, payee, amount), sorted; only those ``party`` pays or receives."""
    return sorted((p["payer"], p["payee"], p["amount"]) for p in result["payments"] if party in (None, p["payer"], p["payee"]))


def test_rv09_played_the_cancellation_and_the_revesino_won() -> None:
    """RV-9 played: trick 2, S3 pays S1 1 for the placed 1e; trick 4, S2 places the quínola: 17
    from the fondo into escrow, S3 pays him 2, S0 and S1 1 each. S3 announces: S1 returns 1 to S3,
    S2 returns the 17 to the fondo and 2 to S3, 1 to S0, 1 to S1. S3 wins: the fondo (17) and 16
    from each."""
    result = played("RV-9 revesino won")
    assert transfers(result) == sorted([
        ("seat 0", "fondo", 1), ("seat 3", "seat 1", 1),
        ("fondo", "escrow", 17), ("seat 3", "seat 2", 2), ("seat 0", "seat 2", 1), ("seat 1", "seat 2", 1),
        ("seat 1", "seat 3", 1), ("escrow", "fondo", 17), ("seat 2", "seat 3", 2), ("seat 2", "seat 0", 1), ("seat 2", "seat 1", 1),
        ("fondo", "seat 3", 17), ("seat 0", "seat 3", 16), ("seat 1", "seat 3", 16), ("seat 2", "seat 3", 16)])
    assert "handWinner" not in result and "partyPayer" not in result  # no party is paid


def test_rv11_played_the_failed_napolitanas_payments() -> None:
    """RV-11 played: S2 takes the fondo (12) and 2/1/1 for the quínola in trick 3, 1 from S1 for
    1c in trick 5, 1 from S0 for 1e in trick 7, keeps the 12 after trick 9; his 1o is forced in
    trick 10 (1 to S3, the leader) and wins: he refunds twice what he was paid (S0 6, S1 4, S3 2),
    pays twice the 12 into the fondo (24), and the party (7) to the hand winner S3. Before the
    party his net is +4 + 12 + 2 - 1 - 12 - 24 = -19."""
    result = played("RV-11 napolitana fails")
    assert transfers(result, "seat 2") == sorted([
        ("seat 0", "seat 2", 2), ("seat 1", "seat 2", 1), ("seat 3", "seat 2", 1), ("escrow", "seat 2", 12),
        ("seat 1", "seat 2", 1), ("seat 0", "seat 2", 1), ("seat 2", "seat 3", 1),
        ("seat 2", "seat 0", 6), ("seat 2", "seat 1", 4), ("seat 2", "seat 3", 2), ("seat 2", "fondo", 24),
        ("seat 2", "seat 3", 7)])
    assert ("fondo", "escrow", 12) in transfers(result)
    assert result["net"][2] + 7 == -19
    assert (result["handWinner"], result["partyPayer"], result["party"]) == (3, 2, 7)
    assert result["table"] == {"fondo": 24}


def settle_request(record: dict, result: dict) -> dict:
    """SettleHand's request for a finished record: the tricks' cards, the napolitana's seat, the
    announcer and the cards out of play, from the record replayed here (the forced aces and
    quínola too, which a hand cut in trick 10 needs)."""
    track = Tracker(record)
    assert [t["cards"] for t in result["tricks"]] == [t["cards"] for t in track.tricks]
    tricks = []
    for t in track.tricks:
        item: dict[str, Any] = {"leader": t["leader"], "cards": " ".join(t["cards"]), "winner": t["winner"]}
        if t["forced"]:
            item["forced"] = " ".join(t["forced"])
        tricks.append(item)
    summary: dict[str, Any] = {"tricks": tricks, "outOfPlay": " ".join(track.out)}
    if track.napolitana is not None:
        summary["napolitana"] = track.napolitana
    if track.announcer is not None:
        summary["announcer"] = track.announcer
    request: dict[str, Any] = {"game": "revesino", "seats": 4, "dealer": record["dealer"], "rules": record.get("rules") or {},
                               "revesino": summary}
    if record.get("table") is not None:
        request["table"] = record["table"]
    return request


SETTLED = range(36)  # finished playouts settled by the engine alone; the first 12 over both transports


@functools.cache
def _settled(seed: int) -> dict:
    return _playout(seed, "settle")[-1]


def test_settle_hand_agrees_with_validation_of_the_same_hand() -> None:
    """The engine alone, over many finished playouts: every figure SettleHand gives is the one
    ValidateHand gave for the same hand."""
    mismatches = []
    for seed in SETTLED:
        record = _settled(seed)
        result = api.validate(record)
        answer = api.settle_hand(settle_request(record, result))
        assert answer["outOfPlay"].split() == Tracker(record).out
        for key, value in answer.items():
            if key not in ("tricks", "outOfPlay") and result.get(key) != value:
                mismatches.append((seed, key, record["rules"]))
    assert not mismatches, mismatches


@pytest.mark.parametrize("seed", SETTLED[:12])
def test_settle_hand_over_both_transports_agrees_with_validate_hand(seed: int, stub, http, rest_url) -> None:
    record = _settled(seed)
    result = both(stub, http, rest_url, "ValidateHand", {"record": record})
    answer = both(stub, http, rest_url, "SettleHand", settle_request(record, api.validate(record)))
    if result is None or answer is None:
        assert result is None and answer is None
        return
    assert (answer["net"], answer["table"], answer["payments"]) == (result["net"], result["table"], result["payments"])
    for key in ("handWinner", "party", "partyPayer", "napolitana", "revesino", "cardPoints", "seatTricks", "fondo"):
        assert answer.get(key) == result.get(key), key


@functools.cache
def _revoking_hand() -> dict:
    """A finished hand under allowRevokes where a seat that revoked is then owed a payment, which he
    forfeits: every seat revokes when it can, and plays its aces off-suit when it can."""
    for attempt in range(40):
        rng = random.Random(f"forfeit-{attempt}")
        dealer = attempt % 4
        deal = api.deal({"game": "revesino", "seats": 4, "dealer": dealer, "seed": f"forfeit-{attempt}"})["deal"]
        record: dict[str, Any] = {"game": "revesino", "seats": 4, "dealer": dealer, "rules": {"allowRevokes": True},
                                  "deal": deal, "actions": []}
        track = Tracker(record)
        result = api.validate(record)
        while not result["finished"]:
            legal = result["next"]["legal"]
            cards = [a for a in legal if _kind(a) == "card"]
            if track.trick and cards:
                off = [a for a in cards if suit(a.split()[1]) != suit(track.trick[0])]
                aces = [a for a in off if a.split()[1] in ACES]
                action = rng.choice(aces or off or cards)
            else:
                action = rng.choice([a for a in legal if _kind(a) != "cambio"])
            track.apply(action)
            record["actions"].append(action)
            result = api.validate(record)
        if any("trick" in f for f in result.get("forfeited", [])):
            return record
    raise AssertionError("test bug: no hand with a forfeited trick payment")


def test_forfeits_over_both_transports(stub, http, rest_url) -> None:
    record = _revoking_hand()
    result = api.validate(record)
    assert result["forfeited"] and result["valid"] is True
    assert call_both(stub, http, rest_url, "ValidateHand", {"record": record}) == result
    for seat in (None, 0):
        request = {"record": record} if seat is None else {"record": record, "seat": seat}
        assert call_both(stub, http, rest_url, "LegalActions", request) == api.legal_actions(record, seat)
    answer = call_both(stub, http, rest_url, "SettleHand", settle_request(record, result))
    assert (answer["net"], answer["payments"], answer["forfeited"]) == (result["net"], result["payments"], result["forfeited"])


# napolitanaDeclaration implicit: seat 2 holds 1o 1c 1e 10o. Trick 1: copas led, 1c is his only
# copa (forced: 4 to the leader, as he is no napolitana yet); trick 3: he renounces the quínola,
# which declares the napolitana; the rest is played out with the lowest legal card.
IMPLICIT = {"game": "revesino", "seats": 4, "dealer": 0, "rules": {"napolitanaDeclaration": "implicit"},
            "deal": {"hands": ["2b 3b 4b 5b 6b 7b 8b 9b 10b 11b 12b 8c", "2c 5c 2o 3o 4o 5o 6o 7o 8o 9o 11o",
                               "1o 1c 1e 10o 2e 3e 4e 5e 6e 7e 8e", "3c 4c 6c 7c 9c 10c 11c 12c 9e 10e 11e"],
                     "stock": "12o 1b 12e"},
            "actions": ["1 quedo", "2 quedo", "3 quedo", "0 descarte 8c", "1 2c", "2 1c", "3 3c", "0 2b", "2 2e", "3 9e", "0 3b",
                        "1 2o", "3 10e", "0 4b", "1 3o", "2 10o", "3 10c", "0 10b", "1 5c", "2 1e", "3 11c", "0 11b", "1 11o",
                        "2 1o", "3 11e", "0 12b", "1 4o", "2 3e", "3 12c", "0 5b", "1 5o", "2 4e", "3 4c", "0 6b", "1 6o",
                        "2 5e", "3 6c", "0 7b", "1 7o", "2 6e", "3 7c", "0 8b", "1 8o", "2 7e", "3 9c", "0 9b", "1 9o", "2 8e"]}


def test_implicit_napolitana_forced_before_his_renounce(stub, http, rest_url) -> None:
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": IMPLICIT})
    assert result["valid"] is True and result["finished"] is True
    assert result["napolitana"]["seat"] == 2
    # His 1c, forced in trick 1 before his renounce in trick 3, pays as anyone's (R24 implicit).
    assert {"payer": "seat 2", "payee": "seat 1", "amount": 4, "reason": "1c forced in trick 1: pays the trick's leader 4",
            "trick": 1} in result["payments"]
    request = settle_request(IMPLICIT, result)
    for trick in request["revesino"]["tricks"]:
        trick.pop("forced", None)  # all eleven tricks are given: SettleHand derives them
    answer = call_both(stub, http, rest_url, "SettleHand", request)
    assert (answer["net"], answer["payments"]) == (result["net"], result["payments"])


def test_r24_implicit_napolitana_refund_option(stub, http, rest_url) -> None:
    """``implicitNapolitanaRefund: refunded`` over gRPC and REST: at his renounce in trick 3 seat 2
    gets back the 4 his 1c forced in trick 1 paid seat 1 (a payment of the hand, no trick); the
    default leaves it paid. ValidateHand and SettleHand agree; a wrong value names the option."""
    rules = {"napolitanaDeclaration": "implicit", "implicitNapolitanaRefund": "refunded"}
    record = {**IMPLICIT, "rules": rules}
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
    assert result["valid"] is True and result["finished"] is True
    assert {"payer": "seat 1", "payee": "seat 2", "amount": 4,
            "reason": "seat 2 renounces in trick 3, the napolitana: returned (1c forced in trick 1: pays the trick's leader 4)"
            } in result["payments"]
    assert result["net"] == [12, -1, -32, 3] and result["table"] == {"fondo": 18}
    assert call_both(stub, http, rest_url, "ValidateHand", {"record": IMPLICIT})["net"] == [12, 3, -36, 3]
    answer = call_both(stub, http, rest_url, "SettleHand", settle_request(record, result))
    assert (answer["net"], answer["payments"]) == (result["net"], result["payments"])
    bad = {**IMPLICIT, "rules": {**rules, "implicitNapolitanaRefund": "yes"}}
    assert_same_error(stub, http, rest_url, "ValidateHand", {"record": bad}, "INVALID_OPTION_VALUE", "rules.implicitNapolitanaRefund")


# A finished hand in which no tanto moves: no fee, no hand payout, no ace or quínola paid.
NOTHING_MOVES = {
    "game": "revesino", "seats": 4, "dealer": 0, "rules": {"dealerFee": 0, "handPayout": "none"}, "table": {"fondo": 30},
    "deal": {"seed": "s4"},
    "actions": ["1 cambio 4c", "2 cambio 6e", "3 cambio 6o", "0 descarte 8b", "1 12c", "2 7c", "3 1c", "0 2c", "3 10o", "0 1o", "1 9o",
                "2 7o", "0 2o", "1 8o", "2 12b", "3 5o", "1 3e", "2 2e", "3 9e", "0 10e", "0 4o", "1 11o", "2 10b", "3 7b", "1 11c",
                "2 3c", "3 8c", "0 9c", "1 5e", "2 7e", "3 12e", "0 4e", "3 5b", "0 3b", "1 6b", "2 1b", "2 1e", "3 4b", "0 11e",
                "1 5c", "2 2b", "3 9b", "0 12o", "1 11b", "1 6c", "2 8e", "3 10c", "0 3o"]}


def test_a_finished_hand_lists_its_payments_even_when_none(stub, http, rest_url) -> None:
    """docs/format.md section 6: a finished hand carries ``payments`` even when empty, over gRPC
    as over REST (the gRPC answer's JSON dropped an empty list), and so does SettleHand's."""
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": NOTHING_MOVES})
    assert result["valid"] and result["finished"]
    assert (result["payments"], result["net"], result["table"]) == ([], [0, 0, 0, 0], {"fondo": 30})
    answer = call_both(stub, http, rest_url, "SettleHand", settle_request(NOTHING_MOVES, result))
    assert (answer["payments"], answer["net"]) == ([], [0, 0, 0, 0])
    in_progress = call_both(stub, http, rest_url, "ValidateHand", {"record": dict(NOTHING_MOVES, actions=NOTHING_MOVES["actions"][:20])})
    assert "payments" not in in_progress and "table" not in in_progress


# ---- 4. ResolveTrick -------------------------------------------------------------------------------

RV = {"game": "revesino", "seats": 4}
# (case, request, winner, payments as (payer, payee, amount))
TRICKS = [
    # RV-3: 1b placed on espadas in trick 4: the winner S2 pays S3 1.
    ("RV-3", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "number": 4}, 2, [("seat 2", "seat 3", 1)]),
    # The same with a fondo and a napolitana who plays no ace.
    ("RV-3 with a fondo", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "number": 4, "fondo": 14, "napolitana": 2},
     2, [("seat 2", "seat 3", 1)]),
    # RV-4: 1o placed in trick 1: 2 x 2, paid by the winner S3.
    ("RV-4", {**RV, "leader": 1, "cards": "4c 1o 11c 2c", "number": 1}, 3, [("seat 3", "seat 2", 4)]),
    # RV-5: 1c forced in trick 11: 2 x 2 to the leader; not listed as forced, it was played by choice.
    ("RV-5", {**RV, "leader": 0, "cards": "5c 1c 8c 2b", "number": 11, "forced": "1c"}, 1, [("seat 1", "seat 0", 4)]),
    ("RV-5 not forced", {**RV, "leader": 0, "cards": "5c 1c 8c 2b", "number": 11}, 1, []),
    # RV-6: the quínola placed in trick 3 on a fondo of 14: S0 takes it; 2 from the winner, 1 from each other.
    ("RV-6", {**RV, "leader": 2, "cards": "6e 8e 10o 2e", "number": 3, "fondo": 14}, 3,
     [("fondo", "seat 0", 14), ("seat 3", "seat 0", 2), ("seat 1", "seat 0", 1), ("seat 2", "seat 0", 1)]),
    # RV-6 in trick 11: side payments 4/2/2; the fondo take is never doubled.
    ("RV-6 in trick 11", {**RV, "leader": 2, "cards": "6e 8e 10o 2e", "number": 11, "fondo": 14}, 3,
     [("fondo", "seat 0", 14), ("seat 3", "seat 0", 4), ("seat 1", "seat 0", 2), ("seat 2", "seat 0", 2)]),
    # RV-7: the quínola forced by 12o on a fondo of 12: S2 pays 12 into the fondo.
    ("RV-7", {**RV, "leader": 1, "cards": "12o 10o 4o 7o", "number": 5, "fondo": 12, "forced": "10o"}, 1, [("seat 2", "fondo", 12)]),
    # RV-11: the napolitana S2 renounces the quínola (the fondo, 2/1/1) and 1c (1, not doubled).
    ("napolitana renounces the quínola", {**RV, "leader": 1, "cards": "4b 10o 9b 12b", "number": 3, "fondo": 12, "napolitana": 2}, 0,
     [("fondo", "seat 2", 12), ("seat 0", "seat 2", 2), ("seat 1", "seat 2", 1), ("seat 3", "seat 2", 1)]),
    ("napolitana renounces 1c", {**RV, "leader": 0, "cards": "3e 11e 1c 2e", "number": 5, "napolitana": 2}, 1, [("seat 1", "seat 2", 1)]),
    # The napolitana's in-suit ace in tricks 1-9 is never forced; in trick 10 it is (1 to the leader).
    ("napolitana's ace in trick 4", {**RV, "leader": 1, "cards": "2o 1o 3o 4o", "number": 4, "napolitana": 2, "forced": "1o"}, 2, []),
    ("napolitana's ace forced in trick 10", {**RV, "leader": 3, "cards": "2o 4o 5o 1o", "number": 10, "napolitana": 2, "forced": "1o"},
     2, [("seat 2", "seat 3", 1)]),
    # A6.6: his quínola forced by 1o in trick 10 (or 11: the 2/1/1 is not doubled): he doubles the
    # fondo, pays 2 to the leader and 1 to each other player.
    ("napolitana's quínola forced by 1o", {**RV, "leader": 1, "cards": "1o 10o 3o 4o", "number": 10, "fondo": 12, "napolitana": 2,
                                           "forced": "10o"}, 1,
     [("seat 2", "fondo", 12), ("seat 2", "seat 1", 2), ("seat 2", "seat 3", 1), ("seat 2", "seat 0", 1)]),
    ("napolitana's quínola forced by 12o in trick 11", {**RV, "leader": 1, "cards": "12o 10o 3o 4o", "number": 11, "fondo": 12,
                                                        "napolitana": 2, "forced": "10o"}, 1,
     [("seat 2", "fondo", 12), ("seat 2", "seat 1", 2), ("seat 2", "seat 3", 1), ("seat 2", "seat 0", 1)]),
    # A 9 and an 8: cards of the 48-card deck.
    ("the 48-card deck", {**RV, "leader": 3, "cards": "9o 8o 12b 2o", "number": 6}, 3, []),
]


@pytest.mark.parametrize(("case", "request_json", "winner", "payments"), TRICKS, ids=[c[0] for c in TRICKS])
def test_resolve_trick(case, request_json, winner, payments, stub, http, rest_url) -> None:
    answer = call_both(stub, http, rest_url, "ResolveTrick", request_json)
    expected = api.resolve_trick(request_json)
    # A trick that moves no money has no payments list (test_resolve_trick_without_payments).
    assert answer.get("payments", []) == expected.pop("payments", [])
    assert {k: v for k, v in answer.items() if k != "payments"} == expected
    assert answer["winner"] == winner and answer["complete"] is True
    cards = request_json["cards"].split()
    assert answer["card"] == cards[answer["winnerIndex"]] and (request_json["leader"] + answer["winnerIndex"]) % 4 == winner
    got = sorted((p["payer"], p["payee"], p["amount"]) for p in answer.get("payments", []))
    assert got == sorted(payments)
    number = request_json["number"]
    assert all(p["trick"] == number and p["reason"] for p in answer.get("payments", []))


REVOKED_HAND = {  # allowRevokes: in trick 1 seats 1, 2 and 3 hold copas and play oros on 1c
    "game": "revesino", "seats": 4, "dealer": 3, "rules": {"handPayout": "none", "stake": 5, "dealerInitialStakeIncludesFee": False, "renewTrigger": "empty", "gergi": True, "doubleAcePlaced": "oros", "doubleAppliesTo": "all", "unannouncedSweep": "winsHand", "revesinoWinEach": 64, "oppositeDouble": False, "napolitanaFailLastTwoOnly": True, "napolitanaPaysForAll": True, "napolitanaMayAnnounce": False, "allowRevokes": True},
    "deal": {"hands": ["7o 4b 12c 3c 1c 2e 5e 8e 10o 9b 9e", "8b 4e 10b 3o 12o 1b 3e 8c 11o 8o 11e",
                       "10e 12e 4o 1o 3b 6e 2b 11c 7b 6c 2c", "7c 4c 9o 12b 5o 6b 2o 7e 6o 5c 10c 11b"], "stock": "1e 9c 5b"},
    "actions": [
                "0 cambio 3c", "1 cambio 3e", "2 cambio 2c", "3 descarte 11b", "0 1c", "1 3o", "2 1o", "3 2o",
                "0 8e", "1 4e", "2 11c", "3 4c", "0 1e", "1 1b", "2 2b", "3 5o",
                "0 9b", "1 8o", "2 6c", "3 5c", "0 12c", "1 8c", "2 3b", "3 6o",
                "0 5e", "1 8b", "2 4o", "3 6b", "0 10o", "1 9c", "2 5b", "3 7c",
                "0 9e", "1 10b", "2 6e", "3 12b", "0 7o", "1 11o", "2 7b", "3 10c",
                "1 11e", "2 10e", "3 7e", "0 2e", "1 12o", "2 12e", "3 9o", "0 4b",
    ],
}


def test_resolve_trick_revoked_fines_and_forfeits_as_validate_hand(stub, http, rest_url) -> None:
    """A6.8 through ResolveTrick: the cards named ``revoked`` pay 2 each into the fondo, and the
    revoker's gain from the trick (1o placed: 4) is forfeited, as ValidateHand has it for the
    same trick."""
    validated = api.validate(REVOKED_HAND)
    assert validated["valid"], validated
    request = {"game": "revesino", "seats": 4, "leader": 0, "dealer": 3, "cards": "1c 3o 1o 2o", "number": 1,
               "fondo": api.validate(dict(REVOKED_HAND, actions=REVOKED_HAND["actions"][:4]))["fondo"],
               "rules": REVOKED_HAND["rules"], "revoked": "3o 1o 2o"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", request)
    assert answer["payments"] == [p for p in validated["payments"] if p.get("trick") == 1]
    assert [(p["payer"], p["payee"], p["amount"]) for p in answer["payments"]] == [("seat 1", "fondo", 2), ("seat 2", "fondo", 2),
                                                                                  ("seat 3", "fondo", 2)]
    assert answer["forfeited"] == [f for f in validated["forfeited"] if f.get("trick") == 1]
    assert [(f["seat"], f["amount"]) for f in answer["forfeited"]] == [(2, 4)]
    unnamed = call_both(stub, http, rest_url, "ResolveTrick", {k: v for k, v in request.items() if k != "revoked"})
    assert [(p["payer"], p["payee"], p["amount"]) for p in unnamed["payments"]] == [("seat 0", "seat 2", 4)] and "forfeited" not in unnamed


def test_resolve_trick_without_payments(stub, http, rest_url) -> None:
    request = {**RV, "leader": 3, "cards": "9o 8o 12b 2o", "number": 6}
    assert call_both(stub, http, rest_url, "ResolveTrick", request) == api.resolve_trick(request)


def test_resolve_trick_in_progress_and_without_leader(stub, http, rest_url) -> None:
    # No trumps: an ace of another suit never wins; a trick so far names the card, not the seat.
    answer = call_both(stub, http, rest_url, "ResolveTrick", {"game": "revesino", "cards": "9o 12o 1b"})
    assert answer == api.resolve_trick({"game": "revesino", "cards": "9o 12o 1b"})
    assert (answer["winnerIndex"], answer["card"], answer["complete"]) == (1, "12o", False)
    assert "winner" not in answer and "payments" not in answer
    request = {"game": "revesino", "seats": 4, "leader": 3, "cards": "2c 1b"}
    answer = call_both(stub, http, rest_url, "ResolveTrick", request)
    assert (answer["winnerIndex"], answer["winner"], answer["complete"]) == (0, 3, False)
    assert "payments" not in answer


# ---- 5. bad input ------------------------------------------------------------------------------------

BASE_DEALER = 2  # not seat 0, so that a wrong seat in a field name shows


def _base() -> dict:
    dealt = api.deal({"game": "revesino", "seats": 4, "dealer": BASE_DEALER, "seed": "bad-input"})["deal"]
    return {"game": "revesino", "seats": 4, "dealer": BASE_DEALER, "rules": {}, "table": {"fondo": 12}, "deal": dealt,
            "actions": ["3 quedo"]}


def _with(change) -> dict:
    record = _base()
    change(record)
    return record


def _move(source: str, target: str, drop: bool = False):
    """A change moving the last card of ``source`` (a seat number or "stock") to ``target``."""
    def change(r: dict) -> None:
        piles = {str(s): h.split() for s, h in enumerate(r["deal"]["hands"])} | {"stock": r["deal"]["stock"].split()}
        card = piles[source].pop()
        if not drop:
            piles[target].append(card)
        r["deal"] = {"hands": [" ".join(piles[str(s)]) for s in range(4)], "stock": " ".join(piles["stock"])}
    return change


def _replace_card(seat: int, card: str):
    def change(r: dict) -> None:
        hand = r["deal"]["hands"][seat].split()
        r["deal"]["hands"][seat] = " ".join([card, *hand[1:]])
    return change


def _tresillo_with_nine() -> dict:
    dealt = api.deal({"game": "tresillo", "seats": 3, "dealer": 0, "seed": "bad-input"})["deal"]
    hand = dealt["hands"][1].split()
    dealt["hands"][1] = " ".join(["9o", *hand[1:]])
    return {"game": "tresillo", "seats": 3, "dealer": 0, "deal": dealt, "actions": []}


def _settle_base() -> dict:
    return copy.deepcopy(WORKED[-2][1][0])  # the ordinary hand


def _settle_with(change) -> dict:
    request = _settle_base()
    change(request)
    return request


S1 = (BASE_DEALER + 1) % 4
WRONG_FIELD = "the engine names deal.hands[0] (read_deal's fallback) instead of the hand of the wrong size"

BAD_CASES = [
    pytest.param("non-dealer with 12 cards", "ValidateHand", {"record": _with(_move("stock", str(S1)))},
                 "WRONG_HAND_SIZE", f"deal.hands[{S1}]"),
    pytest.param("dealer with 11 cards", "ValidateHand", {"record": _with(_move(str(BASE_DEALER), "stock"))},
                 "WRONG_HAND_SIZE", f"deal.hands[{BASE_DEALER}]"),
    ("dealer with 11, a non-dealer with 12", "ValidateHand", {"record": _with(_move(str(BASE_DEALER), str(S1)))},
     "WRONG_HAND_SIZE", f"deal.hands[{BASE_DEALER}]"),
    ("non-dealer with 10 cards", "ValidateHand", {"record": _with(_move(str(S1), "stock"))}, "WRONG_HAND_SIZE", f"deal.hands[{S1}]"),
    ("dealer with 13 cards", "ValidateHand", {"record": _with(_move("stock", str(BASE_DEALER)))},
     "WRONG_HAND_SIZE", f"deal.hands[{BASE_DEALER}]"),
    ("stock of 2", "ValidateHand", {"record": _with(_move("stock", "", drop=True))}, "WRONG_HAND_SIZE", "deal.stock"),
    ("duplicated card", "ValidateHand", {"record": _with(lambda r: r["deal"].__setitem__("stock", " ".join(
        [r["deal"]["hands"][0].split()[0], *r["deal"]["stock"].split()[1:]])))}, "DUPLICATE_CARD", "deal.stock"),
    ("13o", "ValidateHand", {"record": _with(_replace_card(1, "13o"))}, "UNKNOWN_CARD", "deal.hands[1]"),
    ("a 9 in Tresillo", "ValidateHand", {"record": _tresillo_with_nine()}, "UNKNOWN_CARD", "deal.hands[1]"),
    ("three seats", "ValidateHand", {"record": _with(lambda r: r.__setitem__("seats", 3))}, "INVALID_SEATS", "seats"),
    ("unknown option", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"foo": 1}))}, "UNKNOWN_OPTION", "rules.foo"),
    ("a Tresillo option", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"favorSuit": "oros"}))},
     "UNKNOWN_OPTION", "rules.favorSuit"),
    ("partyBonus 3", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"partyBonus": 3}))},
     "INVALID_OPTION_VALUE", "rules.partyBonus"),
    ("allowRevokes a word", "ValidateHand", {"record": _with(lambda r: r.__setitem__("rules", {"allowRevokes": "yes"}))},
     "INVALID_OPTION_VALUE", "rules.allowRevokes"),
    ("napolitanaDeclaration unknown", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("rules", {"napolitanaDeclaration": "loud"}))},
     "INVALID_OPTION_VALUE", "rules.napolitanaDeclaration"),
    ("napolitanaQuinolaPayback unknown", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("rules", {"napolitanaQuinolaPayback": "twice"}))},
     "INVALID_OPTION_VALUE", "rules.napolitanaQuinolaPayback"),
    ("negative fondo", "ValidateHand", {"record": _with(lambda r: r.__setitem__("table", {"fondo": -1}))}, "INVALID_TABLE", "table.fondo"),
    ("a Tresillo plate", "ValidateHand",
     {"record": _with(lambda r: r.__setitem__("table", {"plate": 30, "plateHolds": "primera", "cartulina": []}))},
     "INVALID_TABLE", "table.plate"),
    ("a Tresillo plate beside the fondo", "ValidateHand", {"record": _with(lambda r: r.__setitem__("table", {"fondo": 9, "plate": 5}))},
     "INVALID_TABLE", "table.plate"),
    ("a Rentoy score", "ValidateHand", {"record": _with(lambda r: r.__setitem__("table", {"score": [3, 4]}))},
     "INVALID_TABLE", "table.score"),
    ("legal: negative fondo", "LegalActions", {"record": _with(lambda r: r.__setitem__("table", {"fondo": -5})), "seat": 1},
     "INVALID_TABLE", "table.fondo"),
    ("view of no seat", "LegalActions", {"record": _base(), "seat": 4}, "SEAT_OUT_OF_RANGE", "seat"),
    ("settle: a trick of 3 cards", "SettleHand",
     _settle_with(lambda q: q["revesino"]["tricks"][4].__setitem__("cards", "4b 5b 7b")), "WRONG_HAND_SIZE", "revesino.tricks[4].cards"),
    ("settle: a 9 of the Tresillo deck is fine, 13b is not", "SettleHand",
     _settle_with(lambda q: q["revesino"]["tricks"][4].__setitem__("cards", "4b 5b 7b 13b")), "UNKNOWN_CARD", "revesino.tricks[4].cards"),
    ("settle: no summary", "SettleHand", _settle_with(lambda q: q.pop("revesino")), "MISSING_FIELD", "revesino"),
    ("settle: an announcer who lost a trick", "SettleHand", _settle_with(lambda q: q["revesino"].__setitem__("announcer", 1)),
     "INVALID_FIELD", "revesino.announcer"),
    ("settle: a napolitana without the cards", "SettleHand", _settle_with(lambda q: q["revesino"].__setitem__("napolitana", 1)),
     "INVALID_FIELD", "revesino.napolitana"),
    ("settle: negative fondo", "SettleHand", _settle_with(lambda q: q.__setitem__("table", {"fondo": -3})), "INVALID_TABLE", "table.fondo"),
    ("settle: partyBonus 3", "SettleHand", _settle_with(lambda q: q.__setitem__("rules", {"partyBonus": 3})),
     "INVALID_OPTION_VALUE", "rules.partyBonus"),
    ("settle: three seats", "SettleHand", _settle_with(lambda q: q.__setitem__("seats", 3)), "INVALID_SEATS", "seats"),
    ("trick: a trump", "ResolveTrick", {**RV, "leader": 1, "contract": {"trump": "oros"}, "cards": "5e 12e 1b 9e", "number": 4},
     "INVALID_FIELD", "contract.trump"),
    ("trick: five cards", "ResolveTrick", {**RV, "cards": "5e 12e 1b 9e 2e"}, "WRONG_HAND_SIZE", "cards"),
    # its payments without a leader: they go from seat to seat (they were left out, silently)
    ("trick: payments without a leader", "ResolveTrick", {**RV, "cards": "2e 1e 3e 4e", "number": 1, "fondo": 10, "forced": "1e"},
     "MISSING_FIELD", "leader"),
    ("trick: a fondo without a leader", "ResolveTrick", {**RV, "cards": "2e 1e 3e 4e", "fondo": 10}, "MISSING_FIELD", "leader"),
    ("trick: a Tresillo trick's napolitana 0", "ResolveTrick",
     {"game": "tresillo", "seats": 3, "leader": 0, "contract": {"trump": "oros"}, "cards": "2e", "napolitana": 0},
     "INVALID_FIELD", "napolitana"),
    ("trick: duplicated card", "ResolveTrick", {**RV, "cards": "5e 5e"}, "DUPLICATE_CARD", "cards"),
    ("trick: number 12", "ResolveTrick", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "number": 12}, "INVALID_FIELD", "number"),
    ("trick: napolitana 4", "ResolveTrick", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "napolitana": 4},
     "SEAT_OUT_OF_RANGE", "napolitana"),
    ("trick: forced 13c", "ResolveTrick", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "forced": "13c"}, "UNKNOWN_CARD", "forced"),
    ("trick: forced, not of the trick", "ResolveTrick", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "forced": "1c"},
     "INVALID_FIELD", "forced"),
    ("trick: forced, not an ace", "ResolveTrick", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "forced": "12e"}, "INVALID_FIELD", "forced"),
    ("trick: forced, placed", "ResolveTrick", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "forced": "1b"}, "INVALID_FIELD", "forced"),
    ("trick: revoked, allowRevokes off", "ResolveTrick", {**RV, "leader": 1, "cards": "5e 12e 1b 9e", "revoked": "1b"},
     "INVALID_FIELD", "revoked"),
    ("trick: revoked, in the suit led", "ResolveTrick",
     {**RV, "rules": {"allowRevokes": True}, "leader": 1, "cards": "5e 12e 1b 9e", "revoked": "12e"}, "INVALID_FIELD", "revoked"),
    ("trick: revoked, not of the trick", "ResolveTrick",
     {**RV, "rules": {"allowRevokes": True}, "leader": 1, "cards": "5e 12e 1b 9e", "revoked": "1o"}, "INVALID_FIELD", "revoked"),
    ("trick: revoked, the napolitana's renounce", "ResolveTrick",
     {**RV, "rules": {"allowRevokes": True}, "leader": 1, "cards": "5e 12e 1b 9e", "number": 4, "napolitana": 3, "revoked": "1b"},
     "INVALID_FIELD", "revoked"),
    ("trick: a 9 in Tresillo", "ResolveTrick", {"game": "tresillo", "seats": 3, "contract": {"trump": "oros"}, "cards": "9o 1e"},
     "UNKNOWN_CARD", "cards"),
    ("deal: three seats", "Deal", {"game": "revesino", "seats": 3, "dealer": 0, "seed": "x"}, "INVALID_SEATS", "seats"),
]


@pytest.mark.parametrize(("case", "rpc", "request_json", "code", "field"), BAD_CASES,
                         ids=[c.values[0] if hasattr(c, "values") else c[0] for c in BAD_CASES])
def test_bad_revesino_input(case, rpc, request_json, code, field, stub, http, rest_url) -> None:
    error = engine_error(rpc, request_json)  # the engine itself rejects it the same way
    assert (error.code, error.field) == (code, field), error.message
    assert_same_error(stub, http, rest_url, rpc, request_json, code, field)


def test_bad_revesino_input_leaves_the_servers_serving(channel, http, rest_url) -> None:
    assert_healthy(channel, http, rest_url)


def test_the_base_records_of_the_bad_cases_are_good(stub, http, rest_url) -> None:
    record = _base()
    result = call_both(stub, http, rest_url, "ValidateHand", {"record": record})
    assert result == api.validate(record)
    assert result["valid"] is True and result["finished"] is False
    # Revesino's deck has the 8s and 9s that Tresillo's lacks.
    dealt = " ".join(record["deal"]["hands"]) + " " + record["deal"]["stock"]
    assert {"8o", "9o", "8c", "9c", "8e", "9e", "8b", "9b"} <= set(dealt.split())
    answer = call_both(stub, http, rest_url, "SettleHand", _settle_base())
    assert answer["net"] == WORKED[-2][2]
    # A Tresillo table with nothing in it (protobuf's defaults) is no Tresillo table.
    empty = dict(record, table={"fondo": 12, "plate": 0, "plateHolds": "", "cartulina": [], "score": []})
    assert call_both(stub, http, rest_url, "ValidateHand", {"record": empty}) == result


# ---- 6. DescribeRules ------------------------------------------------------------------------------

# Every OPTION of the spec (rules/revesino.md, A1-A6 and R1-R38), by its API name, with its DEFAULT.
SPEC_OPTIONS = {
    "handPayout": "partyFromMost",          # R1 party_from_most | party_from_each | fixed_from_each(n) | none
    "partyBonus": 4,                        # R1 4 | 0
    "fixedPayout": 4,                       # R1 fixed_from_each(n)
    "tiebreakOrder": "playOrder",           # R3 S0, S1, S2, S3 | dealer_then_left
    "napolitanaPaysPartyForAll": True,      # R21
    "stake": 2,                             # R38
    "dealerFee": 1,                         # R38
    "renewBelow": 9,                        # R38
    "dealerInitialStakeIncludesFee": True,  # R4
    "renewTrigger": "belowStake",           # R5 < 9 | empty
    "renewAmount": "fullStake",             # R5 full stake | top-up
    "renewTiming": "startOfDeal",           # R5, A6.1 start of deal | immediately
    "peekBeforeExchange": False,            # R6
    "gergi": False,                         # R9
    "quinolaPenaltyTrigger": "forced",      # R10 forced | wins_trick
    "doubleAcePlaced": "oros",              # R11
    "doubleAceForced": "copas",             # R11
    "quinolaPlacedWinnerPays": 2,           # R12 total 4 (winner 2) | 5 (winner 3)
    "doubleAppliesTo": "sidePayments",      # R13
    "quinolaForcedPaysForcer": False,       # R14
    "renuncioPenaltyRefunded": False,       # R16
    "playOutAfterCut": False,               # R17
    "unannouncedSweep": "winsHand",         # R18 wins_hand | scored_normally
    "revesinoQuinolaBonus": "extraFondo",   # R19 extra_fondo | side_payments | none
    "cutQuinolaBase": "sameBase",           # R19 same_base | sequential
    "announcerQuinola": "anyPlay",          # R19 (ours) led, followed or forced | forced only (quínola jugada)
    "revesinoWinEach": 16,                  # R33
    "revesinoCutToCutter": 64,              # R33
    "oppositeDouble": False,                # R34
    "napolitanaDeclaration": "explicit",    # R24, A4.1 explicit | implicit (espagnolette)
    "implicitNapolitanaRefund": "none",     # R24 implicit: forced before the first renounce stays paid | refunded
    "napolitanaFailLastTwoOnly": False,     # R20, A6.6
    "napolitanaRefundFactor": 2,            # R22 2 | 1
    "napolitanaQuinolaPayback": "double",   # R22 (ours) the sold quínola's take twice | napolitanaRefundFactor times
    "napolitanaPaysForAll": False,          # R26, A6.5
    "napolitanaMayAnnounce": False,         # A4.2 (Hoyle)
    "revesinoVoidsNapolitana": True,        # R36
    "allowRevokes": False,                  # A5, R28
    "renuncioForfeits": "laterGains",       # R28 (ours) from his revoke's trick on | and a take paid after it | the whole hand
}

# The values of every option that takes words, the spec's alternatives in the comments above, in
# the API's lowerCamelCase (docs/rules/revesino.md gives the amounts of the numeric ones).
SPEC_WORDS = {
    "handPayout": ["partyFromMost", "partyFromEach", "fixedFromEach", "none"],
    "tiebreakOrder": ["playOrder", "dealerThenLeft"],
    "renewTrigger": ["belowStake", "empty"],
    "renewAmount": ["fullStake", "topUp"],
    "renewTiming": ["startOfDeal", "immediately"],
    "quinolaPenaltyTrigger": ["forced", "winsTrick"],
    "doubleAcePlaced": ["oros", "copas"],
    "doubleAceForced": ["copas", "oros"],
    "doubleAppliesTo": ["sidePayments", "all"],
    "unannouncedSweep": ["winsHand", "scoredNormally"],
    "revesinoQuinolaBonus": ["extraFondo", "sidePayments", "none"],
    "cutQuinolaBase": ["sameBase", "sequential"],
    "announcerQuinola": ["anyPlay", "forced"],
    "napolitanaDeclaration": ["explicit", "implicit"],
    "implicitNapolitanaRefund": ["none", "refunded"],
    "napolitanaQuinolaPayback": ["double", "factor"],
    "renuncioForfeits": ["laterGains", "laterPayments", "wholeHand"],
}


def test_describe_rules(stub, http, rest_url) -> None:
    answer = call_both(stub, http, rest_url, "DescribeRules", {"game": "revesino"})
    assert answer == api.describe_rules("revesino")
    assert answer["game"] == "revesino" and answer["seats"] == [4]
    names = [o["name"] for o in answer["options"]]
    assert len(names) == len(set(names))
    assert {o["name"]: o["default"] for o in answer["options"]} == SPEC_OPTIONS
    assert {o["name"]: o["choices"] for o in answer["options"] if type(o["default"]) is str} == SPEC_WORDS
    for option in answer["options"]:
        default = option["default"]
        assert default in option["choices"], option["name"]
        # 0 stays an int (never 0.0: google.protobuf.Value holds doubles), false a bool.
        assert type(default) is type(SPEC_OPTIONS[option["name"]]), option["name"]
        assert all(type(c) is type(default) for c in option["choices"]), option["name"]
        assert len(option["choices"]) >= 2, option["name"]
        assert option["rule"] and option["doc"], option["name"]
    # Every choice is accepted by the engine; the non-numeric ones and the ends of each numeric
    # range by ValidateHand over REST, on the record of the bad cases.
    record = _base()
    for option in answer["options"]:
        choices = option["choices"]
        numeric = isinstance(option["default"], int) and not isinstance(option["default"], bool)
        for choice in choices:
            rules = {option["name"]: choice}
            assert api.validate(dict(record, rules=rules))["valid"] is True, rules
            if numeric and choice not in (choices[0], choices[-1], option["default"]):
                continue
            result = call_rest(http, rest_url, "ValidateHand", {"record": dict(record, rules=rules)})
            assert result["valid"] is True, rules
