#!/bin/sh
# A demo model recipe, from scratch, as one replayable sequence (tools/twin/README.md: what its
# run measured and how long each command took).
#
#   tools/twin/train_demo.sh RUN OUT     # RUN: the run's folder (state.pt, logs); OUT: the model folder
#
# Rerunning it resumes: every training command continues from its run's state.pt (the
# position-table step is skipped once RUN/state.pt exists; later phases from RUN/reasoned,
# RUN/varied, RUN/curriculum, RUN/tower and RUN/missing). One trainer thread per command; the
# vision curriculum (phase 6) runs beside phases 1-5, which it does not depend on, on the
# second core.
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
CURRICULUM="$(dirname "$0")/vision_curriculum.py"
echo "start $(date -u +%FT%TZ)" >> "$RUN/times.txt"
timed() {  # run a command, append its wall and CPU seconds (user + sys) to RUN/times.txt
  name=$1
  shift
  /usr/bin/time -f "$name wall_s %e cpu_s %U+%S" -a -o "$RUN/times.txt" "$@"
}
COMMON="--run $RUN --seed 17 --threads 1"
# 6. (issue 32, started first: it needs no other phase) The vision tower alone, taught shape by a
#    silhouette-to-colour curriculum on crops of varied-world scenes (vision_curriculum.py; 53 min
#    alone on a quiet machine, two processes drawing the scenes): RUN/curriculum/state.pt.
timed curriculum nice -n 5 $PY "$CURRICULUM" --out "$RUN/curriculum" --workers 2 \
  --phases sil,blend,mix,mix,mix,mix --steps 2500,2500,2000,6000,4000,3000 \
  --lrs 0.003,0.003,0.002,0.002,0.001,0.0005 > "$RUN/curriculum.out" 2>&1 &
CURRICULUM_PID=$!
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
#    scenes as good as C, on hand-drawn ones near D): RUN/CD, the demo model until phase 9.
VARIED="--run $RUN/varied --seed 17 --threads 1 --scene-offset 2000000 --varied 0.5 --steps 600 --lr 0.001 --content-weight 3 --near-misses --favour-three-objects --reasoned-exists --yes-no-weight 3"
if [ ! -d "$RUN/D" ]; then
  timed varied $PY "$TRAIN" $VARIED --init-from "$RUN/C"
  timed export-d $PY "$TRAIN" $VARIED --export "$RUN/D"
fi
[ -d "$RUN/CD" ] || timed average-cd $PY "$AVERAGE" "$RUN/C" "$RUN/D" "$RUN/CD"
wait "$CURRICULUM_PID"
# 7. (issue 32) RUN/CD's language model with phase 6's tower and probes, the tower alone on
#    whole varied-world scenes for 400 steps, so that it meets the language model's layout
#    before the joint steps.
T="--seed 17 --threads 1"
if [ ! -d "$RUN/E" ]; then
  timed tower $PY "$TRAIN" --run "$RUN/tower" $T --init-from "$RUN/CD" \
    --init-vision-from "$RUN/curriculum/state.pt" --vision-only --varied 1.0 --lr 0.0003 --steps 400 --batch 16
  # 8. (issue 32) 3,000 joint steps in one cosine, half the scenes from the varied world, as phase
  #    5 otherwise (the cut at 1,500 is how the shipped run went: it resumed there): RUN/E.
  E="--varied 0.5 --steps 3000 --lr 0.001 --content-weight 3 --near-misses --favour-three-objects --reasoned-exists --yes-no-weight 3 --scene-offset 3000000"
  timed joint-e1 $PY "$TRAIN" --run "$RUN/tower" $T $E --stop-at-step 1500
  timed joint-e2 $PY "$TRAIN" --run "$RUN/tower" $T $E
  timed export-e $PY "$TRAIN" --run "$RUN/tower" $T $E --export "$RUN/E"
fi
# 9. (issue 32) From RUN/E, 600 steps with " missing" weighted 3x: without it an unsure model
#    names a colour for an absent shape ("The star is yellow, so no."). Fresh probes, so no
#    auxiliary loss. OUT is 0.3 E + 0.7 F (README "The demo model": held-out "Is there" as F,
#    hand-drawn pictures as the mean of the two).
F="--run $RUN/missing $T --varied 0.5 --steps 600 --lr 0.0005 --content-weight 3 --near-misses --favour-three-objects --reasoned-exists --yes-no-weight 3 --missing-weight 3 --scene-offset 4000000 --aux-weight 0"
if [ ! -d "$RUN/F" ]; then
  timed missing $PY "$TRAIN" $F --init-from "$RUN/E"
  timed export-f $PY "$TRAIN" $F --export "$RUN/F"
fi
timed average-ef $PY "$AVERAGE" "$RUN/E" "$RUN/F" "$OUT" 0.3
echo "end $(date -u +%FT%TZ)" >> "$RUN/times.txt"
