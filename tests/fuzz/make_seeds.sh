#!/bin/sh
# make_seeds.sh - writes the raw seed inputs of the fuzz targets into
# OUT/<target>/ (default build/fuzz/seeds): small pieces of the shared
# datasets, hand-written edge cases, and model and .ik files made by our
# own ./train (plain and -k, every solver, both map types) on tiny data,
# and version-2 .ik files (min-max, acos) written byte by byte.
# `make fuzz-seeds` runs it and merges the seeds, minimised, into
# tests/fuzz/corpus/<target>/ (libFuzzer -merge=1, only inputs that add
# coverage are kept). Needs ./train (make) and xz; the datasets are read
# from $LIBLINEAR_IK_DATA (default ../shared/data). Deterministic.
set -eu

DATA=${LIBLINEAR_IK_DATA:-../shared/data}
OUT=${1:-build/fuzz/seeds}
TRAIN=${TRAIN:-./train}

test -x "$TRAIN" || { echo "make_seeds.sh: $TRAIN is not built (run make)" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/fuzz_reader" "$OUT/fuzz_model" "$OUT/fuzz_ikmap" "$OUT/fuzz_predict_ik" "$OUT/fuzz_decimal" "$OUT/work"
work="$OUT/work"

# first N lines of a dataset file (NAME/FILE.xz)
head_of() { xz -dc "$DATA/$1.xz" | head -n "$2"; }

# ---- data reader: pieces of real files, then edge cases ----
for f in heart/heart.all a9a/a9a.train dna/dna.train covtype.binary.subset20k/covtype.binary.subset20k.all \
	cod-rna/cod-rna.train letter/letter.all diabetes/diabetes.all mushrooms/mushrooms.all \
	segment/segment.all sonar/sonar.all ijcnn1/ijcnn1.train; do
	head_of "$f" 8 > "$OUT/fuzz_reader/$(basename "$f")"
done
head_of usps/usps.train 2 > "$OUT/fuzz_reader/usps"
head_of madelon/madelon.train 1 > "$OUT/fuzz_reader/madelon"
r="$OUT/fuzz_reader"
# ---- number fast path (fuzz_decimal): one number a file ----
i=0
for v in 0 -0 .5 5. -1.25e-3 1e22 1e23 9007199254740993 0.30000000000000004 1e-400 inf nan 0x1p3 000012 2147483648; do
	printf '%s' "$v" > "$OUT/fuzz_decimal/n$i"; i=$((i + 1))
done
printf '1 1:0.5 3:-2\r\n-1 2:1e-3\r\n' > "$r/crlf"
printf '+1 1:1 2:2\n-1' > "$r/label-only-last-no-newline"
printf '1 1:1 # a comment\n2 # only a comment\n' > "$r/comments"
printf '1\t1:1\t\t2:0x1p3 \t\n' > "$r/tabs-hex"
printf '1e0 2147483646:1\n2.5 1:1\n' > "$r/label-exponent-max-index"
printf '1 2:1 1:1\n' > "$r/not-ascending"
printf '1 1:nan\n' > "$r/nan-value"
printf 'inf 1:1\n' > "$r/inf-label"
printf '1 1:1\n\n2 1:1\n' > "$r/empty-line"
printf '1 :5\n' > "$r/empty-index"
printf '1 2147483647:1\n' > "$r/index-too-large"
printf '1 1:1e999\n' > "$r/range-error"
printf '1 junk 1:1\n' > "$r/junk-before-feature"
printf '1 1:1 2\n' > "$r/token-without-colon-at-end"
printf '1 1:2x\n' > "$r/value-trailing-text"
printf '1 -3:1\n' > "$r/negative-index"
printf '\n' > "$r/one-newline"

# ---- tiny training sets ----
head_of heart/heart.all 40 > "$work/heart40"
head_of segment/segment.all 60 > "$work/segment60"
head_of a9a/a9a.train 40 > "$work/a9a40"
head_of heart/heart.all 45 | tail -n 5 > "$work/heart-test5"
head_of a9a/a9a.train 45 | tail -n 5 > "$work/a9a-test5"
# heart cut to its first 4 features: small .ik files (a few hundred bytes)
cut -d ' ' -f 1-5 "$work/heart40" > "$work/heart4f"

# ---- model files: every solver, with and without bias, multi-class ----
m="$OUT/fuzz_model"
for s in 0 1 2 3 4 5 6 7 11 12 13 21; do
	"$TRAIN" -q -s "$s" "$work/heart40" "$m/heart-s$s"
done
"$TRAIN" -q -s 0 -B 1 "$work/heart40" "$m/heart-s0-bias"
"$TRAIN" -q -s 4 "$work/segment60" "$m/segment-s4"
"$TRAIN" -q -s 0 -B 1 "$work/segment60" "$m/segment-s0-bias"
"$TRAIN" -q -s 11 -B 0.5 "$work/heart40" "$m/heart-s11-bias"
"$TRAIN" -q -s 6 "$work/a9a40" "$m/a9a-s6"
# a model file with CRLF endings (load_model reads it as upstream does)
sed 's/$/\r/' "$m/heart-s2" > "$m/heart-s2-crlf"

# ---- -k models and their .ik files: aNNE (scaled and not) and iForest,
# and issue 28's transforms (version-2 files: aNNE -S 2/3/4, iForest -S 4,
# minmax -S 4, acos -S 3) ----
i="$OUT/fuzz_ikmap"
p="$OUT/fuzz_predict_ik"
k=0
for spec in "heart4f heart-test5 -k anne -t 3 -g 4" \
	"heart4f heart-test5 -k anne -S 0 -t 2 -g 3 -s 0" \
	"heart4f heart-test5 -k iforest -t 3 -g 4" \
	"heart4f heart-test5 -k iforest -t 2 -g 8 -s 21" \
	"a9a40 a9a-test5 -k anne -t 2 -g 3 -s 0 -B 1" \
	"a9a40 a9a-test5 -k iforest -t 2 -g 4 -s 12" \
	"heart40 heart-test5 -k anne -t 2 -g 2 -s 4" \
	"heart40 heart-test5 -k iforest -t 2 -g 3 -s 0" \
	"heart4f heart-test5 -k anne -S 2 -t 2 -g 3" \
	"heart4f heart-test5 -k anne -S 3 -t 2 -g 3 -s 0" \
	"a9a40 a9a-test5 -k anne -S 4 -t 2 -g 3" \
	"a9a40 a9a-test5 -k iforest -S 4 -t 2 -g 4" \
	"a9a40 a9a-test5 -k minmax -S 4 -t 3 -g 16" \
	"heart4f heart-test5 -k acos -S 3 -t 3" \
	"heart4f heart-test5 -k minmax -S 2 -t 2 -g 16"; do
	set -- $spec
	train_set=$1 test_set=$2
	shift 2
	k=$((k + 1))
	mkdir -p "$work/k$k"
	# the model is named "model" so that its trailer names model.ik, the
	# names fuzz_predict_ik.c writes
	"$TRAIN" -q -m 1 -d cpu "$@" "$work/$train_set" "$work/k$k/model"
	cp "$work/k$k/model.ik" "$i/map$k"
	cp "$work/k$k/model" "$m/kmodel$k"
	{ cat "$work/k$k/model"; printf '\n==ik==\n'; cat "$work/k$k/model.ik";
	  printf '\n==rows==\n'; cat "$work/$test_set"; } > "$p/pair$k"
done

# ---- version-2 .ik files (issue 27): min-max and acos, with and without
# scale 2, assembled here from ikmap_file.c's format comment (train has no
# -k minmax or -k acos yet); the last 8 bytes stand for the checksum, which
# the fuzz target recomputes anyway ----
# le VALUE BYTES: VALUE little-endian (64-bit shell arithmetic; >> keeps the sign, & 255 the byte)
le() {
	v=$1 n=$2 out=''
	while [ "$n" -gt 0 ]; do
		out="$out$(printf '\\%03o' $((v & 255)))"
		v=$((v >> 8))
		n=$((n - 1))
	done
	printf "$out"
}
# v2 METHOD K CELLS D SCALE SEED: the header; doubles and the checksum follow
v2() {
	printf 'IKMAP\r\n\032'
	le 2 4; le "$1" 4; le "$2" 4; le "$3" 4; le "$4" 4; le "$5" 4; le "$6" 8; le 0 8; le 0 8
}
ONE=0x3ff0000000000000 HALF=0x3fe0000000000000 MINUS_ONE=-0x4010000000000000 TWO=0x4000000000000000
{ v2 3 3 2 4 0 5; le 0 8; } > "$i/acos"
{ v2 3 2 2 3 2 6; le "$MINUS_ONE" 8; le 0 8; le "$TWO" 8; le "$HALF" 8; le 0 8; le "$ONE" 8; le 0 8; } > "$i/acos-scale2"
{ v2 2 3 16 4 0 7; le 0 8; } > "$i/minmax"
{ v2 2 2 64 3 2 8; le 0 8; le "$MINUS_ONE" 8; le "$TWO" 8; le "$ONE" 8; le "$HALF" 8; le 0 8; le 0 8; } > "$i/minmax-scale2"

rm -rf "$work"
