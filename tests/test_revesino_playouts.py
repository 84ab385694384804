"""Random legal playouts of Revesino (STYLE.md, habit 14), under several option sets.

Each hand starts from a seeded deal (``api.deal``); a third of them are rigged so that one seat
holds three aces and the quínola, or the four aces (a napolitana), and a third so that the first
hand holds the top cards of three suits (a revesino). The record grows one action at a time and is
validated after every action; a legal action must exist until the hand is over, and one is picked
at random (a kind first, then one action of it; the napolitana and revesino calls are preferred
when legal; the rigged seats keep their cards and the strong one plays his sure winners).

Alongside runs ``Ref``, a small reference written from the spec's text alone (A3 the exchange, A5
the legal cards and the trick winner, section 0 the napolitana window and the revesino, A4.2 the
cut), so the engine's legal sets, tricks and end are checked against an independent reading. All 48
cards stay accounted for (hands + tricks + out of play, from the engine's own views), no view shows
what its seat may not see, money is conserved, and illegal actions substituted into the legal
records are caught at exactly their index with the right code.
"""

from __future__ import annotations

import random

import pytest
from results_support import check_listed_calls
from revesino_support import ACES, DECK, QUINOLA, card_points, cards_in, qualifies, seat_after, strength, suit, trick_winner
from soak import SOAK, seed

from engine import api

DEFAULTS = {"napolitanaDeclaration": "explicit", "allowRevokes": False, "playOutAfterCut": False,
            "napolitanaMayAnnounce": False, "peekBeforeExchange": False}

OPTION_SETS = {
    "defaults": {},
    "implicit-napolitana": {"napolitanaDeclaration": "implicit"},
    "implicit-napolitana-refunded": {"napolitanaDeclaration": "implicit", "implicitNapolitanaRefund": "refunded"},
    "play-out-may-announce": {"playOutAfterCut": True, "napolitanaMayAnnounce": True},
    "revokes-peek": {"allowRevokes": True, "peekBeforeExchange": True},
}
HANDS = 12 * SOAK  # per option set (times NAIPES_SOAK: tests/soak.py): 5 x 12 = 60 hands, a third rigged for a napolitana, a third for a revesino
TABLES = [None, {"fondo": 0}, {"fondo": 5}, {"fondo": 9}, {"fondo": 33}]
CALLS = ("cambio", "quedo", "descarte", "napolitana", "revesino")


