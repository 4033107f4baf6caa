#!/usr/bin/env bash
# bench/mpi_scaling.sh - train-mpi against train (issue 24's benchmark):
# wall time of `train -m 1`, `train -m 2` and `train-mpi` on 2 processes
# of one thread each (-s 2, the same file), the median of REPEAT runs, and
# the bytes each process sent in combining sums (TRAIN_MPI_STATS=1).
#
# Usage (from the repository root, after `make all mpi`):
#   bash bench/mpi_scaling.sh [ROWS]
# The data: ijcnn1 (LIBLINEAR_IK_DATA, default ../shared/data) repeated to
# ROWS rows (default 500000). Times include reading the file, as a user
# sees them. Run it on a quiet machine with at least 2 free cores: on a
# loaded one the times say nothing about scaling.
set -euo pipefail

ROWS=${1:-500000}
REPEAT=${REPEAT:-3}
DATA=${LIBLINEAR_IK_DATA:-../shared/data}
MPIRUN=${MPIRUN:-mpirun}
ROOT=$(pwd)
MPI_OPTS=()
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
	MPI_OPTS+=(--oversubscribe)
	[ "$(id -u)" = 0 ] && MPI_OPTS+=(--allow-run-as-root)
fi
TMP=$(mktemp -d /tmp/mpi-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

xz -dc "$DATA/ijcnn1/ijcnn1.train.xz" >"$TMP/one"
: >"$TMP/data"
while [ "$(wc -l <"$TMP/data")" -lt "$ROWS" ]; do
	cat "$TMP/one" >>"$TMP/data"
done
head -n "$ROWS" "$TMP/data" >"$TMP/bench" && rm "$TMP/data"
echo "data: ijcnn1 repeated, $(wc -l <"$TMP/bench") rows; load: $(cut -d ' ' -f 1-3 /proc/loadavg)"

median_time() {	# median_time COMMAND...: the median wall time of REPEAT runs, in seconds
	local times=()
	for _ in $(seq 1 "$REPEAT"); do
		local start end
		start=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		end=$(date +%s.%N)
		times+=("$(echo "$end - $start" | bc)")
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((REPEAT + 1) / 2))p"
}

t1=$(median_time "$ROOT/train" -q -s 2 -m 1 "$TMP/bench" "$TMP/m1")
t2=$(median_time "$ROOT/train" -q -s 2 -m 2 "$TMP/bench" "$TMP/m2")
tm=$(median_time "$MPIRUN" "${MPI_OPTS[@]}" -n 2 "$ROOT/train-mpi" -q -m 1 -s 2 "$TMP/bench" "$TMP/mm")
printf 'train -m 1             %6.2f s\n' "$t1"
printf 'train -m 2             %6.2f s  (%.2fx)\n' "$t2" "$(echo "$t1 / $t2" | bc -l)"
printf 'train-mpi -n 2 -m 1    %6.2f s  (%.2fx)\n' "$tm" "$(echo "$t1 / $tm" | bc -l)"
iters=$("$MPIRUN" "${MPI_OPTS[@]}" -n 2 "$ROOT/train-mpi" -m 1 -s 2 "$TMP/bench" "$TMP/mm" | grep -c '^iter')
echo "Newton iterations: $iters; bytes sent in sums, per process:"
TRAIN_MPI_STATS=1 "$MPIRUN" "${MPI_OPTS[@]}" -x TRAIN_MPI_STATS -n 2 "$ROOT/train-mpi" -q -m 1 -s 2 \
	"$TMP/bench" "$TMP/mm" 2>&1 | grep '^train-mpi: rank'
