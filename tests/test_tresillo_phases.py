"""What each phase of a Tresillo hand reports and refuses, through ``engine.api``: the events of
the auction (3.3), the declaration (3.4), the exchange (4), the surrender (7.4) and the bola (7.2),
each with its kind, seat and value (the ``Event`` message of the API), and the edges of the rules
of those phases that the other tests leave open.

Dealer 0 at 4 seats unless stated: mano 1, medio 2, postre 3, seat 0 is the alcalde. Favour suit
bastos (the default) unless stated.
"""

from __future__ import annotations

import pytest
from results_support import ok
from test_tresillo_decisions import cut, hand
from tresillo_support import STD, more, rec

from engine import api, shuffle
from engine.cards import DECK_40
from engine.errors import InvalidInput


def events(result: dict) -> list[tuple]:
    """Every event of a result as (action, kind, seat, value), the fields an event may leave out as None."""
    return [(e["action"], e["kind"], e.get("seat"), e.get("value")) for e in result["events"]]


# ---- 3.3: the auction's events ---------------------------------------------------------------------


def test_3_3_auction_events_name_each_voice_its_seat_and_the_level_after_it():
    """3.3 (TR-1's auction): each voice is an event of its kind, with the seat that said it and the
    level after it (the mano's más equals: the level stays); the last paso is followed by the
    ``jugador`` event naming the winner and the level he won at."""
    result = ok(rec(STD, ["1 juego", "2 mas", "3 paso", "1 mas", "2 mas", "1 paso"]))
    assert events(result) == [(0, "juego", 1, 1), (1, "mas", 2, 2), (2, "paso", 3, 2), (3, "mas", 1, 2),
                              (4, "mas", 2, 3), (5, "paso", 1, 3), (5, "jugador", 2, 3)]
    assert [e["text"] for e in result["events"]][3:] == [
        "seat 1: más (level 2, equalling)", "seat 2: más (level 3)", "seat 1 passes",
        "seat 2 wins the auction at level 3 and is the Jugador"]


def test_3_3_a14_all_pass_events_annulled_or_the_espada_forced():
    """3.3: three passes annul the hand, one ``annulled`` event after the third; A14
    (``espadaForzada: ifAllPass``): instead the holder of the espada is named by an
    ``espadaForzada`` event and must declare an entrada, at level 1."""
    voices = ["1 paso", "2 paso", "3 paso"]
    annulled = ok(rec(STD, voices))
    assert events(annulled) == [(0, "paso", 1, 0), (1, "paso", 2, 0), (2, "paso", 3, 0), (2, "annulled", None, None)]
    assert annulled["events"][-1]["text"] == "everybody passed: the hand is annulled and the deal passes"
    forced = ok(rec(STD, voices, rules={"espadaForzada": "ifAllPass"}))
    assert events(forced)[3:] == [(2, "espadaForzada", 1, None)]
    assert forced["events"][-1]["text"] == "everybody passed: seat 1 holds the espada and must play an entrada"
    assert (forced["phase"], forced["level"], forced["jugador"], forced["next"]["seat"]) == ("declare", 1, 1, 1)


# ---- 3.4, 4: the declaration's and the exchange's events -------------------------------------------


def test_3_4_4_vuelta_and_exchange_events_with_a_cedo():
    """3.4: a vuelta's event names the Jugador and the card turned up; 4: each descarte is an event
    of the seat with the number of cards discarded (the vuelta's Jugador draws one fewer), the
    seat asked first cedes (``cedo``, his seat), the other opponent exchanges before him, and the
    last exchange is followed by the ``play`` event naming the mano, who leads."""
    record, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o 6o"}, contra="cedo")
    assert record["actions"][3:start] == ["1 vuelta", "1 descarte 5o 6o", "2 cedo", "3 descarte", "2 descarte"]
    result = ok(cut(record, start))
    assert events(result)[4:] == [(3, "vuelta", 1, None), (4, "descarte", 1, 2), (5, "cedo", 2, None),
                                  (6, "descarte", 3, 0), (7, "descarte", 2, 0), (7, "play", 1, None)]
    assert [e.get("card") for e in result["events"][4:]] == ["4b", None, None, None, None, None]
    assert result["events"][5]["text"] == "seat 1 discards 2 and draws 1"


