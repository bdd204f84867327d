"""The words of the displays: the columns of the evaluation display and of the Karteikarte
with their symbols and explanations in the words of the WO's glossary (WO 3.2 "Die
Auswertungskomponenten", Anhang 3.1.11 with its notes), the age classes and the kinds of
tournament, in the language in force (:mod:`ratingdb.i18n`).

German column heads are those DeWIS users know (Punkte, Partien, We, Niveau, Leistung, DWZ
alt/neu); English ones are words (Points, Games, Expected score, Opp. average,
Performance, Old/New rating). Pages show the WO's symbol (W, n, W_e, R_c, R_h, R_o/R_n) with
its explanation as hover text (``<abbr title>``) and in the legend below the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ratingdb.i18n import _, ngettext, pgettext


@dataclass(frozen=True)
class Term:
    #: the URL/sort key of the column (``ratingdb.queries.evaluation_table.COLUMN_KEYS``)
    key: str
    #: the WO's symbol (W_e, R_c, ...)
    symbol: str
    #: the column head in the language in force
    label: str
    #: the WO's definition in the language in force
    explanation: str

    @property
    def title(self) -> str:
        """The hover text: symbol and definition."""
        return f"{self.symbol}: {self.explanation}" if self.symbol else self.explanation

    @property
    def legend(self) -> str:
        """A legend line: the column head (with its symbol when they differ) and the
        definition."""
        head = self.label if self.symbol in ("", self.label) else f"{self.label} ({self.symbol})"
        return f"{head}: {self.explanation}"


def evaluation_terms(coefficient: str = "k") -> tuple[Term, ...]:
    """The columns of the evaluation display (WO Anhang 3.1.11), in order; ``coefficient``
    is ``k`` (DWZ 2026: Entwicklungsfaktor K) or ``e`` (classic DWZ: Entwicklungskoeffizient
    E)."""
    if coefficient == "e":
        development = Term(
            "k", "E", pgettext("column", "Coefficient"),
            _("Development coefficient (classic DWZ rating regulations)."),
        )  # fmt: skip
    else:
        development = Term(
            "k",
            "K",
            pgettext("column", "Factor"),
            _("Development factor (WO 3.2, Anhang 1.3)."),
        )
    return (
        Term("nr", "#", pgettext("column", "#"), _("Running number (or the pairing number).")),
        Term("name", "", pgettext("column", "Player"), _("Name of the player.")),
        Term(
            "age",
            "",
            pgettext("column", "Age"),
            _(
                "Age class in the year of the tournament's end: youth up to 20 years, junior 21 "
                "to 25 years (age = year of the tournament's end minus year of birth, WO 3.2)."
            ),
        ),
        Term(
            "vkz",
            "VKZ",
            pgettext("column", "Club code"),
            _("Club code: the active membership at the time of the tournament."),
        ),
        Term(
            "r_o",
            "R_o",
            pgettext("column", "Old rating"),
            _("Old rating before the tournament (entry DWZ), with its index."),
        ),
        development,
        Term(
            "r_c",
            "R_c",
            pgettext("column", "Opp. average"),
            _("Average of the opponents' ratings / the opponents' level."),
        ),
        Term("w", "W", pgettext("column", "Points"), _("Points scored, a draw counts 0.5.")),
        Term("n", "n", pgettext("column", "Games"), _("Number of rated games.")),
        Term(
            "w_e",
            "W_e",
            pgettext("column", "Expected score"),
            _(
                "Expected score in the tournament = the sum of all single winning "
                "expectations P(D)."
            ),
        ),
        Term(
            "r_h",
            "R_h",
            pgettext("column", "Performance"),
            _(
                "Tournament performance independent of R_o (WO 3.6); * an exceptional "
                "player (Sonderwertung, WO 3.6.3)."
            ),
        ),
        Term(
            "r_n",
            "R_n",
            pgettext("column", "New rating"),
            _("New rating after the evaluation (following DWZ), with its index."),
        ),
        Term("change", "+/-", pgettext("column", "+/-"), _("Rating change: R_n minus R_o.")),
    )


def term(key: str, coefficient: str = "k") -> Term:
    """One column of :func:`evaluation_terms` by its key."""
    return next(t for t in evaluation_terms(coefficient) if t.key == key)


def age_class(value: str | None) -> str:
    """An age class (WO 3.2: ``youth``, ``junior``, ``adult``) as the display shows it."""
    names = {
        "youth": pgettext("age class", "youth"),
        "junior": pgettext("age class", "junior"),
        "adult": pgettext("age class", "adult"),
    }
    return names.get(value or "", value or "")


def tournament_kind(value: str) -> str:
    """A kind of tournament (``individual``, ``team``, ``match``) in words."""
    names = {
        "individual": pgettext("tournament kind", "individual"),
        "team": pgettext("tournament kind", "team"),
        "match": pgettext("tournament kind", "match"),
    }
    return names.get(value, value)


#: each result code's points as shown, White's and Black's ("+"/"-": won/lost by forfeit)
_RESULT_SIDES = {
    "1-0": ("1", "0"), "0-1": ("0", "1"), "1/2-1/2": ("½", "½"), "+-": ("+", "-"),
    "-+": ("-", "+"), "--": ("-", "-"), "W-L": ("1", "0"), "L-W": ("0", "1"), "D-D": ("½", "½"),
}  # fmt: skip
#: games of less than one move (TRF W/L/D): shown with their result, never rated (WO 3.4.1)
SHORT_GAMES = ("W-L", "L-W", "D-D")


def game_result(code: str, white: bool | None = None) -> str:
    """A game's result code as the pages show it: the game (``white`` None: "1-0", "½-½",
    "+/-" for a forfeit) or one side's own result (True White's, False Black's: "1", "½",
    "+"); a game of less than one move adds "(short)" (never rated, WO 3.4.1)."""
    if code not in _RESULT_SIDES:
        return code
    sides = _RESULT_SIDES[code]
    if white is None:
        shown = f"{sides[0]}/{sides[1]}" if code in ("+-", "-+", "--") else "-".join(sides)
    else:
        shown = sides[0] if white else sides[1]
    return _("%(result)s (short)") % {"result": shown} if code in SHORT_GAMES else shown


def game_marks() -> str:
    """The note under a list of games: what the marks of the results mean (WO 3.4.1)."""
    return _(
        "+ and -: won and lost by forfeit (-/-: neither player came); (short): a game of "
        "less than one move. Neither counts for the DWZ (WO 3.4.1)."
    )


def precision(value: str | None) -> str:
    """A Rechenmodul's precision (``table``: P(D) and the performance from the WO's tables,
    ``float``: computed exactly) in words."""
    names = {
        "table": pgettext("precision", "table values"),
        "float": pgettext("precision", "computed exactly"),
    }
    return names.get(value or "", value or "")


def residual_mark() -> str:
    """The R_n cell of a remaining member who received residual games (the WO's
    "Erstdaten", Anhang 3.1.11)."""
    return pgettext("evaluation", "residual")


def notes() -> str:
    """The note under every evaluation display (WO Anhang 3.1.11 notes)."""
    return _(
        "(...) non-member: computed, not stored (WO 3.4.3); * exceptional player "
        "(Sonderwertung, WO 3.6.3); residual: residual games stored (WO 3.4.2)."
    )


def card_terms() -> tuple[Term, ...]:
    """The number columns of the Karteikarte: W, n, W_e, K/E, R_c, R_h, R_o, R_n, +/-
    (its rows mix DWZ 2026's K and classic DWZ's E)."""
    by_key = {t.key: t for t in evaluation_terms()}
    k, e = by_key["k"], term("k", "e")
    development = Term("k", "K/E", pgettext("column", "Factor K/E"), f"{k.title} {e.title}")
    return (
        by_key["w"], by_key["n"], by_key["w_e"], development, by_key["r_c"], by_key["r_h"],
        by_key["r_o"], by_key["r_n"], by_key["change"],
    )  # fmt: skip


def spreadsheet_companions() -> dict[str, tuple[str, ...]]:
    """The CSV columns that follow a display column whose cell packs more than one value
    (a spreadsheet gets one number per cell): R_o and R_n are followed by
    their index (the display's ``1306-50``), R_h by the Sonderwertung mark (``1807*``,
    WO 3.6.3), R_n also by the residual-games mark (the display's "Erstdaten", WO 3.4.2)."""
    return {
        "r_o": (pgettext("column", "Old index"),),
        "r_h": (pgettext("column", "Exceptional"),),
        "r_n": (pgettext("column", "New index"), pgettext("column", "Residual games")),
    }


def spreadsheet_labels(columns: tuple[Term, ...]) -> tuple[str, ...]:
    """The CSV header for display ``columns``: each column's head (as on the page), each
    followed by its :func:`spreadsheet_companions`."""
    companions = spreadsheet_companions()
    return tuple(label for t in columns for label in (t.label, *companions.get(t.key, ())))


def membership_status(value: str) -> str:
    """A membership's status (``active``, ``passive``) in words."""
    names = {
        "active": pgettext("membership", "active"),
        "passive": pgettext("membership", "passive"),
    }
    return names.get(value, value)


def match_how(value: str) -> str:
    """How a file's player was matched to the database (``DSB id``, ``member number``,
    ``FIDE id``, ``name + birth year``, ``new player``, ``textual``, ``computer``, and the
    officer's own decisions ``chosen``, ``new member``, ``non-member``; docs/officers.md) in
    words, as the officer's pages and ``tournament import`` show it."""
    names = {
        "DSB id": _("DSB id"),
        "member number": _("ZPS member number"),
        "FIDE id": _("FIDE id"),
        "name + birth year": _("name and birth year"),
        "new player": _("new player"),
        "textual": _("not found"),
        "computer": _("computer"),
        "chosen": _("chosen by you"),
        "new member": _("new member"),
        "non-member": _("non-member"),
        "player id": _("player id in the document"),
    }
    return names.get(value, value)


def record_status(value: str) -> str:
    """The status of a tournament (``submitted``, ``evaluated``, ``rejected``; on the
    officer's overview also ``pending`` and ``failed``) or of a calculation run
    (``running``, ``succeeded``, ``failed``) in words: the CLI and the pages."""
    names = {
        "pending": pgettext("status", "pending"),
        "submitted": pgettext("status", "submitted"),
        "evaluated": pgettext("status", "evaluated"),
        "rejected": pgettext("status", "rejected"),
        "running": pgettext("status", "running"),
        "succeeded": pgettext("status", "succeeded"),
        "failed": pgettext("status", "failed"),
    }
    return names.get(value, value)


def record_counts(counts: dict[str, int]) -> str:
    """What a load wrote (``{"players": 4000, ...}``, :func:`ratingdb.db.bulk.
    load_federation`) in words: ``4000 Spieler, 420 Turniere, …``."""
    words = {
        "organisations": lambda n: ngettext("%(num)d organisation", "%(num)d organisations", n),
        "players": lambda n: ngettext("%(num)d player", "%(num)d players", n),
        "memberships": lambda n: ngettext("%(num)d membership", "%(num)d memberships", n),
        "tournaments": lambda n: ngettext("%(num)d tournament", "%(num)d tournaments", n),
        "participants": lambda n: ngettext("%(num)d participant", "%(num)d participants", n),
        "games": lambda n: ngettext("%(num)d game", "%(num)d games", n),
    }
    return ", ".join(
        words[k](v) % {"num": v} if k in words else f"{v} {k}" for k, v in counts.items()
    )