class Ref:
    """One hand as the spec describes it, in plain strings."""

    def __init__(self, record: dict):
        self.rules = {**DEFAULTS, **record.get("rules", {})}
        self.dealer = d = record["dealer"]
        self.hands = {s: record["deal"]["hands"][s].split() for s in range(4)}
        self.undealt = record["deal"]["stock"].split()  # S1's, S2's, S3's
        self.out: list[str] = []  # the cards out of play, as they go out
        self.own_out: dict[int, str] = {}  # each seat's card out of play (discarded or declined)
        self.chosen: set[int] = set()
        self.phase = "exchange"
        self.turn = (d + 1) % 4
        self.leader = (d + 1) % 4
        self.napolitana: int | None = None
        self.qualifier: int | None = None  # the seat that qualifies on its 11 cards after the exchange
        self.announcer: int | None = None
        self.cutter: int | None = None
        self.trick: list[str] = []
        self.tricks: list[dict] = []
        self.over = False

    # -- helpers --
    def undealt_of(self, s: int) -> str | None:
        return None if s == self.dealer else self.undealt[(s - self.dealer - 1) % 4]

    def number(self) -> int:
        return len(self.tricks) + 1

    def renounces(self, s: int) -> bool:
        """A napolitana in tricks 1-9 (implicitly: the qualifying seat until its first renounce)."""
        if self.number() > 9:
            return False
        if self.napolitana is not None:
            return s == self.napolitana
        return self.rules["napolitanaDeclaration"] == "implicit" and s == self.qualifier

    def legal_cards(self, s: int) -> list[str]:
        hand = self.hands[s]
        if not self.trick or self.rules["allowRevokes"] or self.renounces(s):
            return list(hand)
        same = [c for c in hand if suit(c) == suit(self.trick[0])]
        return same or list(hand)

    def may_announce(self, s: int) -> bool:
        return (len(self.tricks) == 9 and not self.trick and self.announcer is None
                and all(t["winner"] == s for t in self.tricks)
                and (s != self.napolitana or self.rules["napolitanaMayAnnounce"]))

    def napolitana_open(self) -> bool:
        return (self.phase == "play" and not self.tricks and not self.trick and self.napolitana is None
                and self.rules["napolitanaDeclaration"] == "explicit")

    # -- legal actions --
    def legal(self) -> list[str]:
        if self.over:
            return []
        s = self.turn
        if self.phase == "exchange":
            if s == self.dealer:
                return [f"{s} descarte {c}" for c in self.hands[s]]
            return [f"{s} cambio {c}" for c in self.hands[s]] + [f"{s} quedo"]
        out = [f"{s} {c}" for c in self.legal_cards(s)]
        if self.may_announce(s):
            out.append(f"{s} revesino")
        if self.napolitana_open():
            out += [f"{q} napolitana" for q in range(4) if qualifies(self.hands[q])]
        return out

    # -- applying a legal action --
    def apply(self, action: str) -> None:
        seat_text, word, *args = action.split()
        s = int(seat_text)
        if word in ("cambio", "quedo", "descarte"):
            self._exchange(s, word, args)
        elif word == "napolitana":
            self.napolitana = s
        elif word == "revesino":
            self.announcer = s
        else:
            self._card(s, word)

    def _exchange(self, s: int, word: str, args: list[str]) -> None:
        self.chosen.add(s)
        if word == "quedo":
            gone = self.undealt_of(s)
        else:
            gone = args[0]
            self.hands[s].remove(gone)
            if word == "cambio":
                self.hands[s].append(self.undealt_of(s))
        assert gone is not None
        self.out.append(gone)
        self.own_out[s] = gone
        if s != self.dealer:
            self.turn = (s + 1) % 4
            return
        self.phase = "play"
        self.turn = self.leader = (self.dealer + 1) % 4
        self.qualifier = next((q for q in range(4) if qualifies(self.hands[q])), None)

    def _card(self, s: int, card: str) -> None:
        if self.trick and suit(card) != suit(self.trick[0]) and any(suit(c) == suit(self.trick[0]) for c in self.hands[s]):
            if self.napolitana is None and self.renounces(s):
                self.napolitana = s  # implicit declaration by the first renounce
        self.hands[s].remove(card)
        self.trick.append(card)
        if len(self.trick) < 4:
            self.turn = (s + 1) % 4
            return
        w = (self.leader + trick_winner(self.trick)) % 4
        self.tricks.append({"leader": self.leader, "cards": self.trick, "winner": w})
        self.trick, self.leader, self.turn = [], w, w
        if self.announcer is not None and w != self.announcer and self.cutter is None:
            self.cutter = w
            if not self.rules["playOutAfterCut"]:
                self.over = True
        if len(self.tricks) == 11:
            self.over = True

    # -- the code of an illegal action (FORMAT.md section 6 precedence) --
    def code(self, action) -> str | None:
        if action in self.legal():
            return None
        if not isinstance(action, str):
            return "MALFORMED_ACTION"
        tokens = action.split()
        if len(tokens) < 2 or not tokens[0].isdigit() or int(tokens[0]) >= 4:
            return "MALFORMED_ACTION"
        s, word, args = int(tokens[0]), tokens[1], tokens[2:]
        is_card = word in DECK
        if is_card and args:
            return "MALFORMED_ACTION"
        if not is_card:
            if word not in CALLS:
                return "MALFORMED_ACTION"
            if word in ("cambio", "descarte") and (len(args) != 1 or args[0] not in DECK):
                return "MALFORMED_ACTION"
            if word not in ("cambio", "descarte") and args:
                return "MALFORMED_ACTION"
        if self.over:
            return "NOT_ALLOWED_NOW"
        if s != self.turn and word != "napolitana":
            return "NOT_YOUR_TURN"
        if is_card:
            if self.phase != "play":
                return "NOT_ALLOWED_NOW"
            if word not in self.hands[s]:
                return "CARD_NOT_IN_HAND"
            return "MUST_FOLLOW_SUIT"
        if word in ("cambio", "descarte"):
            right = self.phase == "exchange" and (word == "descarte") == (s == self.dealer)
            if right and args[0] not in self.hands[s]:
                return "CARD_NOT_IN_HAND"
        return "NOT_ALLOWED_NOW"

    # -- what a seat may see --
    def visible(self, s: int) -> set[str]:
        """The cards seat s may see outside the tricks: its hand, its undealt card once chosen (or
        with peekBeforeExchange), its own card out of play."""
        out = set(self.hands[s])
        own = self.undealt_of(s)
        if own is not None and (s in self.chosen or self.rules["peekBeforeExchange"]):
            out.add(own)
        if s in self.own_out:
            out.add(self.own_out[s])
        return out