def test_3_4_4_solo_and_contra_events():
    """3.4: a solo's event names the Jugador (no card turned, no exchange of his); 4: the opponent
    after him goes to the contra (``contra``, his seat) and exchanges first, then the other."""
    record, start = hand(([1, 2], {}), jugador=2, lance="solo copas", discards={1: "5o"})
    assert record["actions"][3:start] == ["2 solo copas", "3 contra", "3 descarte", "1 descarte 5o"]
    result = ok(cut(record, start))
    assert events(result)[4:] == [(3, "solo", 2, None), (4, "contra", 3, None), (5, "descarte", 3, 0),
                                  (6, "descarte", 1, 1), (6, "play", 1, None)]
    assert "card" not in result["events"][4]


def test_3_4_the_declarations_text_names_the_lance_and_says_a_favor_only_in_the_favour_suit():
    """3.4 / 3.1: a declaration's event says the lance and its suit (a vuelta the card turned up
    and the trumps it makes), and adds "a favor" when the trumps are the favour suit (bastos by
    default) and not otherwise."""
    record = rec(STD, ["1 juego", "2 paso", "3 paso"], stock_top="4b")
    texts = {lance: ok(more(record, f"1 {lance}"))["events"][-1]["text"] for lance in ("entrada oros", "solo bastos", "vuelta")}
    assert texts == {"entrada oros": "seat 1 plays entrada in oros", "solo bastos": "seat 1 plays solo in bastos a favor",
                     "vuelta": "seat 1 plays a vuelta: turns up 4b, trumps are bastos a favor"}
    copas = ok(more(rec(STD, ["1 juego", "2 paso", "3 paso"], stock_top="4c"), "1 vuelta"))
    assert copas["events"][-1]["text"] == "seat 1 plays a vuelta: turns up 4c, trumps are copas"


# ---- 7.4: the surrender's events --------------------------------------------------------------------


def test_7_4_surrender_events_name_the_rendido_and_each_answer():
    """7.4: the Jugador's ``rindo`` names him; each ``bien`` names the opponent who accepts, the
    second ending the hand; a ``defiendo`` names the defender. A vuelta rendida is one event."""
    record, start = hand(([1, 2], {}))
    surrendered = [*record["actions"][:start], "1 rindo"]
    accepted = ok({**record, "actions": [*surrendered, "2 bien", "3 bien"]})
    assert events(accepted)[-3:] == [(start, "rindo", 1, None), (start + 1, "bien", 2, None), (start + 2, "bien", 3, None)]
    assert accepted["finished"] is True
    defended = ok({**record, "actions": [*surrendered, "2 defiendo"]})
    assert events(defended)[-2:] == [(start, "rindo", 1, None), (start + 1, "defiendo", 2, None)]
    vuelta, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o 6o"})
    result = ok({**vuelta, "actions": [*vuelta["actions"][:start], "1 rindo"]})
    assert events(result)[-1] == (start, "rindo", 1, None) and result["finished"] is True


# ---- 2.1, 2.3: the deal -------------------------------------------------------------------------------


