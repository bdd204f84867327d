"""The DSB's versions of the DWZ before 2026 as parameter sets of the ``dwz-classic`` family.

Each version is the classic rules (:mod:`ratingdb.rules.dwz_classic`) with switches set;
the numbers and their sources are in docs/rules-dwz-classic.md ("Versions") and the dates
in docs/engine.md ("The DSB timeline"):

* ``dwz-classic``: the text of the 1990s (``spec/dwz-classic-rules.txt``): E of 4.9.2,
  two-digit tables, Sonderwertung 4.7.6 (R_p >= R_o + 200), a DWZ expires after 5 years
  (6.1.1), foreign ratings at index 0 (4.9.3).
* ``dwz-elobase``: the classic text as the DSB's program ELOBASE computed it until the WO
  2002: the text's rules, but P(D) from the normal distribution in thousandths, not the
  text's two-digit table: the W_e that ELOBASE published for tournaments of 1995-2002 are
  thousandths that only this table gives (docs/rules-dwz-classic.md, "Versions"). The DSB
  timeline's oldest version; ``dwz-classic`` stays available as the text states it.
* ``dwz-wo2002``: the Wertungsordnung of 9 May 2002 (amended to 2009): as the classic
  text, but "DWZ behalten ihre Gueltigkeit" (no expiry), and P(D) from the normal
  distribution in thousandths, as the W_e that ELOBASE published (2007) show. The 4.7.6
  Sonderwertung is not applied: the DSB introduced a Sonderwertung as new in 2014/2016 and
  no published row shows the 1990s one (a choice, docs/rules-dwz-classic.md).
* ``dwz-2014``: the changes decided 14/15 Feb 2014 as DeWIS applies them: E = E0 * fB +
  SBr, first rating floor 700 + R_i/8 below 800, P(D) from the normal distribution
  (sigma 200 sqrt 2; published three-decimal W_e are attainable only with it), foreign
  ratings at index 6 (WO 2.2.4).
* ``dwz-2016``: ``dwz-2014`` plus the Sonderwertung in force from 1 August 2016: opponents
  of a player whose R_h exceeds R_o by more than 300 (>= 5 games) are rated against R_h.
"""

from __future__ import annotations

from dataclasses import replace

from ratingdb.rules.dwz_classic.params import DwzClassicParameters

CLASSIC = DwzClassicParameters()
ELOBASE = replace(CLASSIC, probability="normal")
WO2002 = replace(ELOBASE, rating_expiry_years=0, sonderwertung="off")
DWZ2014 = replace(
    WO2002,
    e_formula="2014",
    first_rating_floor=800,
    precision="float",
    foreign_rating_index=6,
    unbounded_as_extreme=True,
)
DWZ2016 = replace(DWZ2014, sonderwertung="performance", exceptional_margin=300)

VERSIONS: dict[str, DwzClassicParameters] = {
    "dwz-classic": CLASSIC,
    "dwz-elobase": ELOBASE,
    "dwz-wo2002": WO2002,
    "dwz-2014": DWZ2014,
    "dwz-2016": DWZ2016,
}
