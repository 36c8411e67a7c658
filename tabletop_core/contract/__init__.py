"""The game contract: what a game declares (:class:`~.game.GameDef`, :class:`~.game.Hooks`),
the batch loops written once over its hooks (:mod:`.loops`), the option declarations
(:mod:`.options`), saved-state validation (:mod:`.validation`), observation encoders
(:mod:`.encoders`), SVG drawing helpers (:mod:`.svg`) and the catalog of installed games
(:mod:`.catalog`).

Imports only :mod:`tabletop_core.kernel`."""
