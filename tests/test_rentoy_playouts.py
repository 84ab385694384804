"""Random legal playouts of Rentoy (STYLE.md, habit 14): every table size and several option sets.

Each hand starts from a random deal and grows one action at a time: the record is validated
after every action, a legal action must exist until the hand is over, and one is picked at
random. Alongside runs ``Ref``, a small reference written from the spec's text alone (rank
orders, arrastre, the envite ladder and raise rights), so the engine's legal sets, trick winners
and points are checked against an independent reading, not against themselves. Then illegal
actions are substituted into the legal records and must be caught at exactly their index with
the right code.
"""

from __future__ import annotations

import random

import pytest
from results_support import check_listed_calls
from soak import SOAK, seed

from engine import api

SUITS = "oceb"
RANKS = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
DECK = [r + s for s in SUITS for r in RANKS]
# B1, highest first, copied from the spec's text.
TRUMP_ORDER = "2 12 11 10 1 7 6 5 4 3".split()
PLAIN_ORDER = "12 11 10 1 7 6 5 4 3 2".split()

OPTION_SETS = {
    "defaults": {},
    "short-ladder-all-tricks": {"ladder": "1-3-6-12", "playAllTricks": True},
    "anytime-any-opponent": {"betTiming": "anytime", "answerBy": "anyOpponent"},
    "free-penalty-dealer-leads": {"raiseRights": "free", "renuncio": "penalty", "firstLeader": "dealer",
                                  "nextDealer": "beforeDealer"},
    "everything": {"ladder": "1-3-6-12", "betTiming": "anytime", "answerBy": "anyOpponent", "raiseRights": "free",
                   "playAllTricks": True, "renuncio": "penalty"},
}
HANDS = 14 * SOAK  # per table size and option set: 4 x 5 x 14 = 280 hands (times NAIPES_SOAK: tests/soak.py)


def suit(card: str) -> str:
    return card[-1]


def rank(card: str) -> str:
    return card[:-1]


def ref_trick_winner(cards: list[str], trump: str) -> int:
    """B4: the highest trump if any; otherwise the highest card of the suit led."""
    trumps = [i for i, c in enumerate(cards) if suit(c) == trump]
    if trumps:
        return min(trumps, key=lambda i: TRUMP_ORDER.index(rank(cards[i])))
    led = [i for i, c in enumerate(cards) if suit(c) == suit(cards[0])]
    return min(led, key=lambda i: PLAIN_ORDER.index(rank(cards[i])))


class Ref:
    """The hand as the spec describes it, in plain strings."""

    def __init__(self, hands: list[str], turnup: str, dealer: int, rules: dict):
        self.rules = rules
        self.n = len(hands)
        self.hands = [set(h.split()) for h in hands]
        self.trump = suit(turnup)
        self.turn = dealer if rules.get("firstLeader") == "dealer" else (dealer + 1) % self.n
        self.leader = self.turn
        self.trick: list[str] = []
        self.played: list[str] = []
        self.winners: list[int] = []
        self.won = [0, 0]
        self.ladder = [1, 3, 6, 12] if rules.get("ladder") == "1-3-6-12" else [1, 3, 6, 9, 12]
        self.value = 1
        self.pending: tuple[int, int] | None = None  # (value proposed, proposing seat)
        self.right: int | None = None  # team that alone may raise; None: either
        self.over: tuple[int, int, str] | None = None  # (winning team, value, how)

    def to_act(self) -> int:
        return (self.pending[1] + 1) % self.n if self.pending else self.turn

    def may_bet(self, seat: int) -> bool:
        return (self.pending is None and max(self.won) < 2 and self.value < 12
                and self.right in (None, seat % 2))

    def must_trump(self, seat: int) -> set[str]:
        """The trumps the arrastre obliges ``seat`` to choose from now (empty: free play)."""
        if self.trick and suit(self.trick[0]) == self.trump:
            return {c for c in self.hands[seat] if suit(c) == self.trump}
        return set()

    def legal(self) -> set[str]:
        if self.over:
            return set()
        if self.pending:
            value, proposer = self.pending
            answerer = (proposer + 1) % self.n
            if self.rules.get("answerBy") == "anyOpponent":
                seats = [s for s in range(self.n) if s % 2 == answerer % 2]
            else:
                seats = [answerer]
            calls = ["quiero", "no-quiero"] + (["envite"] if value < 12 else [])
            return {f"{s} {c}" for s in seats for c in calls}
        seat = self.turn
        cards = self.hands[seat]
        if self.rules.get("renuncio", "prevent") == "prevent":
            cards = self.must_trump(seat) or cards
        out = {f"{seat} {c}" for c in cards}
        bettors = range(self.n) if self.rules.get("betTiming") == "anytime" else [seat]
        return out | {f"{s} envite" for s in bettors if self.may_bet(s)}

    def apply(self, action: str) -> None:
        text, word = action.split()
        seat = int(text)
        if word == "envite":
            if self.pending:
                self.value = self.pending[0]  # a raise accepts the proposal
            self.pending = (self.ladder[self.ladder.index(self.value) + 1], seat)
        elif word == "quiero":
            assert self.pending
            self.value = self.pending[0]
            self.pending = None
            self.right = None if self.rules.get("raiseRights") == "free" else seat % 2
        elif word == "no-quiero":
            assert self.pending
            self.over = (self.pending[1] % 2, self.value, "fold")
            self.pending = None
        else:
            renounce = bool(self.must_trump(seat)) and suit(word) != self.trump
            self.hands[seat].remove(word)
            self.trick.append(word)
            self.played.append(word)
            if renounce:
                self.over = (1 - seat % 2, self.value, "renuncio")
            elif len(self.trick) < self.n:
                self.turn = (seat + 1) % self.n
            else:
                winner = (self.leader + ref_trick_winner(self.trick, self.trump)) % self.n
                self.winners.append(winner)
                self.won[winner % 2] += 1
                self.trick, self.leader, self.turn = [], winner, winner
                if max(self.won) >= 2 and (not self.rules.get("playAllTricks") or len(self.winners) == 3):
                    self.over = (0 if self.won[0] >= 2 else 1, self.value, "tricks")


