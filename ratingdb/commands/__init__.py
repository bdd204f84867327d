"""Sub-commands of the ``ratingdb`` command line, one module per group."""
