"""Evaluating tournaments without a database (``ratingdb evaluate``, docs/evaluate.md): the
rule family or DSB timeline version, parsing, evaluating; errors name the input and, for an
array, the tournament's index."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ratingdb.errors import InputError, RulesError
from ratingdb.i18n import _
from ratingdb.rules.parameters import Precision

if TYPE_CHECKING:
    from ratingdb.rules import RuleFamily

__all__ = [
    "Evaluated",
    "Precision",
    "evaluate_document",
    "evaluate_documents",
    "evaluate_input",
    "family_names",
    "results_json",
    "results_text",
]


def family_names() -> list[str]:
    """The rule families ``--rules`` can name."""
    from ratingdb.rules import FAMILIES

    return sorted(FAMILIES)


@dataclass(frozen=True, slots=True)
class Evaluated:
    """One tournament's input, result and the timeline version used (None: defaults)."""

    tournament: Any
    result: Any
    rechenmodul: str | None


def evaluate_documents(
    load: Callable[[], Any],
    name: str,
    *,
    rules_name: str = "dwz2026",
    rechenmodul: str | None = None,
    precision: Precision | None = None,
) -> tuple[list[Evaluated], bool, str]:
    """Evaluate the tournament(s) of the JSON value ``load()`` read from ``name`` (loaded
    after the options are checked).

    ``rechenmodul``: a DSB timeline version (overrides ``rules_name``) or ``auto`` (the
    version valid at each tournament's end). Returns the evaluations, whether ``data`` was
    an array, and the rule family's name."""
    from ratingdb.io.families import PARSERS
    from ratingdb.rules import dsb_timeline, get_family

    fixed = None
    if rechenmodul is not None and rechenmodul != "auto":
        try:
            fixed = dsb_timeline.find(rechenmodul)
        except KeyError:
            known = ", ".join(e.version for e in dsb_timeline.rechenmodule())
            message = _(
                "unknown Rechenmodul %(key)r (known: auto, %(known)s; the classic text as "
                "written: --rules dwz-classic)"
            ) % {"key": rechenmodul, "known": known}
            raise InputError("--rechenmodul", message) from None
        rules_name = fixed.family
    elif rechenmodul == "auto":
        rules_name = dsb_timeline.rechenmodule()[0].family  # every version rates tournaments
    family = get_family(rules_name)
    data = load()
    try:
        tournaments, was_array = PARSERS[family.shape](data)
    except InputError as err:
        raise err.with_context(name) from None
    out = []
    for k, tournament_in in enumerate(tournaments):
        entry = fixed
        if rechenmodul == "auto":
            entry = dsb_timeline.at(tournament_in.tournament.end)
        rules = family if entry is None else get_family(entry.family)
        params = (
            rules.default_parameters()
            if entry is None
            else rules.parameters.from_dict(entry.parameters)
        )
        if precision is not None:
            params = params.with_precision(precision)
        where = f"{name}: $[{k}]" if was_array else f"{name}: $"
        result = evaluate_input(rules, params, tournament_in, where)
        out.append(Evaluated(tournament_in, result, None if entry is None else entry.version))
    return out, was_array, family.name


def evaluate_input(rules: RuleFamily, params: Any, tournament_in: Any, where: str) -> Any:
    """``rules.evaluate`` of one parsed input; a RulesError names ``where`` and the input."""
    from ratingdb.io.families import input_label

    try:
        return rules.evaluate(tournament_in, params)
    except RulesError as err:
        raise err.with_context(f"{where}: {input_label(tournament_in)}") from None


def evaluate_document(
    data: Any, name: str, rules: RuleFamily, params: Any, rechenmodul: str | None = None
) -> Evaluated:
    """Evaluate the one tournament (a JSON object of the ``ratingdb evaluate`` contract,
    docs/evaluate.md) ``data`` under ``rules`` with ``params`` (a Rechenmodul version's, e.g.
    the one the engine's timeline chooses); errors name ``name`` and the JSON path."""
    from ratingdb.io.families import PARSERS

    try:
        inputs, was_array = PARSERS[rules.shape](data)
    except InputError as err:
        raise err.with_context(name) from None
    if was_array or len(inputs) != 1:
        raise InputError(name, _("one tournament expected, not an array"))
    return Evaluated(inputs[0], evaluate_input(rules, params, inputs[0], f"{name}: $"), rechenmodul)


def results_json(done: list[Evaluated], was_array: bool, *, trace: bool = False) -> str:
    """The results in the ``ratingdb evaluate`` contract (docs/evaluate.md): an object, or an
    array when the input was one; ``trace`` adds the iteration's steps."""
    from ratingdb.io.evaluate_json import dump_results

    docs = []
    for e in done:
        doc = e.result.to_dict(trace=trace)
        if e.rechenmodul is not None:
            doc["rechenmodul"] = e.rechenmodul
        docs.append(doc)
    return dump_results(docs, was_array)


def results_text(done: list[Evaluated], family: str) -> str:
    """The evaluation display of WO Anhang 3.1.11 of each DWZ evaluation; another family's
    results are an InputError (they have no such display)."""
    from ratingdb.queries.evaluation_display import render_text
    from ratingdb.rules.model import TournamentResult

    if not all(isinstance(e.result, TournamentResult) for e in done):
        raise InputError(
            "",
            _("--format table shows DWZ evaluations; use json for %(family)s") % {"family": family},
        )
    return "\n\n".join(render_text(e.tournament, e.result, e.rechenmodul) for e in done)


def worked_example() -> str:
    """The worked example of WO Anhang 3.1 (``data/wo-2026-example.json``) evaluated under
    the 2026 rules, as the evaluation display shows it (WO Anhang 3.1.11)."""
    import json
    from importlib import resources

    from ratingdb.io.evaluate_json import parse_tournament
    from ratingdb.queries.evaluation_display import render_text
    from ratingdb.rules.dwz2026 import evaluate

    example = json.loads(
        resources.files("ratingdb")
        .joinpath("data/wo-2026-example.json")
        .read_text(encoding="utf-8")
    )
    t_in = parse_tournament(example)
    return render_text(t_in, evaluate(t_in))
