"""The numba platform every rules kernel stands on: compile options and the cache stamp
(:mod:`.jit`), bit sets (:mod:`.bits`), the counter-based generator (:mod:`.rng`), record
access from Python (:mod:`.records`) and named scratch layouts (:mod:`.layout`).

The bottom floor of the core: it imports nothing else of the project."""