# ---- dealing and rigging -------------------------------------------------------------------------------


def locate(record: dict, card: str) -> tuple[str, int, int]:
    """Where a card is in a deal: ("hand", seat, index) or ("stock", 0, index)."""
    deal = record["deal"]
    for s, h in enumerate(deal["hands"]):
        cards = h.split()
        if card in cards:
            return "hand", s, cards.index(card)
    return "stock", 0, deal["stock"].split().index(card)


def give(record: dict, seat: int, wanted: list[str]) -> None:
    """Swap cards so that ``seat`` is dealt every card of ``wanted`` (hand sizes unchanged)."""
    deal = record["deal"]
    hands = [h.split() for h in deal["hands"]]
    stock = deal["stock"].split()
    for card in wanted:
        if card in hands[seat]:
            continue
        spare = next(c for c in hands[seat] if c not in wanted and c not in ACES and c != QUINOLA)
        where, s, i = locate({"deal": {"hands": [" ".join(h) for h in hands], "stock": " ".join(stock)}}, card)
        j = hands[seat].index(spare)
        if where == "hand":
            hands[s][i] = spare
        else:
            stock[i] = spare
        hands[seat][j] = card
    deal["hands"] = [" ".join(h) for h in hands]
    deal["stock"] = " ".join(stock)


def new_hand(rng: random.Random, rules: dict, rig: str) -> tuple[dict, int | None]:
    """A seeded deal, rigged or not; returns the record and the rigged seat."""
    dealer = rng.randrange(4)
    deal = api.deal({"game": "revesino", "seats": 4, "dealer": dealer, "seed": f"revesino-playout-{rng.random()}"})["deal"]
    record = {"game": "revesino", "seats": 4, "dealer": dealer, "rules": dict(rules), "deal": deal, "actions": []}
    table = rng.choice(TABLES)
    if table is not None:
        record["table"] = table
    seat = None
    if rig == "napolitana":
        seat = rng.randrange(4)
        aces = list(ACES)
        wanted = aces if rng.random() < 0.4 else rng.sample(aces, 3) + [QUINOLA]
        give(record, seat, wanted)
    elif rig == "revesino":
        seat = (dealer + 1) % 4  # S1 leads trick 1 with a sure winner and keeps the lead
        suits = rng.sample("oceb", 3)
        give(record, seat, [f"{r}{x}" for x in suits for r in (1, 12, 11)])
    return record, seat


# ---- playing ---------------------------------------------------------------------------------------------


def kind(action: str) -> str:
    word = action.split()[1]
    return "card" if word[0].isdigit() else word


def sure_winner(ref: Ref, s: int, card: str) -> bool:
    """No other seat holds a higher card of its suit."""
    return all(not (suit(c) == suit(card) and strength(c) > strength(card)) for p in range(4) if p != s for c in ref.hands[p])