def new_hand(rng: random.Random, seats: int, rules: dict, use_engine_deal: bool) -> dict:
    dealer = rng.randrange(seats)
    if use_engine_deal:
        deal = api.deal({"game": "rentoy", "seats": seats, "dealer": dealer, "seed": f"playout-{rng.random()}"})["deal"]
    else:
        pack = DECK[:]
        rng.shuffle(pack)
        rest = pack[3 * seats:][: rng.randrange(1, 41 - 3 * seats)]  # the turn-up, then maybe more
        deal = {"hands": [" ".join(pack[3 * s:3 * s + 3]) for s in range(seats)], "stock": " ".join(rest)}
    score = [rng.randrange(12), rng.randrange(12)]
    return {"game": "rentoy", "seats": seats, "dealer": dealer, "rules": dict(rules), "table": {"score": score},
            "deal": deal, "actions": []}


def pick(rng: random.Random, legal: list[str]) -> str:
    # Mostly cards, so that hands with bets still reach their tricks.
    weights = [1 if a.endswith(("envite", "no-quiero")) else 4 for a in legal]
    return rng.choices(legal, weights)[0]


def ref_of(record: dict, upto: int) -> Ref:
    ref = Ref(record["deal"]["hands"], record["deal"]["stock"].split()[0], record["dealer"], record["rules"])
    for action in record["actions"][:upto]:
        ref.apply(action)
    return ref


def play_hand(rng: random.Random, record: dict) -> dict:
    """Play a random legal hand to its end, checking every step; return the final result."""
    ref = ref_of(record, 0)
    ladder = ref.ladder
    while True:
        result = api.validate(record)
        assert result["valid"], result.get("violation")
        assert [t["winner"] for t in result["tricks"] if "winner" in t] == ref.winners
        assert [c for t in result["tricks"] for c in t["cards"]] == ref.played
        assert result["value"] == ref.value and result["value"] in ladder
        if ref.pending:
            assert result["proposal"] == {"value": ref.pending[0], "seat": ref.pending[1]}
            assert result["proposal"]["value"] in ladder
        else:
            assert "proposal" not in result
        if result["finished"]:
            assert ref.over is not None and "next" not in result
            return result
        assert ref.over is None
        legal = result["next"]["legal"]
        assert legal, "no legal action in an unfinished hand"
        assert len(legal) == len(set(legal))
        assert set(legal) == ref.legal()
        assert result["next"]["seat"] == ref.to_act()
        action = pick(rng, legal)
        record["actions"].append(action)
        ref.apply(action)


