"""Revesino's house rules: the ``Options`` of ``engine.revesino`` (ambiguities R1-R38 of
``rules/revesino.md``), in a module of their own so that the play (``engine.revesino``) and the
money (``engine.revesino_money``) both import them at run time without importing each other."""

from __future__ import annotations

from dataclasses import dataclass

from engine.options import option


@dataclass(frozen=True, kw_only=True)
class Options:
    """Revesino's house rules (ambiguities R1-R38). The spec's snake_case option names map one
    to one to these fields (``allow_revokes`` is the API option ``allowRevokes``)."""

    # What the hand winner collects (A6.7, R1, R2, R3, R21).
    hand_payout: str = option("partyFromMost", ("partyFromMost", "partyFromEach", "fixedFromEach", "none"), "R1",
                              "partyFromMost: the player with most points pays the party to the hand winner; partyFromEach: "
                              "each other player pays it; fixedFromEach: each other player pays fixedPayout; none")
    party_bonus: int = option(4, (4, 0), "R1", "added to the points of the four cards out of play to make the party")
    fixed_payout: int = option(4, tuple(range(1, 51)), "R1", "what each other player pays the winner under fixedFromEach")
    tiebreak_order: str = option("playOrder", ("playOrder", "dealerThenLeft"), "R3",
                                 "the seat order of the last tie-breaks, the hand winner the first of the tied seats and the "
                                 "party's payer the last: dealer, S1, S2, S3; or dealer, S3, S2, S1")
    napolitana_pays_party_for_all: bool = option(True, (True, False), "R21",
                                                 "a failed napolitana alone pays the hand-winner payout")
    # The fondo (A6.1, R4, R5, R35, R38).
    stake: int = option(2, tuple(range(1, 11)), "R38", "each player's re-ante into the fondo")
    dealer_fee: int = option(1, tuple(range(0, 6)), "R38", "the dealer's fee into the fondo at every deal")
    renew_below: int = option(9, tuple(range(1, 61)), "R38", "the fondo is renewed when it holds less than this")
    dealer_initial_stake_includes_fee: bool = option(True, (True, False), "R4",
                                                     "true: the dealer's 3 is the re-ante 2 plus the fee 1")
    renew_trigger: str = option("belowStake", ("belowStake", "empty"), "R5", "renew below renewBelow, or only when empty")
    renew_amount: str = option("fullStake", ("fullStake", "topUp"), "R5",
                               "fullStake: every player pays the stake; topUp: the players top the fondo up to renewBelow")
    renew_timing: str = option("startOfDeal", ("startOfDeal", "immediately"), "R5",
                               "renew at the start of the next deal, or as soon as the fondo empties in play")
    # The exchange (R6).
    peek_before_exchange: bool = option(False, (False, True), "R6", "a non-dealer sees his undealt card before choosing")
    # Ace and quínola payments (A6.2, A6.3, R9-R14).
    gergi: bool = option(False, (False, True), "R9", "a led ace or quínola pays as if forced")
    quinola_penalty_trigger: str = option("forced", ("forced", "winsTrick"), "R10",
                                          "the quínola's holder doubles the fondo when it is forced, or when it takes a trick")
    double_ace_placed: str = option("oros", ("oros", "copas"), "R11", "the ace that pays 2 when placed")
    double_ace_forced: str = option("copas", ("copas", "oros"), "R11", "the ace that pays 2 when forced")
    quinola_placed_winner_pays: int = option(2, (2, 3), "R12", "what the trick winner pays the player who placed the quínola")
    double_applies_to: str = option("sidePayments", ("sidePayments", "all"), "R13",
                                    "what the first and last tricks double: the side payments, or also the napolitana's 2/1/1")
    quinola_forced_pays_forcer: bool = option(False, (False, True), "R14",
                                              "the forcer of a quínola also collects 4 from its holder and 1 from each other player")
    # The revesino (A6.5, R16-R19, R33).
    renuncio_penalty_refunded: bool = option(False, (False, True), "R16", "an announced revesino also refunds revoke penalties")
    play_out_after_cut: bool = option(False, (False, True), "R17", "play trick 11 after a cut and name a hand winner")
    unannounced_sweep: str = option("winsHand", ("winsHand", "scoredNormally"), "R18",
                                    "a player who takes all eleven tricks without announcing wins the hand, or is scored")
    revesino_quinola_bonus: str = option("extraFondo", ("extraFondo", "sidePayments", "none"), "R19",
                                         "what the announcer's own quínola adds to a won revesino: extraFondo: an amount "
                                         "equal to the fondo, from the other three in equal shares; sidePayments: 1 from "
                                         "each other player; none: nothing")
    announcer_quinola: str = option("anyPlay", ("anyPlay", "forced"), "R19",
                                    "which play of the quínola by the announcer in tricks 1-9 makes it his own: anyPlay: "
                                    "led, followed or forced; forced: only one forced from him, the rulebook's quínola "
                                    "jugada (a led one too under gergi)")
    cut_quinola_base: str = option("sameBase", ("sameBase", "sequential"), "R19",
                                   "the announcer's quínola on a cut revesino: the same base as the doubling (3F) or after it (4F)")
    revesino_win_each: int = option(16, tuple(range(1, 101)), "R33", "what each other player pays a won revesino")
    revesino_cut_to_cutter: int = option(64, tuple(range(1, 201)), "R33", "what the announcer pays the player who cuts")
    opposite_double: bool = option(False, (False, True), "R34", "everything is paid double to and by the player opposite")
    # The napolitana (A4.1, A6.6, R20-R27, R36, R37).
    napolitana_declaration: str = option("explicit", ("explicit", "implicit"), "R24",
                                         "explicit: the call napolitana; implicit: the first renounce declares it")
    implicit_napolitana_refund: str = option("none", ("none", "refunded"), "R24",
                                             "under napolitanaDeclaration implicit, an ace or the quínola forced from the napolitana "
                                             "before his first renounce: none: stays paid; refunded: its payments are returned to "
                                             "their payers at that renounce")
    napolitana_fail_last_two_only: bool = option(False, (False, True), "R20",
                                                 "the napolitana fails only by winning trick 10 or 11")
    napolitana_refund_factor: int = option(2, (2, 1), "R22", "a failed napolitana refunds this many times what he was paid")
    napolitana_quinola_payback: str = option("double", ("double", "factor"), "R22",
                                             "what a failed napolitana who sold the quínola pays into the fondo: double: twice "
                                             "the fondo it took, his one doubling (R23); factor: napolitanaRefundFactor times it, "
                                             "under 1 the take returned and no doubling")
    napolitana_pays_for_all: bool = option(False, (False, True), "R26", "on a won revesino the napolitana pays all three shares")
    napolitana_may_announce: bool = option(False, (False, True), "A4.2", "a napolitana may announce a revesino")
    revesino_voids_napolitana: bool = option(True, (True, False), "R36",
                                             "an announced revesino voids the napolitana's own consequences")
    # Revokes (A5, A6.8, R28).
    allow_revokes: bool = option(False, (False, True), "R28",
                                 "accept a revoke and fine it (2 to the fondo, no more collecting that hand)")
    renuncio_forfeits: str = option("laterGains", ("laterGains", "laterPayments", "wholeHand"), "R28",
                                    "what a revoker forfeits: laterGains: what he would gain from his revoke's trick on (a "
                                    "quínola take of an earlier trick stays his when its escrow is made final); laterPayments: "
                                    "also such a take, which goes back to the fondo; wholeHand: every gain of the hand, what he "
                                    "was paid before his revoke returned at it")
