#!/usr/bin/env bash
# bench/mpi_scaling.sh - train-mpi against train (issue 24's benchmark):
# wall time of `train -m 1`, `train -m 2` and `train-mpi` on 1 and 2
# processes of one thread each (-s 2, the same file), with Open MPI's
# default transports and with `--mca pml ob1` (which skips probing for
# UCX and other fabrics at start-up; see the README's MPI section), run
# side by side: each round runs every command once, in the same order,
# and each time is the median of REPEAT rounds. Then, from one run of
# each train-mpi command with TRAIN_MPI_STATS=1, where each process's
# time went (MPI_Init and its CPU time, reading, training, the reader
# thread that reads during MPI_Init, MPI_Finalize) and the bytes it sent.
#
# Usage (from the repository root, after `make all mpi`):
#   bash bench/mpi_scaling.sh [ROWS]
#   BASE_MPI=/path/to/other/train-mpi bash bench/mpi_scaling.sh [ROWS]
# BASE_MPI: another build of train-mpi (e.g. the commit before a change)
# run in the same rounds, with both transports, and in the phase table.
# The data: ijcnn1 (LIBLINEAR_IK_DATA, default ../shared/data) repeated to
# ROWS rows (default 500000). Times include reading the file, as a user
# sees them. The load average is printed before and after: on a loaded
# machine the times say little about scaling.
set -euo pipefail

ROWS=${1:-500000}
REPEAT=${REPEAT:-5}
DATA=${LIBLINEAR_IK_DATA:-../shared/data}
MPIRUN=${MPIRUN:-mpirun}
ROOT=$(pwd)
MPI_OPTS=()
FAST=()
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
	MPI_OPTS+=(--oversubscribe)
	[ "$(id -u)" = 0 ] && MPI_OPTS+=(--allow-run-as-root)
	FAST=(--mca pml ob1)
fi
TMP=$(mktemp -d /tmp/mpi-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

xz -dc "$DATA/ijcnn1/ijcnn1.train.xz" >"$TMP/one"
: >"$TMP/data"
while [ "$(wc -l <"$TMP/data")" -lt "$ROWS" ]; do
	cat "$TMP/one" >>"$TMP/data"
done
head -n "$ROWS" "$TMP/data" >"$TMP/bench" && rm "$TMP/data"
echo "data: ijcnn1 repeated, $(wc -l <"$TMP/bench") rows; $(nproc) cores; load before: $(cut -d ' ' -f 1-3 /proc/loadavg)"

names=("train -m 1" "train -m 2" "train-mpi -n 1" "train-mpi -n 2" \
	"train-mpi -n 1 (pml ob1)" "train-mpi -n 2 (pml ob1)")
BASE_MPI=${BASE_MPI:-}
if [ -n "$BASE_MPI" ]; then
	names+=("BASE_MPI -n 1 (pml ob1)" "BASE_MPI -n 2 (pml ob1)" "BASE_MPI -n 1" "BASE_MPI -n 2")
	echo "BASE_MPI: $BASE_MPI"
fi
run_case() {	# run_case K: the K-th command of names, output discarded
	case $1 in
	0) "$ROOT/train" -q -s 2 -m 1 "$TMP/bench" "$TMP/m" ;;
	1) "$ROOT/train" -q -s 2 -m 2 "$TMP/bench" "$TMP/m" ;;
	2) "$MPIRUN" "${MPI_OPTS[@]}" -n 1 "$ROOT/train-mpi" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	3) "$MPIRUN" "${MPI_OPTS[@]}" -n 2 "$ROOT/train-mpi" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	4) "$MPIRUN" "${MPI_OPTS[@]}" "${FAST[@]}" -n 1 "$ROOT/train-mpi" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	5) "$MPIRUN" "${MPI_OPTS[@]}" "${FAST[@]}" -n 2 "$ROOT/train-mpi" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	6) "$MPIRUN" "${MPI_OPTS[@]}" "${FAST[@]}" -n 1 "$BASE_MPI" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	7) "$MPIRUN" "${MPI_OPTS[@]}" "${FAST[@]}" -n 2 "$BASE_MPI" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	8) "$MPIRUN" "${MPI_OPTS[@]}" -n 1 "$BASE_MPI" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	9) "$MPIRUN" "${MPI_OPTS[@]}" -n 2 "$BASE_MPI" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" ;;
	esac >/dev/null 2>&1
}
declare -A times
for round in $(seq 1 "$REPEAT"); do
	for k in "${!names[@]}"; do
		start=$(date +%s.%N)
		run_case "$k"
		end=$(date +%s.%N)
		times[$k]+="$(echo "$end - $start" | bc) "
	done
done
median() {	# median "T1 T2 ...": the middle value (the upper of two)
	printf '%s\n' $1 | sort -n | sed -n "$(( ($(printf '%s\n' $1 | wc -l) + 2) / 2 ))p"
}
t1=$(median "${times[0]}")
for k in "${!names[@]}"; do
	tk=$(median "${times[$k]}")
	printf '%-26s %6.2f s  (%.2fx train -m 1)   rounds: %s\n' "${names[$k]}" "$tk" \
		"$(echo "$t1 / $tk" | bc -l)" "${times[$k]}"
done
pairs=("2 3" "4 5")
[ -n "$BASE_MPI" ] && pairs+=("8 9" "6 7" "8 2" "9 3" "6 4" "7 5")
for pair in "${pairs[@]}"; do
	set -- $pair
	printf '%s vs %s: %.2fx\n' "${names[$2]}" "${names[$1]}" \
		"$(echo "$(median "${times[$1]}") / $(median "${times[$2]}")" | bc -l)"
done
echo "load after: $(cut -d ' ' -f 1-3 /proc/loadavg)"
iters=$("$MPIRUN" "${MPI_OPTS[@]}" -n 2 "$ROOT/train-mpi" -m 1 -s 2 "$TMP/bench" "$TMP/m" | grep -c '^iter')
echo "Newton iterations: $iters; per process (TRAIN_MPI_STATS=1, one run each):"
stats() {	# stats BINARY "MCA OPTIONS": one run of BINARY on 1, then 2 processes
	for n in 1 2; do
		echo "$1 -n $n ${2:+($2)}"
		# shellcheck disable=SC2086
		TRAIN_MPI_STATS=1 "$MPIRUN" "${MPI_OPTS[@]}" $2 -x TRAIN_MPI_STATS -n "$n" \
			"$1" -q -m 1 -s 2 "$TMP/bench" "$TMP/m" 2>&1 | grep '^train-mpi: rank'
	done
}
stats "$ROOT/train-mpi" ""
stats "$ROOT/train-mpi" "${FAST[*]}"
if [ -n "$BASE_MPI" ]; then
	stats "$BASE_MPI" ""
	stats "$BASE_MPI" "${FAST[*]}"
fi
echo "load at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
