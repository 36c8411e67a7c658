"""What users run over the envs: bot matches (:mod:`.arena`), ratings (:mod:`.ratings`),
soak runs (:mod:`.soak`), throughput benchmarks (:mod:`.bench`), replays and pictures
(:mod:`.replay`), terminal play (:mod:`.play`), the shared conformance test
(:mod:`.testing`), JSON output (:mod:`.jsonutil`) and progress bars (:mod:`.progress`).

Imports envs, agents, the contract and the kernel layer."""