def pick(rng: random.Random, ref: Ref, legal: list[str], rigged: int | None, rig: str) -> str:
    calls = [a for a in legal if kind(a) in ("napolitana", "revesino")]
    if calls and rng.random() < 0.85:
        return rng.choice(calls)
    s = ref.turn
    mine = [a for a in legal if int(a.split()[0]) == s]
    if s == rigged and ref.phase == "exchange":
        keep = [a for a in mine if kind(a) == "quedo"]
        if keep:
            return keep[0]
        plain = [a for a in mine if a.split()[-1] not in ACES and a.split()[-1] != QUINOLA]
        if rig == "revesino":
            plain = [a for a in plain if a.split()[-1][:-1] not in ("1", "12", "11")] or plain
        return rng.choice(plain or mine)
    if s == rigged and rig == "revesino" and ref.phase == "play":
        cards = [a.split()[1] for a in mine if kind(a) == "card"]
        sure = [c for c in cards if sure_winner(ref, s, c)]
        best = max(sure or cards, key=lambda c: (strength(c), c))
        return f"{s} {best}"
    kinds = sorted({kind(a) for a in mine})
    chosen = rng.choice(kinds)
    return rng.choice([a for a in mine if kind(a) == chosen])


def check_step(record: dict, result: dict, ref: Ref) -> None:
    assert result["valid"], result.get("violation")
    done = [t for t in result["tricks"] if "winner" in t]
    assert [(t["leader"], t["cards"], t["winner"]) for t in done] == [(t["leader"], t["cards"], t["winner"]) for t in ref.tricks]
    for t in done:  # the winner by the rank order, independently of the reference's bookkeeping
        assert t["winner"] == (t["leader"] + trick_winner(t["cards"])) % 4
    in_progress = [t["cards"] for t in result["tricks"] if "winner" not in t and t["cards"]]
    assert in_progress == ([ref.trick] if ref.trick else [])
    cards = [c for h in ref.hands.values() for c in h] + [c for t in ref.tricks for c in t["cards"]] + ref.trick + ref.out
    cards += [ref.undealt_of(s) for s in range(4) if s != ref.dealer and s not in ref.chosen]
    assert sorted(cards) == sorted(DECK)
    assert result["phase"] == ("over" if ref.over else ref.phase)
    assert result["seatTricks"] == [sum(1 for t in ref.tricks if t["winner"] == s) for s in range(4)]
    assert result["cardPoints"] == [sum(card_points(c) for t in ref.tricks if t["winner"] == s for c in t["cards"]) for s in range(4)]
    if ref.napolitana is None:
        assert result.get("napolitana") is None
    else:
        assert result["napolitana"]["seat"] == ref.napolitana
    if ref.announcer is None:
        assert result.get("revesino") is None
    else:
        assert result["revesino"]["seat"] == ref.announcer
        assert result["revesino"].get("cutter") == ref.cutter
        if ref.cutter is not None:
            assert result["revesino"]["outcome"] == "cut"
    if result["finished"]:
        assert ref.over, "the engine ended a hand the reference goes on with"
        assert "next" not in result
        return
    assert not ref.over, "the reference ended the hand, the engine goes on"
    legal = result["next"]["legal"]
    assert legal, "no legal action in an unfinished hand"
    assert len(legal) == len(set(legal)), "an action listed twice"
    assert result["next"]["seat"] == ref.turn
    assert set(legal) == set(ref.legal()), (set(legal) ^ set(ref.legal()))
    for a in legal:
        assert int(a.split()[0]) == ref.turn or a.endswith(" napolitana"), a