def test_2_1_2_3_nine_cards_to_each_active_seat_none_to_the_alcalde():
    """2.1 / 2.3: each active seat is dealt nine cards and the baceta holds the other thirteen; at
    four seats the dealer is the alcalde and is dealt nothing. A deal of the 40 cards otherwise
    spread is refused (``WRONG_HAND_SIZE``) at the hand that is wrong, the alcalde's included, and
    so is a baceta short of thirteen; at three seats the dealer is the postre and holds nine like
    the others."""
    def refused(record: dict) -> tuple[str, str, str]:
        with pytest.raises(InvalidInput) as err:
            api.validate(record)
        return err.value.code, err.value.field, err.value.message

    def moved(hands: list[str], seat: int, top: int) -> dict:
        """The record of ``hands`` with ``top`` cards of the stock moved to seat ``seat`` (or, if
        negative, that many of its cards moved to the stock)."""
        record = rec(hands)
        held, stock = record["deal"]["hands"][seat].split(), record["deal"]["stock"].split()
        if top >= 0:
            held, stock = held + stock[:top], stock[top:]
        else:
            held, stock = held[:top], stock + held[top:]
        record["deal"]["hands"][seat], record["deal"]["stock"] = " ".join(held), " ".join(stock)
        return record

    assert refused(moved(STD, 0, 1)) == ("WRONG_HAND_SIZE", "deal.hands[0]",
                                         'seat 0 deals at this four-seat table and sits out as the alcalde: his hand must be ""')
    assert refused(moved(STD, 2, -1)) == ("WRONG_HAND_SIZE", "deal.hands[2]",
                                          "deal.hands[2] has 8 cards; Tresillo deals 9 to each active seat")
    assert refused(moved(STD, 3, 1))[:2] == ("WRONG_HAND_SIZE", "deal.hands[3]")
    three = ["1e 7o 1b 1o 12o 11o 3c 4e 5b", "2o 3o 4o 12c 11c 10c 12e 11e 12b", "5o 6o 1c 2c 10e 7e 2b 3b 11b"]
    assert ok(rec(three))["next"]["seat"] == 1
    assert refused(moved(three, 0, -1))[:2] == ("WRONG_HAND_SIZE", "deal.hands[0]")  # the dealer (postre) too
    short = rec(STD)
    short["deal"]["stock"] = " ".join(short["deal"]["stock"].split()[1:])  # a card of the deck dealt to nobody
    assert refused(short) == ("WRONG_HAND_SIZE", "deal.stock", "deal.stock has 12 cards; the baceta holds the 13 cards left")


# ---- A9: the vuelta solera as the hand reports it ---------------------------------------------------


def test_a09_a_vuelta_solera_is_reported_from_the_jugadors_exchange_on():
    """A9: a vuelta whose Jugador discards exactly one card is a vuelta solera; the hand in play
    says so (``solera: true`` and the descarte's event) from his exchange on, and a vuelta with a
    larger exchange reports no solera."""
    record = rec(STD, ["1 juego", "2 paso", "3 paso", "1 vuelta"], stock_top="4b")
    solera = ok(more(record, "1 descarte 5b", "2 contra"))
    assert (solera["phase"], solera["lance"], solera["solera"]) == ("exchange", "vuelta", True)
    assert [e["text"] for e in solera["events"] if e["kind"] == "descarte"] == ["seat 1 discards 1 and draws 0 (vuelta solera)"]
    plain = ok(more(record, "1 descarte 5b 3c", "2 contra"))
    assert (plain["phase"], plain["lance"]) == ("exchange", "vuelta") and "solera" not in plain
    assert [e["text"] for e in plain["events"] if e["kind"] == "descarte"] == ["seat 1 discards 2 and draws 1"]


def test_3_4_only_a_vuelta_turns_a_card_up():
    """3.4: a vuelta turns up the top card of the baceta and the hand reports it (``turnUp``); an
    entrada or a solo names its trump and turns nothing up, so no ``turnUp`` is reported, in the
    declaration, the exchange or the play."""
    record = rec(STD, ["1 juego", "2 paso", "3 paso"], stock_top="4b")
    assert "turnUp" not in ok(record)
    for lance in ("entrada oros", "solo copas"):
        declared = ok(more(record, f"1 {lance}"))
        assert declared["lance"] == lance.split()[0] and "turnUp" not in declared, lance
    assert "turnUp" not in ok(more(record, "1 entrada oros", "1 descarte", "2 contra", "2 descarte", "3 descarte"))
    assert ok(more(record, "1 vuelta"))["turnUp"] == "4b"


# ---- 2.3: the deal from a seed ------------------------------------------------------------------------


