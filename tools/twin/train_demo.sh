#!/bin/sh
# A demo model recipe, from scratch, as one replayable sequence (tools/twin/README.md: what its
# run measured and how long each command took).
#
#   tools/twin/train_demo.sh RUN OUT     # RUN: the run's folder (state.pt, logs); OUT: the model folder
#
# Rerunning it resumes: every training command continues from RUN/state.pt (the position-table
# step is skipped once the state exists; the last phase from RUN/reasoned/state.pt). One trainer
# thread.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 RUN OUT" >&2
  exit 2
fi
RUN=$1
OUT=$2
PY=/usr/bin/python3
# One thread in all: torch's own (--threads 1) and the BLAS library's, whose idle worker would
# otherwise spin beside the trainer (it doubled the CPU seconds of a step, for no speed).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
TRAIN="$(dirname "$0")/train.py"
AVERAGE="$(dirname "$0")/average_checkpoints.py"
mkdir -p "$RUN"
echo "start $(date -u +%FT%TZ)" >> "$RUN/times.txt"
timed() {  # run a command, append its wall and CPU seconds (user + sys) to RUN/times.txt
  name=$1
  shift
  /usr/bin/time -f "$name wall_s %e cpu_s %U+%S" -a -o "$RUN/times.txt" "$@"
}
COMMON="--run $RUN --seed 17 --threads 1"
JOINT="--steps 3600 --lr 0.004 --content-weight 3 --near-misses --favour-three-objects"

# 1. The vision tower's learned position table x8 at initialisation: otherwise it stays far
#    smaller than the patch embeddings and an object's token forgets where it is (README).
[ -f "$RUN/state.pt" ] || timed scale $PY "$TRAIN" $COMMON --scale-vision-positions 8
# 2. The vision tower and its probes alone (shape / colour / size / cell): ~0.5 s a step.
timed vision $PY "$TRAIN" $COMMON --vision-only --steps 400 --batch 32 --lr 0.006
# 3. Joint steps (captions and Q&A through the chat template, MTP, probes), exporting step 3150
#    and step 3600; RUN/AB is their mean (the demo model until issue 32).
if [ ! -d "$RUN/A" ]; then
  timed joint-a $PY "$TRAIN" $COMMON $JOINT --stop-at-step 3150
  timed export-a $PY "$TRAIN" $COMMON $JOINT --export "$RUN/A"
fi
timed joint-b $PY "$TRAIN" $COMMON $JOINT
timed export-b $PY "$TRAIN" $COMMON $JOINT --export "$RUN/B"
[ -d "$RUN/AB" ] || timed average $PY "$AVERAGE" "$RUN/A" "$RUN/B" "$RUN/AB"
# 4. (issue 32) From RUN/AB, 900 joint steps on scenes phase 3 did not see, "Is there ...?" answered
#    by looking first ("The square is blue, so no.": shapes_world.exists_answer; its yes / no
#    weighted 3x), at a quarter of phase 3's learning rate: RUN/C.
REASONED="--run $RUN/reasoned --seed 17 --threads 1 --scene-offset 1000000 --steps 900 --lr 0.001 --content-weight 3 --near-misses --favour-three-objects --reasoned-exists --yes-no-weight 3"
if [ ! -d "$RUN/C" ]; then
  timed reasoned $PY "$TRAIN" $REASONED --init-from "$RUN/AB"
  timed export-c $PY "$TRAIN" $REASONED --export "$RUN/C"
fi
# 5. (issue 32) From RUN/C, 600 steps as phase 4 with half the scenes from the varied world
#    (varied_world.py: drawn as a person would): RUN/D. OUT is the mean of C and D (on held-out
#    scenes as good as C, on hand-drawn ones near D: README "The demo model").
VARIED="--run $RUN/varied --seed 17 --threads 1 --scene-offset 2000000 --varied 0.5 --steps 600 --lr 0.001 --content-weight 3 --near-misses --favour-three-objects --reasoned-exists --yes-no-weight 3"
if [ ! -d "$RUN/D" ]; then
  timed varied $PY "$TRAIN" $VARIED --init-from "$RUN/C"
  timed export-d $PY "$TRAIN" $VARIED --export "$RUN/D"
fi
timed average-cd $PY "$AVERAGE" "$RUN/C" "$RUN/D" "$OUT"
echo "end $(date -u +%FT%TZ)" >> "$RUN/times.txt"