def check_views(record: dict, ref: Ref) -> None:
    """Each seat sees its own cards and nothing of another's; after the exchange the four hands of
    the views, the tricks and each view's own card out of play make the pack."""
    seen_hands: list[str] = []
    outs: list[str | None] = []
    for s in range(4):
        out = api.legal_actions(record, s)
        v = out["view"]
        assert sorted(v["hand"].split()) == sorted(ref.hands[s])
        assert v["handSizes"] == [len(ref.hands[p]) for p in range(4)]
        shown = cards_in({k: x for k, x in v.items() if k != "tricks"}) | cards_in(out["legal"]) | cards_in(out["actions"])
        played = {c for t in ref.tricks for c in t["cards"]} | set(ref.trick)  # public once played
        leak = shown - ref.visible(s) - played
        assert not leak, (s, leak)
        own = ref.undealt_of(s)
        if own is not None and (s in ref.chosen or ref.rules["peekBeforeExchange"]):
            assert v["undealtCard"] == own
        else:
            assert "undealtCard" not in v
        seen_hands += v["hand"].split()
        # The seat's card out of play: its discard (cambio, descarte) or the undealt card it declined.
        outs.append(v.get("discarded") or v.get("undealtCard") if s in ref.chosen else None)
        if s in ref.chosen:
            assert outs[-1] == ref.own_out[s], (s, v)
    if ref.phase == "play":
        on_table = [c for t in ref.tricks for c in t["cards"]] + ref.trick
        assert sorted(seen_hands + on_table + outs) == sorted(DECK)


def check_end(record: dict, result: dict, ref: Ref) -> None:
    assert result["finished"] and ref.over
    net = result["net"]
    assert len(net) == 4 and all(isinstance(v, int) for v in net)
    before = (record.get("table") or {}).get("fondo", 0)
    after = result["table"]["fondo"]
    assert after >= 0
    assert sum(net) + (after - before) == 0, (net, before, after)
    assert result.get("escrow", 0) == 0
    if ref.cutter is not None and not ref.rules["playOutAfterCut"]:
        assert len(ref.tricks) < 11 or ref.tricks[-1]["winner"] == ref.cutter
    check_party_payer(record, result)


def check_party_payer(record: dict, result: dict) -> str | None:
    """R2 over a whole hand: the party (default ``partyFromMost``) is paid by the seat with most
    card points among the others, then the one with more tricks, then the later seat from the
    dealer in play order (R3's default; from the dealer to his left under ``tiebreakOrder:
    dealerThenLeft``); a failed napolitana pays it alone (R21). Returns how the
    payer was found ("points", "tricks" or "seat"), or None when no one seat pays it."""
    payer = result.get("partyPayer")
    nap = result.get("napolitana") or {}
    if payer is None or nap.get("outcome") == "failed":
        return None
    winner, points, tricks = result["handWinner"], result["cardPoints"], result["seatTricks"]
    step = -1 if (record.get("rules") or {}).get("tiebreakOrder") == "dealerThenLeft" else 1
    others = [seat_after(record["dealer"], step * k) for k in range(4)]
    others.remove(winner)
    most = [s for s in others if points[s] == max(points[o] for o in others)]
    more = [s for s in most if tricks[s] == max(tricks[o] for o in most)]
    assert payer == more[-1], (points, tricks, winner, payer)
    return "points" if len(most) == 1 else "tricks" if len(more) == 1 else "seat"


def play_hand(rng: random.Random, record: dict, rigged: int | None, rig: str) -> tuple[dict, Ref]:
    """Play a random legal hand to its end, checking every step; return the final result."""
    ref = Ref(record)
    step = 0
    while True:
        result = api.validate(record)
        check_step(record, result, ref)
        if step % 9 == 4 or result["finished"]:
            check_views(record, ref)
        if result["finished"]:
            return result, ref
        action = pick(rng, ref, result["next"]["legal"], rigged, rig)
        record["actions"].append(action)
        ref.apply(action)
        step += 1


def ref_of(record: dict, upto: int) -> Ref:
    ref = Ref(record)
    for action in record["actions"][:upto]:
        ref.apply(action)
    return ref


