"""The DWZ core shared by every DWZ version (``dwz2026``, ``dwz-classic`` and the DSB's
versions ``dwz-elobase``, ``dwz-wo2002``, ``dwz-2014``, ``dwz-2016``).

* :mod:`.groups`: rated games, age classes, the groups and selections (Auswahl) of WO 3.4;
* :mod:`.arithmetic`: the table and float precisions behind one protocol;
* :mod:`.iteration`: the simultaneous (Jacobi) iteration of WO Anhang 1.1 / classic 4.7.4;
* :mod:`.evaluation`: index handling, matches, remaining players and residual games.

A family adds its tables, K or E, start values, floors and first-rating correction;
the exact solver of W = W_e is :mod:`ratingdb.rules.solver`.
"""
