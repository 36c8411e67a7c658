#!/bin/bash
# The device-machine probes of issue 34 (docs/training.md, "On a CPU with AMX"), each one
# call on a 16-core VM with AMX and a GPU, jobs on disjoint cores at once.
#
# bash benchmarks/amx/device_probe.sh variants
#   cores 2,3: the 5-minute quality run at the defaults (2 threads, bf16);
#   cores 4-7: two 1.5-minute --device cuda runs, minibatch 1024 and 4096;
#   cores 0,1: update_ops.py, then train_variant.py base / xTg / relu / base@4096 / gTc
#              and base with OMP_WAIT_POLICY=ACTIVE, one after another.
# bash benchmarks/amx/device_probe.sh minibatches
#   cores 0,1 / 2,3 / 4,5: train_variant.py base at minibatches 1024,4096,1024,4096 /
#              4096,1024,4096,1024 / 2048,1024,2048 (20 s windows);
#   cores 6,7: profile_update.py 1024, then 4096.
# bash benchmarks/amx/device_probe.sh ab
#   one job at a time: cores 0,1: benchmarks/train.py (--no-sb3 --seconds 20 --threads 2)
#              from the tree before (.base/: `git archive HEAD`, carried) and this tree,
#              alternating, two rounds; this tree at minibatch 2048; fused_parts.py 1024;
#   cores 0-3: one 1.5-minute --device cuda run at the defaults (--threads 4).
# bash benchmarks/amx/device_probe.sh drift
#   cores 0,1, one job at a time: fused_parts.py 1024 14 (a line per update), then
#              benchmarks/train.py (--no-sb3 --seconds 20 --threads 2) twice, then once at
#              --minibatch 2048.
# bash benchmarks/amx/device_probe.sh gap
#   cores 0,1, one job at a time, two rounds: fused_parts.py 1024 6 --plain, then with
#              --matmul-first, then with --warmup 1, then --bench-loop 12 (train.py's own
#              measurement, each update timed): which of the harness's differences makes the
#              update slower inside train.py's window (docs/training.md, "On a CPU with AMX").
# Results go to $OUT (JSON lines and the runs' summaries). The machine has no network:
# gymnasium, pettingzoo, Farama-Notifications and openskill travel as wheels in .whl/
# (pip download --no-deps ... -d .whl, see the device tool's README), and the project
# itself is installed from the working tree with --no-deps (its entry points name the games).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/probe_out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
python3 -m pip install -q --no-deps --no-build-isolation --no-index --target /tmp/site . || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
grep -m1 "model name" /proc/cpuinfo; nproc
grep -o 'amx_bf16\|avx512_bf16\|avx512f' /proc/cpuinfo | sort | uniq -c
python3 -c "import torch, numba; print(torch.__version__, numba.__version__, torch.cuda.is_available())"
export NUMBA_NUM_THREADS=2
if [ "${1:-variants}" = gap ]; then
  for r in 1 2; do
    for opt in "" "--matmul-first" "--warmup 1"; do
      taskset -c 0,1 python3 benchmarks/amx/fused_parts.py 1024 6 --plain $opt | tee -a "$OUT/gap.jsonl"
    done
    taskset -c 0,1 python3 benchmarks/amx/fused_parts.py 1024 --bench-loop 12 | tee -a "$OUT/gap.jsonl"
  done
  exit 0
fi
if [ "${1:-variants}" = drift ]; then
  taskset -c 0,1 python3 benchmarks/amx/fused_parts.py 1024 14 | tee "$OUT/drift.jsonl"
  for r in 1 2; do
    taskset -c 0,1 python3 benchmarks/train.py --no-sb3 --seconds 20 --threads 2 | tee -a "$OUT/train.jsonl"
  done
  taskset -c 0,1 python3 benchmarks/train.py --no-sb3 --seconds 20 --threads 2 --minibatch 2048 \
    | tee -a "$OUT/train.jsonl"
  exit 0
fi
if [ "${1:-variants}" = ab ]; then
  python3 -m pip install -q --no-deps --no-build-isolation --no-index --target /tmp/old .base || exit 1
  new="env PYTHONPATH=/tmp/site:$PWD taskset -c 0,1 python3"
  old="env PYTHONPATH=/tmp/old:/tmp/site taskset -c 0,1 python3"
  bench="--no-sb3 --seconds 20 --threads 2"
  for r in 1 2; do
    $old .base/benchmarks/train.py $bench | sed 's/^{/{"tree": "before", /' | tee -a "$OUT/ab.jsonl"
    $new benchmarks/train.py $bench | sed 's/^{/{"tree": "after", /' | tee -a "$OUT/ab.jsonl"
  done
  $new benchmarks/train.py $bench --minibatch 2048 | sed 's/^{/{"tree": "after", /' | tee -a "$OUT/ab.jsonl"
  $new benchmarks/amx/fused_parts.py 1024 3 | tee "$OUT/fused_parts.jsonl"
  NUMBA_NUM_THREADS=4 taskset -c 0-3 python3 -m tabletop_core.cli train thegame --players 2 --seed 0 \
    --minutes 1.5 --device cuda --threads 4 --out /tmp/g > "$OUT/cuda.log" 2>&1
  cp /tmp/g/summary.json "$OUT/cuda_summary.json"; tail -3 "$OUT/cuda.log"
  exit 0
fi
if [ "${1:-variants}" = minibatches ]; then
  python3 -c "import tabletop_core.train.trainer"  # compile the kernels once, into the cache
  run() { for m in "${@:2}"; do taskset -c "$1" python3 benchmarks/amx/train_variant.py base 20 "$m"; done; }
  run 0,1 1024 4096 1024 4096 > "$OUT/mb01.jsonl" &
  run 2,3 4096 1024 4096 1024 > "$OUT/mb23.jsonl" &
  run 4,5 2048 1024 2048 > "$OUT/mb45.jsonl" &
  ( taskset -c 6,7 python3 benchmarks/amx/profile_update.py 1024
    taskset -c 6,7 python3 benchmarks/amx/profile_update.py 4096 ) > "$OUT/profile.txt" 2>&1 &
  wait
  exit 0
fi
T="python3 -m tabletop_core.cli train thegame --players 2 --seed 0"
( taskset -c 2,3 $T --minutes 5 --threads 2 --out /tmp/q > "$OUT/q.log" 2>&1
  cp /tmp/q/summary.json "$OUT/q_summary.json"; grep '"eval"' /tmp/q/log.jsonl > "$OUT/q_evals.jsonl" ) &
( export NUMBA_NUM_THREADS=4
  taskset -c 4-7 $T --minutes 1.5 --device cuda --threads 4 --minibatch 1024 --out /tmp/g1 > "$OUT/g.log" 2>&1
  taskset -c 4-7 $T --minutes 1.5 --device cuda --threads 4 --minibatch 4096 --out /tmp/g2 >> "$OUT/g.log" 2>&1 ) &
taskset -c 0,1 python3 benchmarks/amx/update_ops.py 2 > "$OUT/update_ops.jsonl"
for v in "base 25 -" "xTg 25 -" "relu 25 -" "base 25 4096" "gTc 25 -"; do
  taskset -c 0,1 python3 benchmarks/amx/train_variant.py $v >> "$OUT/train_variant.jsonl"
done
OMP_WAIT_POLICY=ACTIVE taskset -c 0,1 python3 benchmarks/amx/train_variant.py base 25 - \
  | sed 's/"variant": "base"/"variant": "omp_wait_policy_active"/' >> "$OUT/train_variant.jsonl"
wait