@pytest.mark.parametrize("seats, dealer", [(4, 2), (3, 1)])
def test_2_3_seeded_deal_packets_of_three_to_mano_medio_postre_three_rounds(seats, dealer):
    """2.3 (docs/deal.md): a deal from a seed gives packets of three cards from the top of the
    shuffled pack, three rounds, to the mano, the medio and the postre in that order (at four
    seats the dealer, the alcalde, is skipped; at three he is the postre); the baceta is the 13
    cards left, in pack order."""
    seed = f"2.3-{seats}-{dealer}"
    out = api.deal({"game": "tresillo", "seats": seats, "dealer": dealer, "seed": seed})
    pack = [str(c) for c in shuffle.shuffle(DECK_40.cards, seed)]
    order = [(dealer + k) % seats for k in (1, 2, 3)]
    expected = ["" for _ in range(seats)]
    for place, seat in enumerate(order):
        expected[seat] = " ".join(pack[9 * r + 3 * place + i] for r in range(3) for i in range(3))
    assert out["deal"]["hands"] == expected
    assert out["deal"]["stock"] == " ".join(pack[27:])


# ---- 4: the contra's and the cedo's texts --------------------------------------------------------------


def test_4_contra_and_cedo_events_say_who_exchanges_first():
    """4: the opponent after the Jugador who goes to the contra exchanges first and the event says
    so; one who cedes names the other opponent, who exchanges first. The last exchange is followed
    by the ``play`` event naming the mano, who leads."""
    record, start = hand(([1, 2], {}), jugador=2, lance="solo copas", discards={1: "5o"})
    contra = ok(cut(record, start))["events"][5]
    assert (contra["kind"], contra["seat"], contra["text"]) == ("contra", 3, "seat 3 goes to the contra and exchanges first")
    record, start = hand(([1, 2], {1: "5o"}), lance="vuelta", stock_top="4b", discards={1: "5o 6o"}, contra="cedo")
    cedo = ok(cut(record, start))["events"][6]
    assert (cedo["kind"], cedo["seat"], cedo["text"]) == ("cedo", 2, "seat 2 cedes: seat 3 exchanges first")
    play = ok(cut(record, start))["events"][-1]
    assert (play["kind"], play["seat"], play["text"]) == ("play", 1, "the exchange is over; seat 1, the mano, leads")


# ---- 7.2: the bola decision's events -----------------------------------------------------------------


def test_7_2_bola_and_planto_events_name_the_jugador_and_what_he_chose():
    """7.2: the Jugador who wins the first five tricks is told so (``primeras``) and says ``bola``
    (he plays on for all nine) or ``planto`` (the hand ends, won with primeras), each an event of
    his seat that says which; a bola ends in ``bolaMade`` after the ninth trick or ``bolaFailed``
    at the first trick he loses, naming it."""
    record, start = hand(([1] * 9, {}))
    after5 = start + 15
    planto = ok({**record, "actions": [*record["actions"][:after5], "1 planto"]})
    assert events(planto)[-1] == (after5, "planto", 1, None)
    assert planto["events"][-1]["text"] == "seat 1 stops after the first five tricks: a win with primeras"
    bola = ok({**record, "actions": [*record["actions"][:after5], "1 bola"]})
    assert events(bola)[-1] == (after5, "bola", 1, None)
    assert bola["events"][-1]["text"] == "seat 1 goes on for the bola: all nine tricks"
    primeras = ok(cut(record, after5))["events"][-1]
    assert (primeras["kind"], primeras["seat"], primeras["text"]) == (
        "primeras", 1, "seat 1 has won the first five tricks: bola (go on for all nine) or planto (stop)")
    made = ok({**record, "actions": [*record["actions"][:after5], "1 bola", *record["actions"][after5:]]})
    assert [(e["kind"], e.get("seat"), e["text"]) for e in made["events"] if e["kind"].startswith("bola")][-1] == (
        "bolaMade", 1, "seat 1 takes all nine tricks: bola")
    record, start = hand(([1, 1, 1, 1, 1, 2, 1, 1, 1], {}))
    failed = ok({**record, "actions": [*record["actions"][:after5], "1 bola", *record["actions"][after5:after5 + 3]]})
    assert (failed["events"][-1]["kind"], failed["events"][-1]["seat"], failed["events"][-1]["text"]) == (
        "bolaFailed", 1, "seat 1 loses trick 6: the bola fails")