def check_end(record: dict, result: dict) -> None:
    ref = ref_of(record, len(record["actions"]))
    team, value, how = ref.over
    ladder = ref.ladder
    # Exactly one team scores, a value of the ladder, and the table moves by the points.
    points = result["points"]
    assert points[team] == value and points[1 - team] == 0 and value in ladder
    assert (result["handWinner"], result["end"]) == (team, how)
    before = record["table"]["score"]
    after = [before[0] + points[0], before[1] + points[1]]
    assert result["table"] == {"score": after}
    assert result.get("matchWinner") == (team if after[team] >= 12 else None)
    step = -1 if record["rules"].get("nextDealer") == "beforeDealer" else 1
    assert result["nextDealer"] == (record["dealer"] + step) % record["seats"]
    # Cards are conserved: what is left in the hands, the tricks, the turn-up and the rest of
    # the stock are the cards dealt, none twice.
    seats = record["seats"]
    left = []
    for seat in range(seats):
        hand = api.legal_actions(record, seat)["view"]["hand"].split()
        assert set(hand) == ref.hands[seat]
        left += hand
    played = [c for t in result["tricks"] for c in t["cards"]]
    stock = record["deal"]["stock"].split()
    dealt = [c for h in record["deal"]["hands"] for c in h.split()] + stock
    assert result["turnUp"] == stock[0]
    assert len(set(played)) == len(played)
    assert sorted(left + played + stock) == sorted(dealt)
    assert len(dealt) == len(set(dealt))
    assert len(played) == 3 * seats - sum(len(h) for h in ref.hands)


def substitutions(rng: random.Random, ref: Ref) -> list[tuple[str, str]]:
    """Illegal actions for the state of ``ref`` (not over), each with the code it must get."""
    n = ref.n
    out: list[tuple[str, str]] = []
    to_act = ref.to_act()
    seat = ref.turn
    not_held = [c for c in DECK if c not in ref.hands[seat]]
    if ref.pending is None:
        out.append((f"{seat} {rng.choice(not_held)}", "CARD_NOT_IN_HAND"))
        trumps = ref.must_trump(seat)
        others = ref.hands[seat] - trumps
        if trumps and others and ref.rules.get("renuncio", "prevent") == "prevent":
            out.append((f"{seat} {rng.choice(sorted(others))}", "MUST_PLAY_TRUMP"))
        if ref.right is not None and ref.right != seat % 2 and max(ref.won) < 2:
            out.append((f"{seat} envite", "NOT_ALLOWED_NOW"))  # a bet without the right
        out.append((f"{seat} {rng.choice(['quiero', 'no-quiero'])}", "NOT_ALLOWED_NOW"))  # nothing to answer
    else:
        # An answer is due: a card, even one not held, is not accepted now.
        out.append((f"{to_act} {rng.choice(DECK)}", "NOT_ALLOWED_NOW"))
        if ref.pending[0] == 12:
            out.append((f"{to_act} envite", "NOT_ALLOWED_NOW"))
    wrong = [s for s in range(n) if s != to_act and ref.hands[s]]
    if wrong:
        s = rng.choice(wrong)
        out.append((f"{s} {rng.choice(sorted(ref.hands[s]))}", "NOT_YOUR_TURN"))  # its own card, out of turn
    if ref.pending is not None:
        # The proposer's team may never answer its own proposal.
        partners = [s for s in range(n) if s % 2 == ref.pending[1] % 2]
        out.append((f"{rng.choice(partners)} {rng.choice(['quiero', 'no-quiero'])}", "NOT_YOUR_TURN"))
    malformed = ["", "1", "x 1o", f"{n} 1o", "-1 1o", "1 8o", "1 9e", "1 13c", "1 envido", "1 1o 2o", "1 quiero 3",
                 "uno 1o", 7, None]
    out.append((rng.choice(malformed), "MALFORMED_ACTION"))
    return out