def substitutions(rng: random.Random, ref: Ref) -> list[str]:
    """Illegal actions for the state of ``ref`` (not over)."""
    out: list[str] = []
    s = ref.turn
    hand = ref.hands[s]
    not_held = [c for c in DECK if c not in hand]
    others = [p for p in range(4) if p != s]
    o = rng.choice(others)
    out.append(f"{s} {rng.choice(not_held)}")  # CARD_NOT_IN_HAND, or NOT_ALLOWED_NOW in the exchange
    if ref.phase == "play" and ref.trick:
        refused = sorted(set(hand) - set(ref.legal_cards(s)))
        if refused:
            out.append(f"{s} {rng.choice(refused)}")  # MUST_FOLLOW_SUIT
    if ref.hands[o]:
        out.append(f"{o} {rng.choice(ref.hands[o])}")  # NOT_YOUR_TURN
        out.append(f"{o} quedo" if o != ref.dealer else f"{o} descarte {rng.choice(ref.hands[o])}")  # NOT_YOUR_TURN
    out.append(f"{o} revesino")  # NOT_YOUR_TURN
    # Calls the moment does not accept, by the seat to act, with cards it holds.
    held = rng.choice(hand)
    out += [f"{s} {c}" for c in ("quedo", f"cambio {held}", f"descarte {held}", "revesino", "napolitana")]
    out.append(f"{o} napolitana")
    if ref.phase == "exchange":  # the right call with a card not held
        out.append(f"{s} descarte {rng.choice(not_held)}" if s == ref.dealer else f"{s} cambio {rng.choice(not_held)}")
    malformed = ["x y", "", "1", "4 quedo", "-1 quedo", "1 13o", "1 0c", "1 cambio", "1 cambio 1o 2o", "1 quedo 3c",
                 "1 descarte", "1 napolitana 1o", "1 revesino ya", "1 paso", "1 envite", "1 1o 2o", "uno quedo", 7, None]
    out.append(rng.choice(malformed))
    return [a for a in out if ref.code(a) is not None]


RIGS = ("none", "napolitana", "revesino")


@pytest.mark.parametrize("rules_name", list(OPTION_SETS))
def test_random_playouts(rules_name: str):
    rules = OPTION_SETS[rules_name]
    rng = random.Random(seed(f"revesino-{rules_name}"))
    caught = 0
    for i in range(HANDS):
        rig = RIGS[i % 3]
        record, rigged = new_hand(rng, rules, rig)
        result, ref = play_hand(rng, record, rigged, rig)
        check_end(record, result, ref)
        actions = record["actions"]

        # Illegal actions substituted into the legal record are caught at exactly their index.
        for k in rng.sample(range(len(actions)), min(3, len(actions))):
            ref_k = ref_of(record, k)
            for bad in substitutions(rng, ref_k):
                code = ref_k.code(bad)
                spoiled = {**record, "actions": [*actions[:k], bad, *actions[k + 1:]]}
                got = api.validate(spoiled)
                assert not got["valid"], (k, bad)
                assert (got["violation"]["action"], got["violation"]["code"]) == (k, code), (k, bad, got["violation"])
                assert got["finished"] is False and "net" not in got
                caught += 1
        # After the end, any action is too late, whoever makes it; a malformed one is still malformed.
        late = rng.choice([f"{s} {c}" for s in range(4) for c in ("quedo", "napolitana", "revesino", DECK[i % len(DECK)])])
        assert api.validate({**record, "actions": [*actions, late]})["violation"]["code"] == "NOT_ALLOWED_NOW"
        assert api.validate({**record, "actions": [*actions, "0 envido"]})["violation"]["code"] == "MALFORMED_ACTION"
    assert caught >= HANDS * 3


def test_playouts_reach_napolitanas_and_revesinos():
    """Over the rigged hands the play reaches napolitanas (kept and failed) and revesinos (won and
    cut), and unannounced sweeps when the call is not taken."""
    rng = random.Random("revesino-outcomes")
    seen: set[str] = set()
    for i in range(24):
        rig = ("napolitana", "revesino")[i % 2]
        record, rigged = new_hand(rng, {}, rig)
        result, ref = play_hand(rng, record, rigged, rig)
        check_end(record, result, ref)
        if result.get("napolitana"):
            seen.add("napolitana-" + result["napolitana"]["outcome"])
        if result.get("revesino"):
            seen.add("revesino-" + result["revesino"]["outcome"])
        if len(ref.tricks) == 11 and len({t["winner"] for t in ref.tricks}) == 1 and ref.announcer is None:
            seen.add("sweep")
    assert {"napolitana-success", "napolitana-failed", "revesino-won", "revesino-cut"} <= seen, seen


