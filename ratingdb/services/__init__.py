"""The service layer: every operation of ratingdb once, for every front end.

The command line (``ratingdb.commands``) and the web (``ratingdb.web``) parse their
input, call one function here and present what it returns; they catch nothing. Errors are
the classes of :mod:`ratingdb.errors`, mapped once to exit codes and HTTP statuses by
:mod:`ratingdb.services.outcomes`. Writes run in the caller's transaction (a what-if rolls
it back), except :func:`ratingdb.services.database.write`, which opens and commits one.

* :mod:`~ratingdb.services.database`: opening the database, transactions, documents;
* :mod:`~ratingdb.services.permissions`: who may change what (WO 6.2, 6.3);
* :mod:`~ratingdb.services.tournaments`: submit, correct, delete (JSON or TRF), what-if;
* :mod:`~ratingdb.services.rechenmodule`: Rechenmodule and rating adjustments;
* :mod:`~ratingdb.services.imports`: TRF files and the DSB member list;
* :mod:`~ratingdb.services.recalc`: running a recalculation.
"""
