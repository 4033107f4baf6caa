#!/bin/sh
# bench/auto_vs_anne.sh - issue 28's cost goal for `train -C -k auto`: at most 5x the time of
# `train -C -k anne` on the same data. Runs both, one after the other, at -m 2, on the
# training parts of the shared sets named (default: dna satimage), and prints the seconds with
# the one-minute load before and after each run (the machine is shared: state the load).
# Usage: bench/auto_vs_anne.sh [set ...]   (LIBLINEAR_IK_DATA: the shared data, default ../shared/data;
#   THREADS: -m for both, default 2; KEEP: a folder that keeps each run's whole output)
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
data=${LIBLINEAR_IK_DATA:-$here/../shared/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sets=${*:-dna satimage}
threads=${THREADS:-2}
for set in $sets; do
	xz -dc "$data/$set/$set.train.xz" > "$work/$set"
	for kernel in anne auto; do
		before=$(cut -d' ' -f1 /proc/loadavg)
		start=$(date +%s.%N)
		"$here/train" -C -k $kernel -m "$threads" "$work/$set" "$work/model" > "$work/$set.$kernel.out" 2>&1
		end=$(date +%s.%N)
		after=$(cut -d' ' -f1 /proc/loadavg)
		echo "$set -C -k $kernel -m $threads: $(echo "$end - $start" | bc) s (load $before -> $after)"
		if [ -n "$KEEP" ]; then
			mkdir -p "$KEEP"
			cp "$work/$set.$kernel.out" "$KEEP/"
		fi
		grep -E "^(Best|best model)" "$work/$set.$kernel.out"
	done
done