@pytest.mark.parametrize("rules_name", list(OPTION_SETS))
def test_a_refusal_listing_what_a_seat_may_say_lists_exactly_its_legal_calls(rules_name: str):
    """A3, section 0: a card in the exchange is refused naming what the seat says there
    ("seat 1 says cambio <card> or quedo", the dealer's descarte), exactly the calls of its legal
    list: at every step of random hands, a card the seat to act holds, a card of the deck and
    every call of the game are tried, and each list a refusal names is the seat's legal calls."""
    rules = OPTION_SETS[rules_name]
    rng = random.Random(seed(f"revesino-listed-calls-{rules_name}"))
    checked = 0
    for i in range(8 * SOAK):
        record, _ = new_hand(rng, rules, RIGS[i % 3])
        while not (result := api.validate(record, events=False))["finished"]:
            s = result["next"]["seat"]
            hand = api.legal_actions(record, s)["view"]["hand"].split()
            held = rng.choice(hand)
            tried = [f"{s} {a}" for a in ("quedo", "napolitana", "revesino", f"cambio {held}", f"descarte {held}", held,
                                          rng.choice(DECK))]
            checked += check_listed_calls(record, result, tried)
            legal = result["next"]["legal"]
            calls = [a for a in legal if a.split()[1] in ("napolitana", "revesino")]
            record["actions"].append(rng.choice(calls or legal))
    assert checked >= 8 * 4 * SOAK  # (the exchange's: four refusals of a card a hand)


@pytest.mark.parametrize("order", ["playOrder", "dealerThenLeft"])
def test_r2_party_payer_ties_through_whole_hands(order: str):
    """R2 (and R3's order) through whole random hands validated by the engine: the payer of the
    party is found by points alone, by tricks among tied points, and by seat among tied points
    and tricks, each seen in the hands played."""
    rng = random.Random(f"revesino-r2-{order}")
    seen: dict[str, int] = {}
    for i in range(600):
        dealer = i % 4
        deal = api.deal({"game": "revesino", "seats": 4, "dealer": dealer, "seed": f"r2-{order}-{i}"})["deal"]
        record = {"game": "revesino", "seats": 4, "dealer": dealer, "deal": deal, "actions": [],
                  "rules": {"tiebreakOrder": order}}
        ref = Ref(record)
        while not ref.over:
            action = rng.choice([a for a in ref.legal() if not a.endswith(("napolitana", "revesino"))])
            record["actions"].append(action)
            ref.apply(action)
        result = api.validate(record)
        assert result["valid"] and result["finished"], result.get("violation")
        how = check_party_payer(record, result)
        if how:
            seen[how] = seen.get(how, 0) + 1
        if len(seen) == 3:
            break
    assert set(seen) == {"points", "tricks", "seat"}, seen


def test_reference_trick_winner_on_random_tricks():
    """Random complete tricks played through records: the engine's winner is the reference's."""
    rng = random.Random("revesino-tricks")
    for _ in range(40):
        dealer = rng.randrange(4)
        deal = api.deal({"game": "revesino", "seats": 4, "dealer": dealer, "seed": f"t-{rng.random()}"})["deal"]
        record = {"game": "revesino", "seats": 4, "dealer": dealer, "deal": deal, "actions": []}
        ref = Ref(record)
        while len(ref.tricks) < 3 and not ref.over:
            action = rng.choice([a for a in ref.legal() if not a.endswith(("napolitana", "revesino"))])
            record["actions"].append(action)
            ref.apply(action)
        result = api.validate(record)
        assert result["valid"]
        for t in result["tricks"]:
            assert t["winner"] == (t["leader"] + trick_winner(t["cards"])) % 4
