"""The evaluation display of WO Anhang 3.1.11 as rows and as plain text.

Columns: #, player, age class, VKZ, R_o-index, K, R_c, W, n, W_e, R_h, R_n-index, +/-.
Conventions (WO Anhang 3.1.11 notes): values of non-members ("textual participants") are
shown in parentheses because nothing is stored for them; an exceptional player's
performance is marked with ``*`` (the WO underlines it); remaining members who received
residual games show ``residual`` (German: the WO's "Erstdaten") in the R_n column, the
others ``-``. Column heads, age classes and notes are in the language in force
(:mod:`ratingdb.terms`).

The same rows for spreadsheets (:attr:`DisplayRow.values`, the CSV): one number per cell
(DWZ and index apart), the marks in columns of their own, no parentheses, an empty cell for
a missing value (docs/data-exchange.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from ratingdb import terms
from ratingdb.i18n import _, date_text, decimal, pgettext
from ratingdb.rules.model import PlayerInput, TournamentInput, TournamentResult


@dataclass(frozen=True)
class DisplayRow:
    #: the display's cells (page, PDF, text): ``1306-50``, ``1807*``, ``(42.0)``
    cells: tuple[str, ...]
    #: the spreadsheet's cells (CSV, :func:`spreadsheet_headers`): one value per cell, the
    #: marks in their own columns, empty when there is no value
    values: tuple[str, ...] = ()


def _rating_index(rating: int | None, index: int | None) -> str:
    if rating is None:
        return ""
    return f"{rating}" if index is None else f"{rating}-{index}"


def _paren(text: str, member: bool) -> str:
    return text if member or not text else f"({text})"


def _text(value: object) -> str:
    return "" if value is None else str(value)


def evaluation_rows(t: TournamentInput, result: TournamentResult) -> list[DisplayRow]:
    by_id: dict[str, PlayerInput] = {p.id: p for p in t.players}
    decimals = 0 if result.coefficient == "e" else 1  # classic DWZ's E is an integer
    rows: list[DisplayRow] = []
    for number, res in enumerate(result.players, start=1):
        player = by_id[res.id]
        member = player.member and not player.computer
        rating_new = res.rating_new if res.group != "remaining" else None
        if not res.games and res.group == "established":
            rating_new = None  # nothing played: no new rating shown
        index_new = None if rating_new is None else res.index_new
        old_index = None if res.rating_old is None else res.index_old
        change = ""
        if rating_new is not None and res.rating_old is not None and member:
            change = f"{rating_new - res.rating_old:+d}"
        if res.group == "remaining":
            new = terms.residual_mark() if res.new_residual_games else "-"
        else:
            new = _paren(_rating_index(rating_new, index_new), member)
        k = "" if res.k is None else decimal(res.k, decimals)
        expected = "" if res.expected is None else decimal(res.expected, 3)
        score = decimal(res.score, 1)
        performance = _text(res.performance)
        age = terms.age_class(res.age_class)
        name = player.name or res.id
        rows.append(
            DisplayRow(
                (
                    str(number), name, age, player.club_vkz or "-",
                    _rating_index(res.rating_old, res.index_old), _paren(k, member),
                    "-" if res.opponents_avg is None else str(res.opponents_avg),
                    score, str(res.games), expected,
                    performance + ("*" if res.exceptional else ""), new, change,
                ),
                (
                    str(number), name, age, player.club_vkz or "",
                    _text(res.rating_old), _text(old_index), k,
                    _text(res.opponents_avg), score, str(res.games), expected,
                    performance, "*" if res.exceptional else "",
                    _text(rating_new), _text(index_new),
                    _("yes") if res.group == "remaining" and res.new_residual_games else "",
                    change, _("yes") if member else _("no"),
                ),
            )
        )  # fmt: skip
    return rows


def headers(result: TournamentResult) -> tuple[str, ...]:
    """The column names in the language in force; the coefficient column is K (DWZ 2026) or
    E (classic DWZ)."""
    return tuple(t.label for t in terms.evaluation_terms(result.coefficient))


def spreadsheet_headers(result: TournamentResult) -> tuple[str, ...]:
    """The CSV header of :attr:`DisplayRow.values`: the page's column names
    (:func:`headers`), R_o and R_n each followed by its index, R_h by the Sonderwertung mark
    (``*``), R_n also by the residual-games mark (yes or empty), and last whether the
    player is a member (the display's parentheses: computed, not stored, WO 3.4.3)."""
    return (
        *terms.spreadsheet_labels(terms.evaluation_terms(result.coefficient)),
        pgettext("column", "Member"),
    )


def render_text(
    t: TournamentInput, result: TournamentResult, rechenmodul: str | None = None
) -> str:
    """Plain-text table with a header as in WO Anhang 3.1.11; ``rechenmodul`` names the
    Rechenmodul version used (``ratingdb evaluate --rechenmodul``)."""
    info = t.tournament
    parts = [
        (_("Tournament ID"), info.id),
        (pgettext("date", "Start"), date_text(info.start)),
        (pgettext("date", "End"), date_text(info.end)),
        (_("Level (VKZ)"), info.vkz or "-"),
        (_("Rules"), f"{result.rules} ({result.precision})"),
    ]
    if rechenmodul:
        parts.append((_("Rechenmodul"), rechenmodul))
    header = "  ".join([info.name or "", *(f"{label}: {value}" for label, value in parts)])
    rows = [headers(result), *(row.cells for row in evaluation_rows(t, result))]
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    left = {1, 2, 3}
    lines = [header, ""]
    for k, row in enumerate(rows):
        cells = [
            cell.ljust(widths[c]) if c in left else cell.rjust(widths[c])
            for c, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    lines.append(terms.notes())
    lines += [f"  {t.legend}" for t in terms.evaluation_terms(result.coefficient)[2:]]
    return "\n".join(lines)
