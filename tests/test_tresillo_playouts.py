"""Random legal playouts of Tresillo (STYLE.md, habit 14): 3 and 4 seats, several option sets.

Each hand starts from a seeded deal (``api.deal``) and grows one action at a time: the record is
validated after every action, a legal action must exist until the hand is over, and one is picked
at random (first a kind of action, uniformly, then one action of that kind, so that the 512
possible discards do not crowd out everything else). Alongside runs ``Ref``, a small reference
written from the spec's text alone (the rank tables of section 1.3, the auction of 3.3, the
exchange of section 0 and 4, the legal cards of section 5, the winner of section 6, surrender,
bola and the early end of 7.2-7.4), so the engine's legal sets, tricks and end are checked against
an independent reading, not against themselves. All 40 cards stay accounted for, money is
conserved, and illegal actions substituted into the legal records are caught at exactly their
index with the right code.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from results_support import check_listed_calls
from soak import SOAK, seed
from tresillo_support import DECK, LETTER, PLAIN_ORDER, SUITS, TRUMP_ORDER, WORD  # the spec's tables, section 1.3

from engine import api

MALA = {"o": "7o", "c": "7c", "e": "2e", "b": "2b"}

DEFAULTS = {"favorSuit": "bastos", "vueltaTurnedCardDiscardable": False, "entradaMinDiscard": 0,
            "auctionPriority": "manoOnly", "espadaForzada": "off", "contraOrder": "rightChooses",
            "matadorForcing": "handMano", "multiMatadorRenege": True, "surrenderOnlyOnOwnTurn": False,
            "vueltaSoleraAllowed": True, "soleraSurrender": "asVuelta", "stopWhenDecided": True}

OPTION_SETS = {
    "defaults": {},
    "no-favour-all-tricks": {"favorSuit": "none", "stopWhenDecided": False},
    "ombre-play": {"matadorForcing": "trickLeader", "multiMatadorRenege": False, "auctionPriority": "positional",
                   "favorSuit": "oros"},
    "strict-exchange": {"entradaMinDiscard": 1, "contraOrder": "turnOrder", "vueltaTurnedCardDiscardable": True,
                        "espadaForzada": "mustOpen", "surrenderOnlyOnOwnTurn": True},
    "if-all-pass": {"espadaForzada": "ifAllPass", "favorSuit": "copas", "soleraSurrender": "forbidden"},
    # A9: with the solera off, a one-card vuelta is a plain vuelta, which may be surrendered.
    "no-solera": {"vueltaSoleraAllowed": False, "soleraSurrender": "forbidden"},
}
HANDS = 8 * SOAK  # per table size and option set: 2 x 6 x 8 = 96 hands (times NAIPES_SOAK: tests/soak.py)
TABLES = [None, {"plate": 10, "plateHolds": "none", "cartulina": []}, {"plate": 30, "plateHolds": "primera", "cartulina": []},
          {"plate": 60, "plateHolds": "reservada", "cartulina": [{"seat": 0, "amount": 60}, {"seat": 1, "amount": 25}]}]


def canon(cards) -> list[str]:
    return sorted(cards, key=lambda c: (SUITS.index(c[-1]), int(c[:-1])))


def is_trump(card: str, t: str) -> bool:
    return card in TRUMP_ORDER[t]


def eff_suit(card: str, t: str) -> str:
    return "T" if is_trump(card, t) else card[-1]


def is_matador(card: str, t: str) -> bool:
    return card in ("1e", MALA[t], "1b")


def ref_trick_winner(cards: list[str], t: str) -> int:
    """Section 6: the best trump if any; otherwise the best card of the suit led."""
    trumps = [i for i, c in enumerate(cards) if is_trump(c, t)]
    if trumps:
        return min(trumps, key=lambda i: TRUMP_ORDER[t].index(cards[i]))
    led = cards[0][-1]
    return min((i for i, c in enumerate(cards) if c[-1] == led), key=lambda i: PLAIN_ORDER[led].index(cards[i]))


def ref_legal_cards(hand: list[str], trick: list[str], t: str, leader_is_hand_mano: bool, rules: dict) -> set[str]:
    """Section 5, line by line."""
    if not trick:
        return set(hand)
    led = trick[0]
    ls = eff_suit(led, t)
    if ls != "T":
        follow = {c for c in hand if eff_suit(c, t) == ls}
        return follow or set(hand)
    trumps = [c for c in hand if is_trump(c, t)]
    applies = leader_is_hand_mano or rules["matadorForcing"] == "trickLeader"

    def forced(c: str) -> bool:
        if not is_matador(c, t):
            return True
        higher_led = is_matador(led, t) and TRUMP_ORDER[t].index(led) < TRUMP_ORDER[t].index(c) and applies
        if rules["multiMatadorRenege"]:
            return higher_led and len(trumps) == 1
        return higher_led

    if any(forced(c) for c in trumps):
        return set(trumps)
    return set(hand)


def classify(j: int, a: int, b: int, seat_a: int, seat_b: int) -> tuple:
    """Section 7.1; a codillo names its giver."""
    if j > a and j > b:
        return ("win",)
    if j == max(a, b):
        return ("puesta",)
    if a == b:
        return ("puesta-real",)
    return ("codillo", seat_a if a > b else seat_b)


def classify_defended(d: int, r: int, p: int) -> str:
    """Section 7.4."""
    if d > r and d > p:
        return "D-WIN"
    if d == max(r, p):
        return "D-PUESTA"
    if p > r and p > d:
        return "D-CODILLO-P"
    return "D-CODILLO-R"


class Ref:
    """One hand as the spec describes it, in plain strings."""

    def __init__(self, record: dict):
        self.rules = {**DEFAULTS, **record.get("rules", {})}
        self.n = record["seats"]
        d = record["dealer"]
        self.order = [(d + 1) % 4, (d + 2) % 4, (d + 3) % 4] if self.n == 4 else [(d + 1) % 3, (d + 2) % 3, d]
        self.mano = self.order[0]
        self.hands = {s: record["deal"]["hands"][s].split() for s in range(self.n)}
        self.stock = record["deal"]["stock"].split()
        self.ptr = 0
        self.discards: list[str] = []
        fav = self.rules["favorSuit"]
        self.F = None if fav == "none" else LETTER[fav]
        self.max_level = 5 if self.F else 3
        self.phase = "auction"
        self.level, self.holder = 0, None
        self.active = list(self.order)
        self.turn = self.mano
        self.jugador = None
        self.lance = None
        self.trump = None
        self.turned = None
        self.forced_entrada = False
        self.queue: list[int] = []
        self.solera = False
        self.tricks: list[dict] = []
        self.trick: list[str] = []
        self.leader = self.mano
        self.won = {s: 0 for s in self.order}
        self.jugador_cards = 0
        self.rendido = None
        self.defender = None
        self.bola = False
        self.over = None  # "annulled", "rendida", "planto", "tricks", "bola-failed", "decided"

    # -- helpers --
    def after(self, s: int) -> int:
        return self.order[(self.order.index(s) + 1) % 3]

    def left(self) -> int:
        return len(self.stock) - self.ptr

    def to_act(self) -> int | None:
        if self.over:
            return None
        if self.phase == "auction":
            return self.turn
        if self.phase in ("declare", "bola"):
            return self.jugador
        if self.phase == "contra":
            return self.after(self.jugador)
        if self.phase in ("exchange", "answer"):
            return self.queue[0]
        return self.turn

    def lance_level(self, lance: str, t: str | None) -> int:
        if self.F is None:
            return {"entrada": 1, "vuelta": 2, "solo": 3}[lance]
        if lance == "vuelta":
            return 3
        return {"entrada": 1, "solo": 4}[lance] + (t == self.F)

    def equalises(self, p: int) -> bool:
        return p == self.mano or (self.rules["auctionPriority"] == "positional"
                                  and self.order.index(p) < self.order.index(self.holder))

    def may_rindo(self, seat: int) -> bool:
        if self.phase != "play" or seat != self.jugador or self.rendido is not None or self.lance == "solo":
            return False
        if (self.lance == "vuelta" and self.solera and self.rules["vueltaSoleraAllowed"]
                and self.rules["soleraSurrender"] == "forbidden"):
            return False
        if self.jugador_cards >= 4:
            return False
        return not (self.rules["surrenderOnlyOnOwnTurn"] and self.turn != seat)

    def discard_options(self, seat: int) -> list[list[str]]:
        hand = canon(self.hands[seat])
        if seat == self.jugador and self.lance == "vuelta":
            pool = hand if self.rules["vueltaTurnedCardDiscardable"] else [c for c in hand if c != self.turned]
            sizes = range(1, min(len(pool), self.left() + 1) + 1)
        elif seat == self.jugador:
            pool, sizes = hand, range(self.rules["entradaMinDiscard"], min(9, self.left()) + 1)
        else:
            pool, sizes = hand, range(0, min(9, self.left()) + 1)
        return [list(c) for k in sizes for c in combinations(pool, k)]

    # -- legal actions --
    def legal(self) -> list[str]:
        if self.over:
            return []
        s = self.to_act()
        if self.phase == "auction":
            out = []
            if not (self.rules["espadaForzada"] == "mustOpen" and self.level == 0 and "1e" in self.hands[s]):
                out.append("paso")
            if self.level == 0:
                out.append("juego")
            elif self.holder != s and (self.equalises(s) or self.level < self.max_level):
                out.append("mas")
            return [f"{s} {a}" for a in out]
        if self.phase == "declare":
            out = []
            for t in SUITS:
                if self.lance_level("entrada", t) >= self.level:
                    out.append(f"entrada {WORD[t]}")
            if not self.forced_entrada:
                if self.lance_level("vuelta", None) >= self.level:
                    out.append("vuelta")
                out += [f"solo {WORD[t]}" for t in SUITS if self.lance_level("solo", t) >= self.level]
            return [f"{s} {a}" for a in out]
        if self.phase == "contra":
            return [f"{s} contra", f"{s} cedo"]
        if self.phase == "exchange":
            return [" ".join([str(s), "descarte", *d]) for d in self.discard_options(s)]
        if self.phase == "answer":
            return [f"{s} bien", f"{s} defiendo"]
        if self.phase == "bola":
            return [f"{s} bola", f"{s} planto"]
        # play
        cards = ref_legal_cards(self.hands[s], self.trick, self.trump, self.leader == self.mano, self.rules)
        out = [f"{s} {c}" for c in canon(cards)]
        if self.jugador is not None and self.may_rindo(self.jugador):
            out.append(f"{self.jugador} rindo")
        return out

    # -- applying a legal action --
    def apply(self, action: str) -> None:
        seat_text, word, *args = action.split()
        s = int(seat_text)
        if self.phase == "auction":
            self._voice(s, word)
        elif self.phase == "declare":
            self.lance = word
            if word == "vuelta":
                self.turned = self.stock[self.ptr]
                self.ptr += 1
                self.hands[s].append(self.turned)
                self.trump = self.turned[-1]
            else:
                self.trump = LETTER[args[0]]
            if word == "solo":
                self._after_jugador_exchange()
            else:
                self.phase, self.queue = "exchange", [s]
        elif self.phase == "contra":
            a = self.after(s)
            self.phase, self.queue = "exchange", ([s, a] if word == "contra" else [a, s])
        elif self.phase == "exchange":
            for c in args:
                self.hands[s].remove(c)
                self.discards.append(c)
            draw = len(args) - (1 if s == self.jugador and self.lance == "vuelta" else 0)
            if s == self.jugador and self.lance == "vuelta":
                self.solera = len(args) == 1
            self.hands[s] += self.stock[self.ptr:self.ptr + draw]
            self.ptr += draw
            self.queue.pop(0)
            if s == self.jugador:
                self._after_jugador_exchange()
            elif not self.queue:
                self.phase, self.turn, self.leader = "play", self.mano, self.mano
        elif self.phase == "answer":
            if word == "bien":
                self.queue.pop(0)
                if not self.queue:
                    self.over = "rendida"
            else:
                self.rendido, self.defender, self.jugador = self.jugador, s, s
                self.phase, self.queue = "play", []
        elif self.phase == "bola":
            if word == "planto":
                self.over = "planto"
            else:
                self.bola, self.phase = True, "play"
        elif word == "rindo":
            if self.lance == "vuelta":
                self.over = "rendida"
            else:
                j = self.jugador
                self.phase, self.queue = "answer", [self.after(j), self.after(self.after(j))]
        else:
            self._card(s, word)

    def _voice(self, s: int, word: str) -> None:
        if word == "paso":
            self.active.remove(s)
        elif word == "juego":
            self.level, self.holder = 1, s
        else:
            if not self.equalises(s):
                self.level += 1
            self.holder = s
        if not self.active:
            holder_1e = [p for p in self.order if "1e" in self.hands[p]]
            if self.rules["espadaForzada"] == "ifAllPass" and holder_1e:
                self.jugador, self.level, self.forced_entrada, self.phase = holder_1e[0], 1, True, "declare"
            else:
                self.over = "annulled"
            return
        if len(self.active) == 1 and self.level >= 1:
            self.jugador, self.phase = self.active[0], "declare"
            return
        i = self.order.index(s)
        for k in range(1, 4):
            p = self.order[(i + k) % 3]
            if p in self.active:
                self.turn = p
                return

    def _after_jugador_exchange(self) -> None:
        if self.rules["contraOrder"] == "rightChooses":
            self.phase = "contra"
        else:
            a = self.after(self.jugador)
            self.phase, self.queue = "exchange", [a, self.after(a)]

    def _card(self, s: int, card: str) -> None:
        self.hands[s].remove(card)
        self.trick.append(card)
        if s == self.jugador and self.rendido is None:
            self.jugador_cards += 1
        if len(self.trick) < 3:
            self.turn = self.after(s)
            return
        seq = [self.leader, self.after(self.leader), self.after(self.after(self.leader))]
        w = seq[ref_trick_winner(self.trick, self.trump)]
        self.tricks.append({"leader": self.leader, "cards": self.trick, "winner": w})
        self.won[w] += 1
        self.trick, self.leader, self.turn = [], w, w
        done = len(self.tricks)
        j = self.jugador
        if self.bola:
            if w != j:
                self.over = "bola-failed"
            elif done == 9:
                self.over = "tricks"
            return
        if self.defender is None and done == 5 and all(t["winner"] == j for t in self.tricks):
            self.phase = "bola"
            return
        if done == 9:
            self.over = "tricks"
        elif self.rules["stopWhenDecided"] and self.decided():
            self.over = "decided"

    def decided(self) -> bool:
        r = 9 - len(self.tricks)
        j = self.jugador
        a, b = [p for p in self.order if p != j]
        outcomes = set()
        for x in range(r + 1):
            for y in range(r - x + 1):
                z = r - x - y
                if self.defender is not None:
                    p = a if a != self.rendido else b
                    q = self.rendido
                    gains = {j: x, q: y, p: z}
                    outcomes.add(classify_defended(self.won[j] + gains[j], self.won[q] + gains[q], self.won[p] + gains[p]))
                else:
                    outcomes.add(classify(self.won[j] + x, self.won[a] + y, self.won[b] + z, a, b))
        return len(outcomes) == 1

    # -- the code of an illegal action (FORMAT.md section 6 precedence) --
    def code(self, action) -> str | None:
        if isinstance(action, str) and " descarte " in action and all(c in DECK for c in action.split()[2:]):
            head = action.split()[:2]
            action = " ".join([*head, *canon(action.split()[2:])])  # cards in any order
        if action in self.legal():
            return None
        if not isinstance(action, str):
            return "MALFORMED_ACTION"
        tokens = action.split()
        calls = {"paso", "juego", "mas", "entrada", "vuelta", "solo", "contra", "cedo", "descarte", "rindo", "bien",
                 "defiendo", "bola", "planto"}
        if len(tokens) < 2 or not tokens[0].isdigit() or int(tokens[0]) >= self.n:
            return "MALFORMED_ACTION"
        s, word, args = int(tokens[0]), tokens[1], tokens[2:]
        is_card = word in DECK
        if is_card and args:
            return "MALFORMED_ACTION"
        if not is_card:
            if word not in calls:
                return "MALFORMED_ACTION"
            if word in ("entrada", "solo") and (len(args) != 1 or args[0] not in LETTER):
                return "MALFORMED_ACTION"
            if word == "descarte" and (any(a not in DECK for a in args) or len(set(args)) != len(args)):
                return "MALFORMED_ACTION"
            if word not in ("entrada", "solo", "descarte") and args:
                return "MALFORMED_ACTION"
        if self.over:
            return "NOT_ALLOWED_NOW"
        to_act = self.to_act()
        out_of_turn = (word == "rindo" and s == self.jugador and self.rendido is None and self.lance is not None
                       and not self.rules["surrenderOnlyOnOwnTurn"])
        if s != to_act and not out_of_turn:
            return "NOT_YOUR_TURN"
        if is_card:
            if self.phase != "play":
                return "NOT_ALLOWED_NOW"
            if word not in self.hands[s]:
                return "CARD_NOT_IN_HAND"
            return "MUST_PLAY_TRUMP" if eff_suit(self.trick[0], self.trump) == "T" else "MUST_FOLLOW_SUIT"
        if word == "descarte" and self.phase == "exchange" and any(c not in self.hands[s] for c in args):
            return "CARD_NOT_IN_HAND"
        return "NOT_ALLOWED_NOW"


# ---- playing ------------------------------------------------------------------------------------------


def kind(action: str) -> str:
    word = action.split()[1]
    return "card" if word[0].isdigit() else word


def pick(rng: random.Random, legal: list[str]) -> str:
    """A kind first (uniformly; a surrender rarely), then an action of that kind."""
    kinds = sorted({kind(a) for a in legal})
    weights = [0.15 if k == "rindo" else 1 for k in kinds]
    chosen = rng.choices(kinds, weights)[0]
    return rng.choice([a for a in legal if kind(a) == chosen])


def new_hand(rng: random.Random, seats: int, rules: dict) -> dict:
    dealer = rng.randrange(seats)
    deal = api.deal({"game": "tresillo", "seats": seats, "dealer": dealer, "seed": f"tresillo-playout-{rng.random()}"})["deal"]
    record = {"game": "tresillo", "seats": seats, "dealer": dealer, "rules": dict(rules), "deal": deal, "actions": []}
    table = rng.choice(TABLES)
    if table is not None:
        record["table"] = table
    return record


def ref_of(record: dict, upto: int) -> Ref:
    ref = Ref(record)
    for action in record["actions"][:upto]:
        ref.apply(action)
    return ref


def accounted(ref: Ref) -> list[str]:
    """Every card, where the reference says it is: hands, tricks, discards, the stock not drawn."""
    cards = [c for h in ref.hands.values() for c in h]
    cards += [c for t in ref.tricks for c in t["cards"]] + ref.trick + ref.discards + ref.stock[ref.ptr:]
    return cards


def check_step(record: dict, result: dict, ref: Ref) -> None:
    assert result["valid"], result.get("violation")
    done = [t for t in result["tricks"] if "winner" in t]
    assert [(t["leader"], t["cards"], t["winner"]) for t in done] == [(t["leader"], t["cards"], t["winner"]) for t in ref.tricks]
    for t in done:  # the winner by the rank tables, independently of the reference's bookkeeping
        seq = [t["leader"], ref.after(t["leader"]), ref.after(ref.after(t["leader"]))]
        assert t["winner"] == seq[ref_trick_winner(t["cards"], ref.trump)]
    in_progress = [t["cards"] for t in result["tricks"] if "winner" not in t and t["cards"]]
    assert in_progress == ([ref.trick] if ref.trick else [])
    assert sorted(accounted(ref)) == sorted(DECK)
    if result["finished"]:
        assert ref.over is not None, "the engine ended a hand the reference goes on with"
        assert "next" not in result
        return
    assert ref.over is None, f"the reference ended the hand ({ref.over}), the engine goes on"
    legal = result["next"]["legal"]
    assert legal, "no legal action in an unfinished hand"
    assert len(legal) == len(set(legal)), "an action listed twice"
    assert result["next"]["seat"] == ref.to_act()
    assert set(legal) == set(ref.legal()), (set(legal) ^ set(ref.legal()))
    for a in legal:
        assert int(a.split()[0]) == ref.to_act() or a.endswith(" rindo"), a
        if record["seats"] == 4:
            assert int(a.split()[0]) != record["dealer"], "the alcalde never acts"


def check_end(record: dict, result: dict, ref: Ref) -> None:
    assert result["finished"] and ref.over
    seats = record["seats"]
    net, table = result["net"], result["table"]
    assert len(net) == seats and all(v % 5 == 0 for v in net)
    before = (record.get("table") or {}).get("plate", 0)
    assert sum(net) + table["plate"] - before == 0, (net, before, table)
    assert table["plateHolds"] in ("none", "primera", "reservada")
    if ref.over == "annulled":
        assert net == [-5 if s == record["dealer"] else 0 for s in range(seats)]
    if ref.over == "decided":
        assert len(ref.tricks) < 9


def play_hand(rng: random.Random, record: dict) -> tuple[dict, Ref]:
    """Play a random legal hand to its end, checking every step; return the final result."""
    ref = Ref(record)
    while True:
        result = api.validate(record)
        check_step(record, result, ref)
        if result["finished"]:
            return result, ref
        action = pick(rng, result["next"]["legal"])
        record["actions"].append(action)
        ref.apply(action)


def substitutions(rng: random.Random, ref: Ref) -> list[tuple[str, str]]:
    """Illegal actions for the state of ``ref`` (not over), each with the code it must get."""
    out: list[tuple[str, str]] = []
    s = ref.to_act()
    legal = ref.legal()
    mine = [a for a in legal if int(a.split()[0]) == s and not a.endswith(" rindo")]
    not_held = [c for c in DECK if c not in ref.hands[s]]
    if ref.phase == "play":
        out.append((f"{s} {rng.choice(not_held)}", "CARD_NOT_IN_HAND"))
        allowed = {a.split()[1] for a in mine}
        refused = sorted(set(ref.hands[s]) - allowed)
        if refused:
            code = "MUST_PLAY_TRUMP" if eff_suit(ref.trick[0], ref.trump) == "T" else "MUST_FOLLOW_SUIT"
            out.append((f"{s} {rng.choice(refused)}", code))
    else:
        out.append((f"{s} {rng.choice(DECK)}", "NOT_ALLOWED_NOW"))  # a card outside the play
    # A call the phase does not accept, by the seat to act.
    kinds = {kind(a) for a in mine}
    calls = [c for c in ("paso", "juego", "mas", "vuelta", "contra", "cedo", "bien", "defiendo", "bola", "planto",
                         "entrada copas", "solo oros", "descarte") if c.split()[0] not in kinds]
    out.append((f"{s} {rng.choice(calls)}", "NOT_ALLOWED_NOW"))
    # The seat to act's own action, by another seat (the alcalde included).
    others = [p for p in range(ref.n) if p != s]
    action = rng.choice(mine)
    out.append((f"{rng.choice(others)} {action.split(' ', 1)[1]}", "NOT_YOUR_TURN"))
    malformed = ["x y", "", "1", f"{ref.n} paso", "-1 paso", "1 8o", "1 9e", "1 13c", "1 envite", "1 1o 2o",
                 "1 juego oros", "1 entrada", "1 entrada oro", "1 descarte 8c", "1 descarte 3c 3c", "uno paso", 7, None]
    out.append((rng.choice(malformed), "MALFORMED_ACTION"))
    return out


@pytest.mark.parametrize("rules_name", list(OPTION_SETS))
@pytest.mark.parametrize("seats", [3, 4])
def test_random_playouts(seats: int, rules_name: str):
    rules = OPTION_SETS[rules_name]
    rng = random.Random(seed(f"tresillo-{seats}-{rules_name}"))
    ends: dict[str, int] = {}
    caught = 0
    for i in range(HANDS):
        record = new_hand(rng, seats, rules)
        result, ref = play_hand(rng, record)
        check_end(record, result, ref)
        ends[ref.over] = ends.get(ref.over, 0) + 1
        actions = record["actions"]

        # Illegal actions substituted into the legal record are caught at exactly their index.
        for k in rng.sample(range(len(actions)), min(3, len(actions))):
            ref_k = ref_of(record, k)
            for bad, code in substitutions(rng, ref_k):
                spoiled = {**record, "actions": [*actions[:k], bad, *actions[k + 1:]]}
                got = api.validate(spoiled)
                assert not got["valid"], (k, bad)
                assert (got["violation"]["action"], got["violation"]["code"]) == (k, code), (k, bad, got["violation"])
                assert got["finished"] is False and "net" not in got
                caught += 1
        # After the end, any action is too late, whoever makes it; a malformed one is still malformed.
        late = rng.choice([f"{s} {c}" for s in range(seats) for c in ("paso", "bola", "rindo", DECK[i % len(DECK)])])
        assert api.validate({**record, "actions": [*actions, late]})["violation"]["code"] == "NOT_ALLOWED_NOW"
        assert api.validate({**record, "actions": [*actions, "0 envido"]})["violation"]["code"] == "MALFORMED_ACTION"
    assert caught >= HANDS * 3
    assert sum(ends.values()) == HANDS


def test_playouts_reach_every_ending():
    """Over many hands the random play reaches trick play, surrender, bola decisions and annulments."""
    rng = random.Random("tresillo-endings")
    ends = set()
    for i in range(30):
        record = new_hand(rng, 4 - i % 2, {})
        result, ref = play_hand(rng, record)
        check_end(record, result, ref)
        ends.add(ref.over)
    assert {"annulled", "decided"} <= ends
    assert ends & {"rendida", "tricks", "planto", "bola-failed"}


TRIED_CALLS = ("paso", "juego", "mas", "entrada oros", "vuelta", "solo copas", "contra", "cedo", "descarte", "rindo", "bien",
               "defiendo", "bola", "planto")


@pytest.mark.parametrize("rules_name", list(OPTION_SETS))
def test_a_refusal_listing_what_a_seat_may_say_lists_exactly_its_legal_calls(rules_name: str):
    """Section 0 (Codes): a refusal says why, and where it names what the seat may say instead
    ("seat 2 may say paso or mas", "say mas or paso", "open with juego, or paso") it names exactly
    the calls of that seat's legal list: at every step of random hands, a card the seat to act
    holds, a card of the deck and every call of the game are tried, and each list a refusal names
    is the seat's legal calls."""
    rules = OPTION_SETS[rules_name]
    rng = random.Random(seed(f"tresillo-listed-calls-{rules_name}"))
    checked = 0
    for i in range(12 * SOAK):
        record = new_hand(rng, 3 + i % 2, rules)
        while not (result := api.validate(record, events=False))["finished"]:
            s = result["next"]["seat"]
            hand = api.legal_actions(record, s)["view"]["hand"].split()
            tried = [f"{s} {a}" for a in (*TRIED_CALLS, rng.choice(hand), rng.choice(DECK))]
            checked += check_listed_calls(record, result, tried)
            record["actions"].append(pick(rng, result["next"]["legal"]))
    assert checked >= 100 * SOAK


def test_reference_trick_winner_matches_resolve_trick():
    """Random tricks under each trump: the engine's winner is the reference's."""
    rng = random.Random("tresillo-tricks")
    for _ in range(2000):
        cards = rng.sample(DECK, rng.randrange(1, 4))
        trump = rng.choice(["oros", "copas", "espadas", "bastos"])
        out = api.resolve_trick({"game": "tresillo", "cards": " ".join(cards), "contract": {"trump": trump}})
        assert out["winnerIndex"] == ref_trick_winner(cards, LETTER[trump]), (cards, trump)
