#!/bin/sh
# demo.sh - `make demo`: what the Isolation Kernel adds to LIBLINEAR, on
# three small 2-D datasets. Each is trained with the same linear SVM,
# once on the raw points and once mapped by the Isolation Kernel (-k),
# and the test half is scored with ./predict.
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

run() { # run NAME KERNEL TITLE
	name=$1 kernel=$2 title=$3
	./train -q -s 1 -B 1 -k "$kernel" "$work/$name.train" "$work/$name.$kernel.model"
	printf '   %-40s' "$title"
	./predict "$work/$name.test" "$work/$name.$kernel.model" "$work/$name.$kernel.out"
}

compare() { # compare NAME
	run "$1" none "plain linear (train -s 1 -B 1):"
	run "$1" anne "Isolation Kernel, aNNE (-k anne):"
	run "$1" iforest "Isolation Kernel, iForest (-k iforest):"
}

echo "Demo data: 1000 training and 1000 test points in 2-D per set, made by tests/demo/make_data.c."
echo "Each set is trained with the same L2-loss linear SVM, on the raw points and then"
echo "mapped by the Isolation Kernel (train -k, default t partitionings of psi cells each)."
echo
echo "checkerboard: points labelled by the colour of their square on a 4x4 board."
echo "No line separates the colours, so a linear model is no better than a coin."
compare checkerboard
echo
echo "density: a small dense cloud (+1) inside a thin uniform spread (-1)."
echo "A line can only cut off the corner that holds the cloud."
compare density
echo
echo "blobs: two Gaussian clouds that a line separates well; the map loses nothing."
compare blobs
echo
model="$work/checkerboard.anne.model"
echo "A -k model is an upstream LIBLINEAR model (here nr_feature = t * psi = $(sed -n 's/^nr_feature //p' "$model"))"
echo "plus one last line naming the partitioning file saved beside it, which predict loads:"
echo "   $(tail -n 1 "$model" | sed "s|$work/||")"
