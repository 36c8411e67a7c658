"""The game contract: what a game declares (:class:`~.game.GameDef` with its parts
:class:`~.game.Hooks`, :class:`~.game.StateDef`, :class:`~.game.Bots`, :class:`~.game.Views`,
:class:`~.game.Ending`, :class:`~.game.Docs`),
the batch loops written once over its hooks (:mod:`.loops`), the option declarations
(:mod:`.options`), saved-state validation (:mod:`.validation`), observation encoders
(:mod:`.encoders`), SVG drawing helpers (:mod:`.svg`) and the catalog of installed games
(:mod:`.catalog`).

Imports only :mod:`tabletop_core.kernel`."""
