"""Rechenmodule (WO Anhang 1.2) and rating adjustments (WO Anhang 4): adding a version or an
adjustment records a change point, so the next recalculation run replays from its date.
The ORM writes the same records as every other change (:mod:`ratingdb.db.changes`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from ratingdb.db.changes import record_change
from ratingdb.db.models import RatingAdjustment, Rechenmodul
from ratingdb.errors import InputError, NotFound, RatingdbError
from ratingdb.i18n import _
from ratingdb.names import control_character
from ratingdb.plausibility import check_date

#: before every version: a new oldest version changes the rules of everything before it
BEGINNING = date(1, 1, 1)
#: the width of ``rechenmodule.version`` (ratingdb/db/models.py)
VERSION_WIDTH = 30


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One line of the timeline: a version (``kind`` "rechenmodul") or an adjustment."""

    day: date
    kind: str
    line: str


def timeline(session: Session) -> list[TimelineEntry]:
    """Every version in order of its valid-from date, with the rating adjustments at their
    dates (an adjustment dated d runs after the tournaments ending on d, so it comes before
    a version valid from d)."""
    entries = [
        TimelineEntry(
            r.valid_from,
            "rechenmodul",
            f"{r.valid_from}  {r.family:11} {r.version:11} {r.description}",
        )
        for r in session.scalars(select(Rechenmodul))
    ]
    entries += [
        TimelineEntry(
            a.effective_on,
            "adjustment",
            f"{a.effective_on}  {'adjustment':11} {a.formula} "
            f"({'index +1' if a.raises_index else 'index kept'}) {a.name}",
        )
        for a in session.scalars(select(RatingAdjustment))
    ]
    return sorted(entries, key=lambda e: (e.day, e.kind == "rechenmodul"))


def find_rechenmodul(session: Session, version: str) -> Rechenmodul:
    """The stored version named ``version`` (of any family)."""
    row = session.scalars(select(Rechenmodul).where(Rechenmodul.version == version)).first()
    if row is None:
        raise NotFound(_("no Rechenmodul version %(version)r") % {"version": version})
    return row


def _base_parameters(
    session: Session, family: str, start: date, base: str | None
) -> dict[str, Any]:
    if base:
        query = select(Rechenmodul.parameters).where(
            Rechenmodul.version == base, Rechenmodul.family == family
        )
    else:
        query = (
            select(Rechenmodul.parameters)
            .where(Rechenmodul.valid_from < start, Rechenmodul.family == family)
            .order_by(Rechenmodul.valid_from.desc())
            .limit(1)
        )
    found = session.scalars(query).first()
    if found is None and base:
        raise InputError(
            "--base",
            _("no %(family)s Rechenmodul version %(base)r") % {"family": family, "base": base},
        )
    return dict(found) if found else {}


def _check_version(version: str) -> None:
    """A version name ``rechenmodul show`` and the timeline can name: 1 to 30 characters,
    no control character, no blank at either end."""
    if not version.strip():
        raise InputError("--version", _("a version needs a name"))
    if len(version) > VERSION_WIDTH:
        raise InputError(
            "--version",
            _("a version name has at most %(most)d characters, not %(n)d")
            % {"most": VERSION_WIDTH, "n": len(version)},
        )
    if version != version.strip() or control_character(version) is not None:
        raise InputError("--version", _("not a version name: %(name)r") % {"name": version})


def add_rechenmodul(
    session: Session,
    *,
    family: str,
    version: str,
    valid_from: date,
    parameters: dict[str, Any] | None = None,
    base: str | None = None,
    changes: dict[str, Any] | None = None,
    description: str = "",
    actor: str = "cli",
) -> date:
    """Add ``version`` of ``family`` valid from ``valid_from``; returns the change point.

    The parameters are ``parameters`` (all of them), else those of version ``base``, else
    those of the version valid the day before, then ``changes`` applied; the family's
    parameter class checks them (an InputError at ``parameters``)."""
    from ratingdb.rules import get_family

    try:
        rules = get_family(family)
    except KeyError as err:
        raise InputError("", str(err.args[0])) from None
    params = dict(parameters) if parameters is not None else None
    if params is None:
        params = _base_parameters(session, family, valid_from, base)
    params.update(changes or {})
    try:
        checked = rules.parameters.from_dict(params).to_dict()
    except ValueError as err:
        raise InputError("parameters", str(err)) from None
    except RatingdbError as err:
        raise err.with_context("parameters") from None
    _check_version(version)
    check_date(valid_from, "--valid-from")  # 1900 rated a century with it, 9999 nothing
    clash = session.scalars(
        select(Rechenmodul.id).where(
            or_(
                (Rechenmodul.family == family) & (Rechenmodul.version == version),
                Rechenmodul.valid_from == valid_from,
            )
        )
    ).first()
    if clash is not None:
        raise InputError(
            "", f"a Rechenmodul {family} {version} or one valid from {valid_from} exists already"
        )
    first = session.scalar(select(func.min(Rechenmodul.valid_from)))
    session.add(
        Rechenmodul(
            family=family,
            version=version,
            valid_from=valid_from,
            parameters=checked,
            description=description,
        )
    )
    # tournaments before the first version are evaluated with the oldest one: a new
    # oldest version therefore changes the rules for everything before it as well
    since = BEGINNING if first is None or valid_from < first else valid_from
    record_change(
        session,
        "rechenmodul",
        since,
        actor=actor,
        action="add",
        entity="rechenmodul",
        entity_id=f"{family}/{version}",
    )
    session.flush()
    return since


def add_adjustment(
    session: Session,
    *,
    day: date,
    formula: str,
    name: str,
    raises_index: bool = True,
    actor: str = "cli",
) -> None:
    """A rating conversion of every stored rating on ``day`` (WO Anhang 4)."""
    from ratingdb.rules.adjustments import FORMULAS

    if formula not in FORMULAS:
        raise InputError(
            "",
            _("unknown formula %(formula)r (known: %(known)s)")
            % {"formula": formula, "known": ", ".join(FORMULAS)},
        )
    check_date(day, "--date")
    clash = session.scalars(
        select(RatingAdjustment.id).where(
            RatingAdjustment.effective_on == day, RatingAdjustment.formula == formula
        )
    ).first()
    if clash is not None:
        raise InputError(
            "",
            _("adjustment %(formula)s on %(day)s exists already")
            % {"formula": formula, "day": day},
        )
    session.add(
        RatingAdjustment(name=name, effective_on=day, formula=formula, raises_index=raises_index)
    )
    record_change(
        session,
        "adjustment",
        day,
        actor=actor,
        action="add",
        entity="adjustment",
        entity_id=formula,
    )
    session.flush()


def adjustments(session: Session) -> list[RatingAdjustment]:
    """The rating adjustments by date."""
    return list(session.scalars(select(RatingAdjustment).order_by(RatingAdjustment.effective_on)))
