"""Tresillo's house rules: the ``Options`` of ``engine.tresillo`` (spec section 9 and Appendix A),
in a module of their own so that the play (``engine.tresillo``) and the money
(``engine.tresillo_settle``) both import them at run time without importing each other."""

from __future__ import annotations

from dataclasses import dataclass

from engine.options import option

SUITS = ("oros", "copas", "espadas", "bastos")


@dataclass(frozen=True, kw_only=True)
class Options:
    """Tresillo's house rules (spec section 9 and Appendix A). API names are lowerCamelCase."""

    favor_suit: str = option("bastos", (*SUITS, "none"), "A7", "the palo de favor; none: no favour suit, a 3-level ladder")
    vuelta_solera_allowed: bool = option(True, (True, False), "A9",
                                         "a vuelta with one discard scores as a solo (20); false: as a vuelta (2)")
    solera_surrender: str = option("asVuelta", ("asVuelta", "asSolo", "forbidden"), "A9",
                                   "a surrendered vuelta solera pays the vuelta's 5, the solo's 20, or cannot be surrendered")
    reveal_discard_count: bool = option(True, (True, False), "4", "the number of cards each player exchanges is public")
    vuelta_favor: bool = option(True, (True, False), "A8", "a vuelta turning up the favour suit is played a favor")
    vuelta_turned_card_discardable: bool = option(False, (True, False), "A11", "the turned vuelta card may be discarded")
    entrada_min_discard: int = option(0, (0, 1), "A12", "the fewest cards the Jugador of an entrada must exchange")
    auction_priority: str = option("manoOnly", ("manoOnly", "positional"), "A4",
                                   "manoOnly: only the mano's más equals the bid; positional: any earlier speaker's does")
    espada_forzada: str = option("off", ("off", "mustOpen", "ifAllPass"), "A14",
                                 "mustOpen: the holder of 1e may not pass while nobody has bid; ifAllPass: if all pass, "
                                 "he must play an entrada (annulled if 1e sleeps in the baceta)")
    contra_order: str = option("rightChooses", ("rightChooses", "turnOrder"), "A13",
                               "rightChooses: the opponent after the Jugador says contra or cedo; turnOrder: he exchanges first")
    reveal_remainder: bool = option(False, (True, False), "4", "the cards left in the baceta are shown after the exchange")
    matador_forcing: str = option("handMano", ("handMano", "trickLeader"), "A1",
                                  "handMano: only a higher matador led by the hand's mano forces a lone matador; "
                                  "trickLeader: led by anyone")
    multi_matador_renege: bool = option(True, (True, False), "A2",
                                        "true: a matador is forced only when it is the only trump held; false: a "
                                        "higher matador led forces one of several matadores held (no other trump)")
    surrender_only_on_own_turn: bool = option(False, (True, False), "A31", "rindo only at the Jugador's own turn")
    defence_order: str = option("afterJugador", ("afterJugador",), "A32",
                                "the opponents answer a surrender in turn order starting after the Jugador")
    defender_takes_plate: bool = option(False, (True, False), "A15", "a winning defender also takes the plate")
    defender_codillo_also_puesta: bool = option(False, (True, False), "A17",
                                                "a defender who gives codillo to the mano pobre also makes a puesta")
    bola_failure: str = option("payBola", ("payBola", "none"), "A18",
                               "payBola: a failed bola pays 100 (x2 in favour) to each other player; none: "
                               "nothing more (still a win with primeras)")
    primeras_with_bola: bool = option(True, (True, False), "A19", "a bola also collects the primeras")
    primeras_contra_rule: str = option("narrow", ("narrow", "general"), "A20",
                                       "the primeras against the Jugador in a puesta: narrow: the contra won tricks 1 "
                                       "to k (k >= 5) and the Jugador every trick after; general: the contra won tricks 1-5")
    contraestuche_mode: str = option("symmetric", ("symmetric", "flat"), "A23",
                                     "symmetric: 3 + the consecutive missing trumps below the basto; flat: always 3")
    estuche_cap: int = option(5, (5, 9, 12), "8.2",
                              "the most estuches or contraestuches counted, unless bola is made (12: no cap)")
    favor_rounding: str = option("doubleOfRounded", ("doubleOfRounded", "roundedDouble"), "A21",
                                 "doubleOfRounded: 2 x roundUp5(x); roundedDouble: roundUp5(2x)")
    solo_codillo_no_puesta: str = option("reservedOnly", ("reservedOnly", "always", "off"), "A24",
                                         "when a solo lost by codillo makes no puesta: reservedOnly: while the plate "
                                         "holds a reserved puesta; always; off: never")
    solo_codillo_pays_cond: bool = option(True, (True, False), "A24", "a solo lost by codillo still pays its condiciones")
    enchilada: int = option(0, (0, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100), "A28",
                            "the enchilada the dealer puts in at a deal whose plate holds no puesta (0: none)")
    enchilada_payer: str = option("dealer", ("dealer",), "A28", "who puts the enchilada in")
    gemelas_on_cartulina: str = option("separate", ("separate", "joint"), "A29",
                                       "puestas gemelas written on the cartulina as two entries or one")
    stop_when_decided: bool = option(True, (True, False), "A33", "the hand ends as soon as its result is certain")
    surrendered_vuelta_rounding: str = option("asFavorRounding", ("asFavorRounding", "doubleOfRounded"), "A37",
                                              "a surrendered vuelta's 2 a favor: asFavorRounding: as favorRounding says "
                                              "(roundedDouble: roundUp5(4) = 5); doubleOfRounded: the seed's rounded 5, "
                                              "doubled (10), whatever favorRounding")


def solera_unsurrenderable(options: Options, solera: bool) -> bool:
    """A9: a vuelta solera cannot be surrendered under ``soleraSurrender: forbidden``, but only
    while it counts as one (``vueltaSoleraAllowed``): with that option off a one-card vuelta is a
    plain vuelta everywhere, and every vuelta may be surrendered (7.4)."""
    return solera and options.vuelta_solera_allowed and options.solera_surrender == "forbidden"
