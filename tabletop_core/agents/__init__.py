"""Agents that act on observations: the numpy MLP policy (:mod:`.policy`), the games'
shipped baselines (:mod:`.baseline`) and what may sit in a seat (:mod:`.seats`).

Imports only the contract and the kernel layer."""
