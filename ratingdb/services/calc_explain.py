"""The calculator's scoresheet explanation: W_e game by game, K (or E), the formula filled in
with the numbers, and R_n; a first rating's start value, iteration and correction; or why
no rating can be computed yet.

Every number shown is the rules' own (the evaluation's result and its trace, the rules'
functions for the parts of K); the filled-in arithmetic is checked against the result and
left out where it would not reproduce it (float precision). Labels are German with the
WO's terms (Punkterwartung W_e, Entwicklungsfaktor K, Entwicklungskoeffizient E,
Gegnerschnitt R_c, Leistung R_h, Erst-DWZ R_1) by default, English selectable
(:mod:`ratingdb.i18n`: the messages are English, ``de`` translates them; numbers are
written with the language's decimal mark).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ratingdb.i18n import N_, _, decimal, language
from ratingdb.rules.rounding import decimal_half_up, round_half_up, round_half_up_to
from ratingdb.services.calculator import PLAYER_ID, Calculation
from ratingdb.terms import age_class as age_name

#: groups (WO 3.4.1), marked for the catalog: pass through ``_`` (age classes: ratingdb.terms)
GROUP = {
    "established": N_("established (rated)"),
    "first_stage": N_("1st Zusatzstufe (first rating)"),
    "second_stage": N_("2nd Zusatzstufe (first rating)"),
    "remaining": N_("remaining player (no rating yet)"),
}
RESULT = {Decimal("1"): "1", Decimal("0.5"): "½", Decimal("0"): "0"}


def de(value: Any, places: int | None = None) -> str:
    """A number of the explanation: :func:`ratingdb.i18n.decimal` (the language's decimal
    mark, ``places`` half-up) with the typographic minus of a formula (``−33``)."""
    return decimal(value, places).replace("-", "−")


def _mark() -> str:
    return "," if language() == "de" else "."


def exact(value: Decimal | Fraction) -> str:
    """A value to at most 3 decimals (half-up), without trailing zeros: ``2245,25``."""
    text = de(value, 3)
    return text.rstrip("0").rstrip(_mark()) if _mark() in text else text


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
        headline = _("First rating: {rating}-{index}").format(
            rating=me.rating_new, index=me.index_new
        )
        out = Explanation("first_rating", headline, games)
        _first_rating(out, calc)
    else:
        out = Explanation("no_rating", _("No rating yet"), games)
        _no_rating(out, calc)
    if me.performance is not None:
        out.lines.append(
            _(
                "Performance R_h = {rh}: the rating at which the expected score would equal "
                "the score (WO 3.6)."
            ).format(rh=me.performance)
        )
        if me.exceptional:
            out.lines.append(
                _(
                    "R_h > R_0 + {margin}: in the tournament's evaluation the established "
                    "opponents count this performance (Sonderwertung, WO 3.6.3)."
                ).format(margin=calc.parameters.exceptional_margin)
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
    return _("New rating: {rating}-{index} ({change})").format(
        rating=me.rating_new, index=me.index_new, change=f"{sign}{abs(change)}"
    )


def _expected_line(out: Explanation, me: Any) -> None:
    terms = [de(g.expected) for g in out.games if g.expected is not None]
    shown = " + ".join(terms) if len(terms) <= 12 else f"{' + '.join(terms[:10])} + …"
    out.lines.append(
        _(
            "Expected score W_e = Σ P(D) = {terms} = {we} (WO 3.3.2, Anhang 2.1); average "
            "opponent R_c = {rc}; W = {w} from n = {n} games."
        ).format(terms=shown, we=de(me.expected), rc=me.opponents_avg, w=de(me.score), n=me.games)
    )


def _age(me: Any, calc: Calculation) -> str:
    params = calc.parameters
    limits = {
        "youth": _("up to {age} years").format(age=params.youth_max_age),
        "junior": _("{low}–{high} years").format(
            low=params.youth_max_age + 1, high=params.junior_max_age
        ),
        "adult": _("{age} years and older").format(age=params.junior_max_age + 1),
    }
    return f"{age_name(me.age_class)} ({limits[me.age_class]})"


def _dwz2026_k(out: Explanation, calc: Calculation) -> None:
    """K = K_0 · b + a (WO 3.5.1, Anhang 1.3), R_n = R_0 + K · (W - W_e) (WO 3.5.2)."""
    from ratingdb.rules.dwz2026.development import base_value, brake_factor, success_bonus

    me, params = calc.me, calc.parameters
    r0, index = me.rating_old, me.index_old
    k0 = base_value(r0, index, me.age_class, params)
    column = f"Index {index}" if index <= 10 else f"Index {index} > 10"
    out.lines.append(
        _("Base value K_0 = {k0} (WO Anhang 1.3: {age}, rating {r0}, {column}).").format(
            k0=k0, age=_age(me, calc), r0=r0, column=column
        )
    )
    reached = me.score >= me.expected
    bonus, brake = Fraction(0), Fraction(1)
    if reached:
        bonus = success_bonus(r0, me.age_class, params)
        if bonus and me.age_class == "youth":
            how = f"(2000 − R_0) / t = ({params.youth_bonus_pivot} − {r0}) / {params.t}"
            out.lines.append(_bonus().format(how=f"{how} = {short(bonus)}"))
        elif bonus:
            name = "a1" if me.age_class == "junior" else "a2"
            out.lines.append(_bonus().format(how=f"{name} = {short(bonus)}"))
        else:
            out.lines.append(_bonus().format(how="0"))
    else:
        brake = brake_factor(r0, params)
        if brake != 1:
            low = params.low_rating_threshold
            how = f"(R_0 + u) / ({low} + u) = ({r0} + {params.u}) / ({low} + {params.u})"
            out.lines.append(_brake().format(how=f"{how} = {short(brake)}"))
        else:
            out.lines.append(
                _("W < W_e: brake factor b = 1 (rating {low} or more); a = 0.").format(
                    low=params.low_rating_threshold
                )
            )
    raw = k0 * brake + bonus
    k = min(round_half_up_to(raw, 1), Fraction(params.k_max))
    capped = _(" (capped at K_max)") if round_half_up_to(raw, 1) > params.k_max else ""
    if me.k is not None and Fraction(me.k) == k:
        formula = (
            f"K = K_0 · b + a = {k0} · {short(brake)} + {short(bonus)} = "
            f"{short(raw)} ≈ {de(me.k)}{capped}"
        )
    else:  # float precision at the edge W = W_e: the rules' own K
        formula = f"K = {de(me.k)}"
    out.lines.append(_("Development factor {formula} (WO 3.5.1).").format(formula=formula))
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
        floor = _("; below {floor} it is set to {floor}").format(floor=params.rating_floor)
    if computed == me.rating_new:
        formula = f"{filled} ≈ {me.rating_new}{floor}"
    else:  # float precision: W_e unrounded
        formula = f"R_n = R_0 + K · (W − W_e) = {me.rating_new}"
    out.lines.append(_("New rating {formula} (WO 3.5.2).").format(formula=formula))
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
    index = _("index")
    bounds = (
        f"{params.e_min} ≤ E ≤ {params.e_max}, E ≤ {params.e_index_factor} · {index} {me.index_old}"
    )
    if params.e_formula == "2014":
        fb = acceleration_factor(r0, me.age_class, reached, params)
        sbr = braking_supplement(r0, reached, params)
        out.lines.append(
            _(
                "{base} = {e0} ({age}); acceleration factor f_B = {fb}, braking supplement "
                "S_Br = {sbr} (WO 2014 4.9.2)."
            ).format(base=base, e0=de(e0, 3), age=_age(me, calc), fb=short(fb), sbr=short(sbr))
        )
        out.lines.append(
            _(
                "Development coefficient E = E_0 · f_B + S_Br, rounded and bounded ({bounds}; "
                "with a braking supplement E ≤ {braking}) = {e}."
            ).format(bounds=bounds, braking=params.e_max_braking, e=e)
        )
    else:
        out.lines.append(
            _(
                "Development coefficient {base} = {e0} ({age}), rounded and bounded ({bounds}) "
                "= {e} (WO 4.9.2)."
            ).format(base=base, e0=de(e0, 3), age=_age(me, calc), bounds=bounds, e=e)
        )
    difference = me.score - me.expected
    raw = r0 + change_constant(e, n, params) * Fraction(difference)
    factor = params.change_factor
    filled = (
        f"R_n = R_o + {factor} · (W − W_e) / (E + n) = {r0} + {factor} · ({de(me.score)} − "
        f"{de(me.expected)}) / ({e} + {n}) = {exact(raw)}"
    )
    if max(round_half_up(raw), params.rating_floor) == me.rating_new:
        formula = f"{filled} ≈ {me.rating_new}"
    else:
        formula = f"R_n = {me.rating_new}"
    out.lines.append(_("New rating {formula} (WO 4.9.1).").format(formula=formula))
    out.lines.append(f"Index: {me.index_old} → {me.index_new}.")
    out.values.update(e=e, j=j)


def _stage_line(calc: Calculation) -> str:
    me, params, p = calc.me, calc.parameters, calc.player
    return _(
        "No rating before the tournament: n = {n} games against rated opponents{residual}, "
        "W = {w} points (needed: at least {min_games} games and {min_score} points) → {stage} "
        "(WO 3.4.1.1)."
    ).format(
        n=me.games,
        residual=_residual(p),
        w=de(me.score),
        min_games=params.min_games,
        min_score=de(params.min_score),
        stage=_(GROUP[me.group]),
    )


def _residual(p: Any) -> str:
    if not p.residual_games:
        return ""
    return _(", {count} residual games included").format(count=len(p.residual_games))


def _first_rating(out: Explanation, calc: Calculation) -> None:
    """R_p (Anhang 1.1.1), the iteration (3.4.4, Anhang 1.1), R_i -> R_1 (3.4.4.2)."""
    me, params = calc.me, calc.parameters
    out.lines.append(_stage_line(calc))
    trace = (calc.result.trace or {}).get("first_rating") or {}
    draw = (trace.get("fictitious_draw") or {}).get(PLAYER_ID)
    if draw is not None:
        out.lines.append(
            _(
                "100 % of the points: a fictitious draw against the average opponent {draw} is "
                "added for the iteration (WO 3.4.1.3)."
            ).format(draw=draw)
        )
    if calc.result.precision == "table" and calc.family == "dwz2026":
        # the start value counts the stage games only, without the fictitious draw
        w, n = me.score, me.games
        p = de(Fraction(w) / n, 3)
        out.lines.append(
            _(
                "Average opponent R_c = {rc}; p = W / n = {w} / {n} = {p}; start value R_p = "
                "R_c + D(p) = {rc} + {d} = {rp} (WO Anhang 1.1.1, Anhang 2.2)."
            ).format(
                rc=me.opponents_avg,
                w=de(w),
                n=n,
                p=p,
                d=_signed(Decimal(me.start_value - me.opponents_avg)),
                rp=me.start_value,
            )
        )
    else:
        out.lines.append(
            _(
                "Average opponent R_c = {rc}; start value R_p = R_c + D(W / n) = {rp} "
                "(WO Anhang 1.1.1)."
            ).format(rc=me.opponents_avg, rp=me.start_value)
        )
    steps = [row[trace["order"].index(PLAYER_ID)] for row in trace.get("steps", [])]
    if len(steps) > 1:
        shown = steps if len(steps) <= 10 else [*steps[:8], "…", steps[-1]]
        out.lines.append(
            _("Iteration until W_e = W (WO Anhang 1.1): {steps}; R_i = {ri}.").format(
                steps=" → ".join(str(v) for v in shown), ri=me.iteration_value
            )
        )
    else:
        out.lines.append(
            _("Iteration value R_i = {ri} (WO Anhang 1.1).").format(ri=me.iteration_value)
        )
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
        out.lines.append(
            _("First-rating correction: {how} (WO 3.4.4.2, Anhang 1.2.2).").format(how=how)
        )
    else:
        out.lines.append(_("First rating R_1 = {r1} (WO 4.8).").format(r1=me.rating_new))
    out.lines.append(f"Index: {me.index_new}.")


def _no_rating(out: Explanation, calc: Calculation) -> None:
    """WO 3.4.1.1 not met: the games become residual games (WO 3.4.2, 4.1.1)."""
    me, params, p = calc.me, calc.parameters, calc.player
    why = []
    if me.games < params.min_games:
        why.append(
            _("only {n} games{residual} (needed: {min_games})").format(
                n=me.games, residual=_residual(p), min_games=params.min_games
            )
        )
    if me.score < params.min_score:
        why.append(
            _("only {w} points (needed: {min_score})").format(
                w=de(me.score), min_score=de(params.min_score)
            )
        )
    out.lines.append(
        _(
            "A first rating needs at least {min_games} games against rated opponents and at "
            "least {min_score} points (WO 3.4.1.1); here {why}."
        ).format(
            min_games=params.min_games,
            min_score=de(params.min_score),
            why=_(" and ").join(why) or _("not met"),
        )
    )
    if p.member:
        out.lines.append(
            _(
                "The games are stored as residual games and count in the next evaluation for "
                "{years} years (WO 3.4.2, 4.1.1)."
            ).format(years=params.residual_validity_years)
        )
    else:
        out.lines.append(_("No residual games are stored for non-members (WO 3.4.3)."))


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
    own = f"{p.rating}-{p.index}" if p.rating is not None else _("unrated")
    day = calc.request.day.strftime(_("%Y-%m-%d"))
    group = _(GROUP[me.group])
    rd, opponent, used, res = _("Rd."), _("Opponent"), _("Rating used"), _("Res.")
    head = [
        _("DWZ calculator · {day} · Rechenmodul {modul}").format(day=day, modul=calc.rechenmodul),
        f"{p.name}: {own}, {age_name(me.age_class)}, {group}",
        "",
        f"{rd:>3}  {opponent:<28} {used:>11} {'D':>6} {res:>4} {'P(D)':>6}",
    ]
    for g in out.games:
        rating = f"{g.rating}-{g.index}" if g.index is not None else str(g.rating)
        diff = "" if g.difference is None else de(g.difference)
        exp = "" if g.expected is None else de(g.expected)
        head.append(
            f"{g.round:>3}  {g.opponent[:28]:<28} {rating:>11} {diff:>6} "
            f"{RESULT[g.score]:>4} {exp:>6}"
        )
    total = de(me.expected) if me.expected is not None else ""
    head.append(f"{'':>3}  {_('Total'):<28} {'':>11} {'':>6} {de(me.score):>4} {total:>6}")
    body = ["", out.headline, *("  " + line for line in out.lines), ""]
    body += [_("Note: {note}").format(note=n) for n in calc.notes]
    return "\n".join(head + body)


def _signed(value: Decimal) -> str:
    """A negative factor in parentheses: ``(−0,308)``."""
    return f"({de(value)})" if value < 0 else de(value)


def _bonus() -> str:
    return _("W ≥ W_e: success bonus a = {how} (WO Anhang 1.3); b = 1.")


def _brake() -> str:
    return _("W < W_e: brake factor b = {how} (WO Anhang 1.3); a = 0.")
