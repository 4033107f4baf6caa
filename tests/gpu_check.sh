#!/bin/sh
# gpu_check.sh - on a machine with a CUDA device: -d gpu gives byte-identical
# results to -d cpu on every dataset of DATA (default ../shared/data):
# the model and .ik files of `train -k anne`, the rows `ikmap` maps (cells)
# and predict's output. Needs only sh, xz and the built programs (no
# Python), so it runs on a device machine from carried binaries.
#
# Usage: sh tests/gpu_check.sh [DATA]   (from the repository root)
# Prints one SAME or DIFFERENT line per dataset; exits 1 if any differs or
# fails, 0 when all are the same. Without a usable GPU it prints a SKIPPED
# line and exits 0 having checked nothing.
data=${1:-../shared/data}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

if ! ./tools/ikmap -d gpu "$work/none.ik" 2>"$work/why" </dev/null; then
	if grep -q '^ERROR: -d gpu:' "$work/why"; then
		echo "SKIPPED: $(sed 's/^ERROR: //' "$work/why") (gpu_check.sh checked nothing)"
		exit 0
	fi
fi

# The training file of a dataset folder: *.train, else *.all, else the first.
training_file() {
	for f in "$1"/*.train.xz "$1"/*.all.xz "$1"/*.xz; do
		test -f "$f" && { echo "$f"; return; }
	done
}

# The file to map and predict: *.test when there is one, else the training file.
test_file() {
	for f in "$1"/*.test.xz; do
		test -f "$f" && { echo "$f"; return; }
	done
	training_file "$1"
}

status=0
for dir in "$data"/*/; do
	name=$(basename "$dir")
	train_xz=$(training_file "$dir")
	test -n "$train_xz" || continue
	xz -dc "$train_xz" >"$work/train" || { status=1; continue; }
	xz -dc "$(test_file "$dir")" >"$work/test" || { status=1; continue; }
	same=1
	for device in cpu gpu; do
		mkdir -p "$work/$device"
		(cd "$work/$device" && "$OLDPWD/train" -q -k anne -d $device ../train m) \
			&& ./tools/ikmap -d $device "$work/$device/m.ik" <"$work/test" >"$work/$device/mapped" \
			&& ./predict -d $device "$work/test" "$work/$device/m" "$work/$device/out" >/dev/null \
			|| { echo "FAILED: $name -d $device"; same=0; }
	done
	for f in m m.ik mapped out; do
		cmp -s "$work/cpu/$f" "$work/gpu/$f" || { echo "  $name: $f differs"; same=0; }
	done
	if [ $same = 1 ]; then
		echo "SAME: $name ($(wc -l <"$work/train") training rows, $(wc -l <"$work/test") mapped)"
	else
		echo "DIFFERENT: $name"
		status=1
	fi
	rm -rf "$work/cpu" "$work/gpu"
done
exit $status