@pytest.mark.parametrize("rules_name", list(OPTION_SETS))
@pytest.mark.parametrize("seats", [2, 4, 6, 8])
def test_random_playouts(seats: int, rules_name: str):
    """B1, B3, B4, B5 against ``Ref``, the spec's own reading: at every action of random hands the
    engine's legal actions, the seat to act, the value and the proposal follow B3's envite state
    machine (ladder, accept, raise, fold, raise rights) and B4's legal cards and trick winners
    (B1's rank orders); at the end one team scores the accepted value, a fold the proposer's
    last accepted value, and the match is won at 12 (B5). Illegal actions substituted are caught."""
    rules = OPTION_SETS[rules_name]
    rng = random.Random(seed(f"rentoy-{seats}-{rules_name}"))
    ends: dict[str, int] = {}
    caught = 0
    for i in range(HANDS):
        record = new_hand(rng, seats, rules, use_engine_deal=i % 2 == 1)
        result = play_hand(rng, record)
        check_end(record, result)
        ends[result["end"]] = ends.get(result["end"], 0) + 1
        actions = record["actions"]

        # Illegal actions substituted into the legal record are caught at exactly their index.
        for k in rng.sample(range(len(actions)), min(3, len(actions))):
            ref = ref_of(record, k)
            for bad, code in substitutions(rng, ref):
                spoiled = {**record, "actions": [*actions[:k], bad, *actions[k + 1:]]}
                got = api.validate(spoiled)
                assert not got["valid"], (k, bad)
                assert (got["violation"]["action"], got["violation"]["code"]) == (k, code), (k, bad, got["violation"])
                assert got["finished"] is False and "points" not in got
                caught += 1
        # After the end, any action is too late, whoever makes it; a malformed one is still malformed.
        late = rng.choice([f"{s} {c}" for s in range(seats) for c in ("envite", "quiero", DECK[i % len(DECK)])])
        assert api.validate({**record, "actions": [*actions, late]})["violation"]["code"] == "NOT_ALLOWED_NOW"
        assert api.validate({**record, "actions": [*actions, "0 envido"]})["violation"]["code"] == "MALFORMED_ACTION"
    assert caught >= HANDS * 3
    assert "tricks" in ends  # the playouts reach the end of play, not only folds


def test_renuncio_penalty_playouts_reach_renuncio():
    """The penalty option is exercised: some random hands end by renuncio."""
    rng = random.Random("renuncio")
    rules = OPTION_SETS["free-penalty-dealer-leads"]
    ends = set()
    for _ in range(40):
        record = new_hand(rng, 4, rules, use_engine_deal=False)
        result = play_hand(rng, record)
        check_end(record, result)
        ends.add(result["end"])
    assert ends == {"tricks", "fold", "renuncio"}


@pytest.mark.parametrize("rules_name", list(OPTION_SETS))
def test_a_refusal_listing_what_a_seat_may_say_lists_exactly_its_legal_calls(rules_name: str):
    """B3: a card played while an envite waits for its answer is refused naming the answers
    ("quiero, no-quiero or envite"; no envite at the top of the ladder), exactly the calls of the
    answering seat's legal list (T3, answerBy anyOpponent: of the partner who played the card): at every step of random hands at every table size, a card each
    seat holds, a card of the deck and every call of the game are tried, and each list a refusal
    names is the seat's legal calls."""
    rules = OPTION_SETS[rules_name]
    rng = random.Random(seed(f"rentoy-listed-calls-{rules_name}"))
    checked = 0
    for i in range(24 * SOAK):
        seats = (2, 4, 6, 8)[i % 4]
        record = new_hand(rng, seats, rules, use_engine_deal=True)
        while not (result := api.validate(record, events=False))["finished"]:
            tried = [f"{s} {a}" for s in range(seats) for a in ("envite", "quiero", "no-quiero", rng.choice(DECK))]
            hands = [api.legal_actions(record, s)["view"]["hand"].split() for s in range(seats)]
            tried += [f"{s} {hand[0]}" for s, hand in enumerate(hands) if hand]
            checked += check_listed_calls(record, result, tried)
            record["actions"].append(rng.choice(result["next"]["legal"]))
    assert checked >= 4 * SOAK


def test_reference_trick_winner_matches_resolve_trick():
    """Every trick of 2 to 8 random cards, under each trump: the engine's winner is the reference's."""
    rng = random.Random("tricks")
    for _ in range(2000):
        cards = rng.sample(DECK, rng.randrange(2, 9))
        trump = rng.choice(["oros", "copas", "espadas", "bastos"])
        out = api.resolve_trick({"game": "rentoy", "cards": " ".join(cards), "contract": {"trump": trump}})
        assert out["winnerIndex"] == ref_trick_winner(cards, trump[0]), (cards, trump)
