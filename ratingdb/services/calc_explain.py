"""The calculator's scoresheet explanation: W_e game by game, K (or E), the formula filled in
with the numbers, and R_n; a first rating's start value, iteration and correction; or why
no rating can be computed yet.

Every number shown is the rules' own (the evaluation's result and its trace, the rules'
functions for the parts of K); the filled-in arithmetic is checked against the result and
left out where it would not reproduce it (float precision). Labels are German with the
WO's terms (Punkterwartung W_e, Entwicklungsfaktor K, Entwicklungskoeffizient E,
Gegnerschnitt R_c, Leistung R_h, Erst-DWZ R_1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ratingdb.rules.rounding import decimal_half_up, round_half_up, round_half_up_to
from ratingdb.services.calculator import PLAYER_ID, Calculation

AGE = {"youth": "Jugendliche", "junior": "Junioren", "adult": "Erwachsene"}
GROUP = {
    "established": "etabliert (mit DWZ)",
    "first_stage": "1. Zusatzstufe (Erst-DWZ)",
    "second_stage": "2. Zusatzstufe (Erst-DWZ)",
    "remaining": "restlicher Spieler (noch keine DWZ)",
}
RESULT = {Decimal("1"): "1", Decimal("0.5"): "½", Decimal("0"): "0"}


def de(value: Any, places: int | None = None) -> str:
    """A number in German notation (``1,667``): a whole number without decimals; a Decimal
    as it is (W_e keeps its 3 places); ``places`` rounds half-up (WO); ``exact`` below."""
    if isinstance(value, Fraction) and value.denominator == 1:
        value = int(value)
    if isinstance(value, int) and places is None:
        return str(value).replace("-", "−")
    if places is not None:
        value = decimal_half_up(Fraction(value), places)
    text = format(Decimal(str(value)) if isinstance(value, float) else value, "f")
    return text.replace(".", ",").replace("-", "−")


def exact(value: Decimal | Fraction) -> str:
    """A value to at most 3 decimals (half-up), without trailing zeros: ``2245,25``."""
    text = de(value, 3)
    return text.rstrip("0").rstrip(",") if "," in text else text


def short(value: Fraction) -> str:
    """A factor: whole numbers as they are, others to at most 3 decimals (half-up)."""
    return de(value) if value.denominator == 1 else exact(value)


@dataclass
class GameLine:
    """One game of the scoresheet (WO Anhang 3.1.12): opponent, his rating ("Wertung"),
    D = R_0 - R (established players), result and P(D)."""

    round: int
    opponent: str
    player_id: int | None
    rating: int
    index: int | None
    difference: int | None
    score: Decimal
    expected: Decimal | None

    @property
    def shown_result(self) -> str:
        return RESULT[self.score]

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "opponent": self.opponent,
            "player_id": self.player_id,
            "rating": self.rating,
            "index": self.index,
            "difference": self.difference,
            "result": float(self.score),
            "expected": None if self.expected is None else float(self.expected),
        }


@dataclass
class Explanation:
    """``status``: ``rated`` (R_n of an established player), ``first_rating`` or
    ``no_rating``; ``headline`` the answer in one line, ``lines`` the calculation."""

    status: str
    headline: str
    games: list[GameLine]
    lines: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)


def explain(calc: Calculation) -> Explanation:
    me = calc.me
    games = _games(calc)
    if me.group == "established":
        out = Explanation("rated", _rated_headline(me), games)
        _expected_line(out, me)
        if calc.family == "dwz2026":
            _dwz2026_k(out, calc)
        else:
            _classic_e(out, calc)
    elif me.group in ("first_stage", "second_stage"):
        out = Explanation("first_rating", f"Erst-DWZ: {me.rating_new}-{me.index_new}", games)
        _first_rating(out, calc)
    else:
        out = Explanation("no_rating", "Noch keine DWZ", games)
        _no_rating(out, calc)
    if me.performance is not None:
        out.lines.append(
            f"Leistung R_h = {me.performance}: die DWZ, bei der die Punkterwartung gleich "
            "der erzielten Punktzahl wäre (WO 3.6)."
        )
        if me.exceptional:
            out.lines.append(
                f"R_h > R_0 + {calc.parameters.exceptional_margin}: in der Turnierauswertung "
                "rechnen die etablierten Gegner mit dieser Leistung (Sonderwertung, WO 3.6.3)."
            )
    out.values.update(group=me.group, age_class=me.age_class, games=me.games, score=float(me.score))
    return out


def _games(calc: Calculation) -> list[GameLine]:
    me = calc.me
    rated = me.group == "established"
    expected = me.expected_games if len(me.expected_games) == len(calc.opponents) else []
    lines = []
    for k, (game, seat) in enumerate(zip(calc.request.games, calc.opponents, strict=True)):
        assert seat.rating is not None
        p = expected[k] if expected else None
        lines.append(
            GameLine(
                k + 1,
                seat.name,
                seat.player_id,
                seat.rating,
                seat.index,
                me.rating_old - seat.rating if rated else None,
                game.score,
                None if p is None else decimal_half_up(Fraction(p), 3),
            )
        )
    return lines


def _rated_headline(me: Any) -> str:
    change = me.rating_new - me.rating_old
    sign = "+" if change >= 0 else "−"
    return f"DWZ neu: {me.rating_new}-{me.index_new} ({sign}{abs(change)})"


def _expected_line(out: Explanation, me: Any) -> None:
    terms = [de(g.expected) for g in out.games if g.expected is not None]
    shown = " + ".join(terms) if len(terms) <= 12 else f"{' + '.join(terms[:10])} + …"
    out.lines.append(
        f"Punkterwartung W_e = Σ P(D) = {shown} = {de(me.expected)} (WO 3.3.2, Anhang 2.1); "
        f"Gegnerschnitt R_c = {me.opponents_avg}; W = {de(me.score)} aus n = {me.games} Partien."
    )


def _age(me: Any, calc: Calculation) -> str:
    params = calc.parameters
    limits = {
        "youth": f"bis {params.youth_max_age} Jahre",
        "junior": f"{params.youth_max_age + 1}–{params.junior_max_age} Jahre",
        "adult": f"ab {params.junior_max_age + 1} Jahre",
    }
    return f"{AGE[me.age_class]} ({limits[me.age_class]})"


def _dwz2026_k(out: Explanation, calc: Calculation) -> None:
    """K = K_0 · b + a (WO 3.5.1, Anhang 1.3), R_n = R_0 + K · (W - W_e) (WO 3.5.2)."""
    from ratingdb.rules.dwz2026.development import base_value, brake_factor, success_bonus

    me, params = calc.me, calc.parameters
    r0, index = me.rating_old, me.index_old
    k0 = base_value(r0, index, me.age_class, params)
    column = f"Index {index}" if index <= 10 else f"Index {index} > 10"
    out.lines.append(f"Grundwert K_0 = {k0} (WO Anhang 1.3: {_age(me, calc)}, DWZ {r0}, {column}).")
    reached = me.score >= me.expected
    bonus, brake = Fraction(0), Fraction(1)
    if reached:
        bonus = success_bonus(r0, me.age_class, params)
        if bonus and me.age_class == "youth":
            how = f"(2000 − R_0) / t = ({params.youth_bonus_pivot} − {r0}) / {params.t}"
            out.lines.append(f"W ≥ W_e: Erfolgsaufschlag a = {how} = {short(bonus)}; b = 1.")
        elif bonus:
            name = "a1" if me.age_class == "junior" else "a2"
            out.lines.append(f"W ≥ W_e: Erfolgsaufschlag a = {name} = {short(bonus)}; b = 1.")
        else:
            out.lines.append("W ≥ W_e: Erfolgsaufschlag a = 0 (WO Anhang 1.3); b = 1.")
    else:
        brake = brake_factor(r0, params)
        if brake != 1:
            low = params.low_rating_threshold
            how = f"(R_0 + u) / ({low} + u) = ({r0} + {params.u}) / ({low} + {params.u})"
            out.lines.append(f"W < W_e: Bremsfaktor b = {how} = {short(brake)}; a = 0.")
        else:
            out.lines.append(
                f"W < W_e: Bremsfaktor b = 1 (DWZ ab {params.low_rating_threshold}); a = 0."
            )
    raw = k0 * brake + bonus
    k = min(round_half_up_to(raw, 1), Fraction(params.k_max))
    capped = " (begrenzt auf K_max)" if round_half_up_to(raw, 1) > params.k_max else ""
    if me.k is not None and Fraction(me.k) == k:
        out.lines.append(
            f"Entwicklungsfaktor K = K_0 · b + a = {k0} · {short(brake)} + {short(bonus)} = "
            f"{short(raw)} ≈ {de(me.k)}{capped} (WO 3.5.1)."
        )
    else:  # float precision at the edge W = W_e: the rules' own K
        out.lines.append(f"Entwicklungsfaktor K = {de(me.k)} (WO 3.5.1, Anhang 1.3).")
    out.values.update(k0=k0, bonus=float(bonus), brake=float(brake), k=float(me.k))
    difference = me.score - me.expected
    change = me.k * difference
    formula = (
        f"R_n = R_0 + K · (W − W_e) = {r0} + {de(me.k)} · ({de(me.score)} − {de(me.expected)})"
        f" = {r0} + {de(me.k)} · {_signed(difference)}"
    )
    if params.round_change_first:
        computed = max(r0 + round_half_up(change), params.rating_floor)
        filled = f"{formula} = {r0} + {exact(change)} ≈ {r0} + {round_half_up(change)}"
    else:
        computed = max(round_half_up(r0 + change), params.rating_floor)
        filled = f"{formula} = {exact(r0 + change)}"
    floor = ""
    if computed == params.rating_floor and round_half_up(r0 + change) < params.rating_floor:
        floor = f"; unter {params.rating_floor} wird {params.rating_floor} gesetzt"
    if computed == me.rating_new:
        out.lines.append(f"Neue DWZ {filled} ≈ {me.rating_new}{floor} (WO 3.5.2).")
    else:  # float precision: W_e unrounded
        out.lines.append(f"Neue DWZ R_n = R_0 + K · (W − W_e) = {me.rating_new} (WO 3.5.2).")
    out.lines.append(f"Index: {me.index_old} → {me.index_new}.")


def _classic_e(out: Explanation, calc: Calculation) -> None:
    """E (classic 4.9.2, WO 2014 4.9.2), R_n = R_o + 800 (W - W_e) / (E + n) (4.9.1)."""
    from ratingdb.rules.dwz_classic.coefficient import (
        acceleration_factor,
        age_offset,
        braking_supplement,
        change_constant,
    )

    me, params = calc.me, calc.parameters
    r0, e, n = me.rating_old, int(me.k), me.games
    j = age_offset(me.age_class, params)
    reached = me.score >= me.expected
    scale, power = params.e_rating_scale, params.e_exponent
    base = f"E_0 = (R_o/{scale})^{power} + J = ({r0}/{scale})^{power} + {j}"
    e0 = Fraction(r0, scale) ** power + j
    if params.e_formula == "2014":
        fb = acceleration_factor(r0, me.age_class, reached, params)
        sbr = braking_supplement(r0, reached, params)
        out.lines.append(
            f"{base} = {de(e0, 3)} ({_age(me, calc)}); Beschleunigungsfaktor f_B = "
            f"{short(fb)}, Bremszuschlag S_Br = {short(sbr)} (WO 2014 4.9.2)."
        )
        out.lines.append(
            f"Entwicklungskoeffizient E = E_0 · f_B + S_Br, gerundet und begrenzt "
            f"({params.e_min} ≤ E ≤ {params.e_max}, E ≤ {params.e_index_factor} · Index; "
            f"mit Bremszuschlag E ≤ {params.e_max_braking}) = {e}."
        )
    else:
        out.lines.append(
            f"Entwicklungskoeffizient {base} = {de(e0, 3)} ({_age(me, calc)}), gerundet und "
            f"begrenzt ({params.e_min} ≤ E ≤ {params.e_max}, E ≤ {params.e_index_factor} · "
            f"Index {me.index_old}) = {e} (WO 4.9.2)."
        )
    difference = me.score - me.expected
    raw = r0 + change_constant(e, n, params) * Fraction(difference)
    factor = params.change_factor
    filled = (
        f"R_n = R_o + {factor} · (W − W_e) / (E + n) = {r0} + {factor} · ({de(me.score)} − "
        f"{de(me.expected)}) / ({e} + {n}) = {exact(raw)}"
    )
    if max(round_half_up(raw), params.rating_floor) == me.rating_new:
        out.lines.append(f"Neue DWZ {filled} ≈ {me.rating_new} (WO 4.9.1).")
    else:
        out.lines.append(f"Neue DWZ R_n = {me.rating_new} (WO 4.9.1).")
    out.lines.append(f"Index: {me.index_old} → {me.index_new}.")
    out.values.update(e=e, j=j)


def _stage_line(calc: Calculation) -> str:
    me, params, p = calc.me, calc.parameters, calc.player
    residual = f", einschl. {len(p.residual_games)} Restpartien" if p.residual_games else ""
    stage = "1. Zusatzstufe" if me.group == "first_stage" else "2. Zusatzstufe"
    return (
        f"Keine DWZ vor dem Turnier: n = {me.games} Partien gegen Gegner mit DWZ{residual}, "
        f"W = {de(me.score)} Punkte (nötig: mindestens {params.min_games} Partien und "
        f"{de(params.min_score)} Punkte) → {stage} (WO 3.4.1.1)."
    )


def _first_rating(out: Explanation, calc: Calculation) -> None:
    """R_p (Anhang 1.1.1), the iteration (3.4.4, Anhang 1.1), R_i -> R_1 (3.4.4.2)."""
    me, params = calc.me, calc.parameters
    out.lines.append(_stage_line(calc))
    trace = (calc.result.trace or {}).get("first_rating") or {}
    draw = (trace.get("fictitious_draw") or {}).get(PLAYER_ID)
    if draw is not None:
        out.lines.append(
            f"100 % der Punkte: ein fiktives Remis gegen den Gegnerschnitt {draw} kommt für "
            "die Iteration hinzu (WO 3.4.1.3)."
        )
    if calc.result.precision == "table" and calc.family == "dwz2026":
        # the start value counts the stage games only, without the fictitious draw
        w, n = me.score, me.games
        p = de(Fraction(w) / n, 3)
        out.lines.append(
            f"Gegnerschnitt R_c = {me.opponents_avg}; p = W / n = {de(w)} / {n} = {p}; "
            f"Anfangswert R_p = R_c + D(p) = {me.opponents_avg} + "
            f"{_signed(Decimal(me.start_value - me.opponents_avg))} = {me.start_value} "
            "(WO Anhang 1.1.1, Anhang 2.2)."
        )
    else:
        out.lines.append(
            f"Gegnerschnitt R_c = {me.opponents_avg}; Anfangswert R_p = R_c + D(W / n) = "
            f"{me.start_value} (WO Anhang 1.1.1)."
        )
    steps = [row[trace["order"].index(PLAYER_ID)] for row in trace.get("steps", [])]
    if len(steps) > 1:
        shown = steps if len(steps) <= 10 else [*steps[:8], "…", steps[-1]]
        out.lines.append(
            "Iteration, bis W_e = W (WO Anhang 1.1): "
            f"{' → '.join(str(v) for v in shown)}; R_i = {me.iteration_value}."
        )
    else:
        out.lines.append(f"Iterationswert R_i = {me.iteration_value} (WO Anhang 1.1).")
    ri = me.iteration_value
    if calc.family == "dwz2026":
        pivot, floor, r = params.first_rating_pivot, params.rating_floor, params.r
        if ri >= pivot:
            how = f"R_i ≥ {pivot}: R_1 = R_i = {ri}"
        elif ri >= floor:
            value = ri + Fraction(r) * (pivot - ri)
            how = (
                f"R_i < {pivot}: R_1 = R_i + r · ({pivot} − R_i) = {ri} + {de(r)} · "
                f"({pivot} − {ri}) = {exact(value)} ≈ {me.rating_new}"
            )
        else:
            value = floor + Fraction(r) * (pivot - floor) * ri / floor
            how = (
                f"R_i < {floor}: R_1 = {floor} + r · {pivot - floor} · R_i / {floor} = "
                f"{exact(value)} ≈ {me.rating_new}"
            )
        out.lines.append(f"Erst-DWZ-Korrektur: {how} (WO 3.4.4.2, Anhang 1.2.2).")
    else:
        out.lines.append(f"Erst-DWZ R_1 = {me.rating_new} (WO 4.8).")
    out.lines.append(f"Index: {me.index_new}.")


def _no_rating(out: Explanation, calc: Calculation) -> None:
    """WO 3.4.1.1 not met: the games become residual games (WO 3.4.2, 4.1.1)."""
    me, params, p = calc.me, calc.parameters, calc.player
    residual = f", einschl. {len(p.residual_games)} Restpartien" if p.residual_games else ""
    why = []
    if me.games < params.min_games:
        why.append(f"nur {me.games} Partien{residual} (nötig: {params.min_games})")
    if me.score < params.min_score:
        why.append(f"nur {de(me.score)} Punkte (nötig: {de(params.min_score)})")
    out.lines.append(
        "Eine Erst-DWZ erfordert mindestens "
        f"{params.min_games} Partien gegen Gegner mit DWZ"
        + (f" und mindestens {de(params.min_score)} Punkte" if params.min_score else "")
        + f" (WO 3.4.1.1); hier {' und '.join(why) or 'nicht erfüllt'}."
    )
    years = params.residual_validity_years
    if p.member:
        out.lines.append(
            f"Die Partien werden als Restpartien gespeichert und zählen {years} Jahre lang in "
            "der nächsten Auswertung mit (WO 3.4.2, 4.1.1)."
        )
    else:
        out.lines.append("Für Nichtmitglieder werden keine Restpartien gespeichert (WO 3.4.3).")


def calculation_dict(calc: Calculation, *, with_document: bool) -> dict[str, Any]:
    """The JSON answer (docs/calculator.md). ``with_document``: include the ``ratingdb
    evaluate`` input (it holds a database player's birth year: not for the public)."""
    me, out = calc.me, explain(calc)
    p = calc.player
    return {
        "date": calc.request.day.isoformat(),
        "rechenmodul": calc.rechenmodul,
        "rules": calc.family,
        "precision": calc.result.precision,
        "player": {
            "id": p.player_id,
            "name": p.name,
            "rating": p.rating,
            "index": p.index,
            "age_class": me.age_class,
            "member": p.member,
            "residual_games": len(p.residual_games),
        },
        "games": [g.to_dict() for g in out.games],
        "result": me.to_dict(calc.result.coefficient),
        "explanation": {
            "status": out.status,
            "headline": out.headline,
            "lines": out.lines,
            "values": out.values,
        },
        "notes": calc.notes,
        "evaluate_input": calc.document if with_document else None,
    }


def render_text(calc: Calculation) -> str:
    """The command line's answer: headline, scoresheet, calculation, notes."""
    me, out = calc.me, explain(calc)
    p = calc.player
    own = f"{p.rating}-{p.index}" if p.rating is not None else "ohne DWZ"
    head = [
        f"DWZ-Rechner · {calc.request.day:%d.%m.%Y} · Rechenmodul {calc.rechenmodul}",
        f"{p.name}: {own}, {AGE[me.age_class]}, {GROUP[me.group]}",
        "",
        f"{'Rd.':>3}  {'Gegner':<28} {'Wertung':>9} {'D':>6} {'Erg.':>4} {'P(D)':>6}",
    ]
    for g in out.games:
        rating = f"{g.rating}-{g.index}" if g.index is not None else str(g.rating)
        diff = "" if g.difference is None else de(g.difference)
        exp = "" if g.expected is None else de(g.expected)
        head.append(
            f"{g.round:>3}  {g.opponent[:28]:<28} {rating:>9} {diff:>6} "
            f"{RESULT[g.score]:>4} {exp:>6}"
        )
    total = de(me.expected) if me.expected is not None else ""
    head.append(f"{'':>3}  {'Summe':<28} {'':>9} {'':>6} {de(me.score):>4} {total:>6}")
    body = ["", out.headline, *("  " + line for line in out.lines), ""]
    body += [f"Hinweis: {n}" for n in calc.notes]
    return "\n".join(head + body)


def _signed(value: Decimal) -> str:
    """A negative factor in parentheses: ``(−0,308)``."""
    return f"({de(value)})" if value < 0 else de(value)
