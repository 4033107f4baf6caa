#!/bin/sh
# demo.sh - `make demo`: generate two small 2-D datasets, train on each with
# ./train and score the test half with ./predict.
# Needs ./train and ./predict (built by `make`) and a C compiler ($CC or cc).
# Everything it writes goes to a temporary folder that is removed at exit.
set -eu

cd "$(dirname "$0")/.."
for exe in ./train ./predict; do
	if [ ! -x "$exe" ]; then
		echo "demo: $exe is missing; run make first" >&2
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/liblinear-ik-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$work/make_data" tests/demo/make_data.c -lm
"$work/make_data" "$work"

run() { # run NAME SOLVER TITLE
	name=$1 solver=$2 title=$3
	echo "== $name, $title (train -s $solver -B 1)"
	./train -q -s "$solver" -B 1 "$work/$name.train" "$work/$name.s$solver.model"
	printf '   test set: '
	./predict "$work/$name.test" "$work/$name.s$solver.model" "$work/$name.s$solver.out"
}

echo "Demo data: 1000 training and 1000 test points in 2-D per set, made by tests/demo/make_data.c"
echo
echo "blobs: two Gaussian clouds that a line separates well."
run blobs 1 "L2-loss SVM, dual"
run blobs 0 "logistic regression"
echo "   weights (feature 1, feature 2, bias) of the logistic model:"
sed -n '/^w$/,$p' "$work/blobs.s0.model" | sed '1d; s/^/     /'
echo "   first three test points with -b 1 (label, then P(+1) P(-1)):"
./predict -q -b 1 "$work/blobs.test" "$work/blobs.s0.model" "$work/blobs.prob"
sed -n '1,4p' "$work/blobs.prob" | sed 's/^/     /'
echo
echo "density: a small dense cloud (+1) inside a thin uniform spread (-1)."
echo "A line can only cut off the corner that holds the cloud, so the thin"
echo "class's points in that corner are always misclassified. The Isolation"
echo "Kernel (-k, not yet in LIBLINEAR-IK) adapts to local density and is"
echo "meant for exactly this kind of data."
run density 1 "L2-loss SVM, dual"
run density 0 "logistic regression"
