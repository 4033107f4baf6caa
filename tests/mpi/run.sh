#!/usr/bin/env bash
# tests/mpi/run.sh - train-mpi's tests (make mpi-check; make check runs them
# when mpicc and mpirun exist). Run from the repository root after
# `make mpi`. Each check prints PASS or FAIL; without mpirun or train-mpi
# the whole suite prints SKIPPED and counts nothing as passed.
#
# What is checked, against expectations that do not come from train-mpi:
#  - the model file is byte-identical for 1, 2, 3 and 4 processes (-s 0,
#    2, 11; a9a and ijcnn1) and for 1 and 2 threads per process;
#  - it is train's optimum: the same header, and w within a relative
#    distance of 1e-3 of train's w (train stops at the same relative
#    gradient tolerance, so both lie that close to the one optimum);
#  - errors: a bad line in the third process's share names the file and
#    its line in the whole file, exit 1, no model file; the same for a
#    per-rank file (-F); an unknown file; a solver that is not distributed;
#  - -k: MODEL and MODEL.ik byte-identical for 1 to 4 processes, MODEL.ik
#    identical to train -k's (the same seed draws the same rows), MODEL
#    train -k's optimum; -F files give train -k's map of their
#    concatenation; a negative value for -k minmax named by its line;
#  - -k with -S 2, 3, 4 and -a: the same, the .ik identical to train -k's
#    (aNNE, iForest, min-max, acos; ijcnn1's signed real values, whose
#    -S 3 sums differ in any other order); -S 4's negative value gets
#    train -k's message with its line in the whole file;
#  - -v prints what train -v prints (the same folds, the same optimum per
#    fold), for any number of processes, with and without -k;
#  - -C prints what train -C prints (each C's rate and the best) on a
#    small set, for 1 and 3 processes; for -s 11 the same best C and p;
#  - -C -k runs train -C -k's search: the same lines for 1 to 4 processes;
#    its subsample stage and plain baseline identical to train's, its choice
#    of psi and C train's (the all-row walks' scores within a few rows: the
#    primal solver here, the dual there); -W 1's MODEL.ik train's; -s 11's
#    lines all train's; a negative value named by its global line;
#  - -C -k -E 1 (the exhaustive search): train's per-psi and Best lines for
#    1 and 3 processes (aNNE -s 2: every line); -E 1 -W 1 refused;
#  - the share read in a thread during MPI_Init: it runs on every process
#    under mpirun, not with TRAIN_MPI_EARLY_READ=0, and the model is the
#    same; a launcher environment naming another rank and size is not
#    trusted (the whole file's model); bad lines read in one process's
#    share but owned by another are reported once, by the owner, first
#    bad line first;
#  - a process killed during training leaves no model file (nor temporary).
# Environment: LIBLINEAR_IK_DATA (default ../shared/data), MPIRUN (mpirun).
set -u

DATA=${LIBLINEAR_IK_DATA:-../shared/data}
MPIRUN=${MPIRUN:-mpirun}
ROOT=$(pwd)
TRAIN_MPI=$ROOT/train-mpi
TRAIN=$ROOT/train

if ! command -v "$MPIRUN" >/dev/null 2>&1 || [ ! -x "$TRAIN_MPI" ]; then
	echo "mpi tests: SKIPPED ($MPIRUN or ./train-mpi not found)"
	exit 0
fi
MPI_OPTS=()
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
	# Open MPI: more processes than cores on a small machine; as root in CI
	MPI_OPTS+=(--oversubscribe)
	[ "$(id -u)" = 0 ] && MPI_OPTS+=(--allow-run-as-root)
fi

pass=0
fail=0
check() {	# check NAME STATUS(0 = pass)
	if [ "$2" = 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1"
		fail=$((fail + 1))
	fi
}

TMP=$(mktemp -d /tmp/train-mpi-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
for set in a9a/a9a.train ijcnn1/ijcnn1.train; do
	if ! xz -dc "$DATA/$set.xz" >"$TMP/$(basename "${set%.train}")"; then
		echo "mpi tests: cannot read $DATA/$set.xz"
		exit 1
	fi
done

# mpi N ARGS...: train-mpi on N processes, quiet mpirun, one thread each
# unless ARGS say otherwise (more threads than the two cores only thrash)
mpi() {
	local n=$1
	shift
	"$MPIRUN" "${MPI_OPTS[@]}" -n "$n" "$TRAIN_MPI" "$@"
}

# w_close A B: the same header and |w_A - w_B| <= 1e-3 |w_B|
w_close() {
	cmp -s <(sed '/^w$/q' "$1") <(sed '/^w$/q' "$2") || return 1
	paste -d ' ' <(sed '1,/^w$/d' "$1") <(sed '1,/^w$/d' "$2") | awk '
		{ h = NF / 2; for (k = 1; k <= h; k++) { d = $k - $(k + h); s += d * d; t += $(k + h) * $(k + h) } }
		END { if (t == 0 || sqrt(s / t) > 1e-3) { printf "relative distance %g\n", (t ? sqrt(s / t) : -1); exit 1 } }'
}

cd "$TMP" || exit 1
for set in a9a ijcnn1; do
	for s in 0 2 11; do
		ok=0
		for n in 1 2 3 4; do
			mpi "$n" -q -m 1 -s "$s" "$set" "$set.$s.n$n" >/dev/null 2>&1 || ok=1
		done
		for n in 2 3 4; do
			cmp -s "$set.$s.n1" "$set.$s.n$n" || ok=1
		done
		check "$set -s $s: identical model files for 1, 2, 3, 4 processes" $ok
		"$TRAIN" -q -s "$s" "$set" "$set.$s.train" >/dev/null 2>&1
		w_close "$set.$s.n1" "$set.$s.train"
		check "$set -s $s: train's optimum" $?
	done
done

# threads: two per process give the same bits
mpi 2 -q -m 2 -s 0 a9a a9a.m2 >/dev/null 2>&1 && cmp -s a9a.m2 a9a.0.n1
check "a9a -s 0: 2 processes x 2 threads = 1 process x 1 thread" $?

# -B 1, -wi and a three-class problem: still the same file for 1 and 3 processes
head -n 3000 a9a | awk '{ if (NR % 3 == 0) $1 = 2; print }' >three
mpi 1 -q -m 1 -s 0 -B 1 -w2 3 -b 400 three three.n1 >/dev/null 2>&1
mpi 3 -q -m 1 -s 0 -B 1 -w2 3 -b 400 three three.n3 >/dev/null 2>&1
cmp -s three.n1 three.n3 && "$TRAIN" -q -s 0 -B 1 -w2 3 three three.train && w_close three.n1 three.train
check "3 classes, -B 1, -w2 3: identical for 1 and 3 processes, train's optimum" $?

# per-rank files: a9a split into 3 files; same optimum as train on the whole
split -n l/3 -d -a 1 a9a part.
mv part.0 a9a.split.0 && mv part.1 a9a.split.1 && mv part.2 a9a.split.2
mpi 3 -q -m 1 -F a9a.split a9a.split.model >/dev/null 2>&1 && w_close a9a.split.model a9a.2.train
check "-F: a9a.split.0..2 on 3 processes gives train's optimum" $?

# -k: each run in its own folder, so that the trailer line naming MODEL.ik is the same
kernel_runs() {	# kernel_runs NAME DATA "PROCESS COUNTS" OPTIONS...
	local name=$1 data=$2 counts=$3
	shift 3
	local ok=0
	for n in $counts; do
		mkdir -p "$name/n$n" "$name/train"
		mpi "$n" -q -m 1 "$@" "$data" "$name/n$n/m" >/dev/null 2>&1 || ok=1
	done
	"$TRAIN" -q -s 2 "$@" "$data" "$name/train/m" >/dev/null 2>&1 || ok=1
	local first
	first=$(set -- $counts; echo "$1")
	for n in $counts; do
		cmp -s "$name/n$first/m" "$name/n$n/m" && cmp -s "$name/n$first/m.ik" "$name/n$n/m.ik" || ok=1
	done
	check "$name: MODEL and MODEL.ik identical for processes $counts" $ok
	cmp -s "$name/n$first/m.ik" "$name/train/m.ik"
	check "$name: MODEL.ik identical to train -k's" $?
	w_close "$name/n$first/m" "$name/train/m"
	check "$name: train -k's optimum" $?
}
kernel_runs a9a-anne a9a "1 2 3 4" -k anne
kernel_runs ijcnn1-iforest ijcnn1 "1 3" -k iforest -t 20 -B 1
kernel_runs a9a-minmax a9a "1 2" -k minmax -t 20 -r 7

mkdir -p split-k split-k-train
mpi 3 -q -m 1 -F -k anne -t 30 a9a.split split-k/m >/dev/null 2>&1 \
	&& "$TRAIN" -q -s 2 -k anne -t 30 a9a split-k-train/m >/dev/null 2>&1 \
	&& cmp -s split-k/m.ik split-k-train/m.ik && w_close split-k/m split-k-train/m
check "-F -k: three files give train -k's map and optimum on their concatenation" $?

sed '20000s/^\([^ ]*\) \([0-9]*\):1 /\1 \2:-1 /' a9a >negative
mpi 4 -m 1 -k minmax negative neg.model >out 2>err
[ $? = 1 ] && [ ! -e neg.model ] && [ ! -e neg.model.ik ] \
	&& grep -q "^ERROR: negative line 20000: feature [0-9]* is negative" err
check "-k minmax: a negative value in rank 2's share named by its line, exit 1, no model" $?

# -S 2-4 and -a: statistics over every row, gathered as train -k's scan gathers them. ijcnn1
# has signed real values, so -S 3's sums (its mean and deviations) round differently in any
# other order: per-process partial sums added with MPI_SUM give another .ik for 2-4 processes
# here (tried); ijabs is ijcnn1 with |x| for the maps that refuse negatives
sed 's/:-/:/g' ijcnn1 >ijabs
kernel_runs ijcnn1-anne-S3 ijcnn1 "1 2 3 4" -k anne -t 20 -S 3
kernel_runs ijcnn1-iforest-S2-a ijcnn1 "1 3" -k iforest -t 20 -S 2 -a 0.5
kernel_runs ijcnn1-acos-S2-a ijcnn1 "1 4" -k acos -t 20 -S 2 -a 1
kernel_runs ijabs-minmax-S3 ijabs "1 2" -k minmax -t 20 -S 3
kernel_runs ijabs-anne-S4-a ijabs "1 3" -k anne -t 20 -S 4 -a 0.3

# -F: the chain runs in file order, FILE.0 first: -S 3 gives the map of the concatenation
split -n l/3 -d -a 1 ijcnn1 ijcnn1.split.
mkdir -p split-s3 split-s3-train
mpi 3 -q -m 1 -F -k anne -t 20 -S 3 ijcnn1.split split-s3/m >/dev/null 2>&1 \
	&& "$TRAIN" -q -s 2 -k anne -t 20 -S 3 ijcnn1 split-s3-train/m >/dev/null 2>&1 \
	&& cmp -s split-s3/m.ik split-s3-train/m.ik
check "-F -k -S 3: three files give train -k's map of their concatenation" $?

# -S 4 refuses negatives as train -k does: its message, the global line, exit 1, no model
"$TRAIN" -k anne -S 4 negative neg4.train >/dev/null 2>neg4.train.err
mpi 4 -m 1 -k anne -S 4 negative neg4.model >out 2>err
[ $? = 1 ] && [ ! -e neg4.model ] && [ ! -e neg4.model.ik ] \
	&& grep -q "^ERROR: negative line 20000: feature [0-9]* is negative: -S 4" err \
	&& [ "$(grep -c '^ERROR' err)" = 1 ] && cmp -s <(grep '^ERROR' err) neg4.train.err
check "-k -S 4: a negative value in rank 2's share: train -k's message and line, exit 1, no model" $?

# -v: train -v's folds by global row number: the same lines for any process count, and train's
cv_runs() {	# cv_runs NAME DATA "PROCESS COUNTS" OPTIONS...
	local name=$1 data=$2 counts=$3
	shift 3
	local ok=0
	"$TRAIN" -q "$@" "$data" >"$name.train.cv" 2>/dev/null || ok=1
	for n in $counts; do
		mpi "$n" -q -m 1 "$@" "$data" >"$name.n$n.cv" 2>/dev/null || ok=1
		cmp -s "$name.n$n.cv" "$name.train.cv" || ok=1
	done
	grep -q "^Cross Validation" "$name.train.cv" || ok=1
	check "$name: -v lines identical for processes $counts and to train -v's" $ok
}
cv_runs a9a-cv a9a "1 2 3" -s 0 -v 5
cv_runs ijcnn1-cv ijcnn1 "1 4" -s 11 -v 3
cv_runs a9a-k-cv a9a "1 3" -s 2 -k anne -t 30 -v 3

# -C: train -C's walk over C (and p) on train -v's folds; small data, blocks of 200 rows
if xz -dc "$DATA/australian/australian.all.xz" >aus 2>/dev/null; then
	for s in 0 2; do
		"$TRAIN" -s $s -C aus >aus.$s.train 2>/dev/null
		ok=0
		for n in 1 3; do
			mpi "$n" -m 1 -b 200 -s $s -C aus >aus.$s.n$n 2>/dev/null || ok=1
			cmp -s aus.$s.n$n aus.$s.train || ok=1
		done
		grep -q "^Best C = " aus.$s.train || ok=1
		check "australian -s $s -C: every line identical for 1 and 3 processes and to train -C's" $ok
	done
	"$TRAIN" -s 11 -C aus >aus.11.train 2>/dev/null
	mpi 1 -m 1 -b 200 -s 11 -C aus >aus.11.n1 2>/dev/null && mpi 3 -m 1 -b 200 -s 11 -C aus >aus.11.n3 2>/dev/null \
		&& cmp -s aus.11.n1 aus.11.n3 && paste <(tail -n 1 aus.11.n1) <(tail -n 1 aus.11.train) | awk -F'\t' '
			{ split($1, a, " "); split($2, b, " ")
			  # "Best C = c Best p = p  CV MSE = m": C and p equal, MSE within 1e-3
			  if (a[4] != b[4] || a[8] != b[8] || (a[12] - b[12]) > 1e-3 * b[12] || (b[12] - a[12]) > 1e-3 * b[12]) exit 1 }'
	check "australian -s 11 -C: identical for 1 and 3 processes; train -C's best C and p, its MSE within 1e-3" $?

	# line ends: CRLF and a last line without its newline read as the same rows, with
	# share boundaries that fall anywhere (3 processes, blocks of 100 rows)
	sed 's/$/\r/' aus >aus.crlf
	head -c -1 aus >aus.nonl
	ok=0
	[ "$(tail -c 1 aus.nonl | od -An -c | tr -d ' ')" != '\n' ] || ok=1
	for f in aus aus.crlf aus.nonl; do
		for n in 1 3; do
			mpi "$n" -q -m 1 -b 100 "$f" "$f.$n.model" >/dev/null 2>&1 || ok=1
			cmp -s aus.1.model "$f.$n.model" || ok=1
		done
	done
	check "CRLF lines and a last line without newline: the same model for 1 and 3 processes" $ok
else
	echo "mpi tests: australian not found: the -C and line-end checks are SKIPPED (not counted)"
fi

# -C -k: train -C -k's search of psi and C. Stage 1 runs on the subsample train draws (the
# same rows, gathered), so its lines are train's; the walks on all rows score each C with
# the distributed primal solver where train uses the dual one, so there the choice must be
# train's and the score within a few rows. Timings ("(R rows, S s)") are cut from lines.
no_seconds() {	# no_seconds FILE: its lines without the seconds, the "written:" line and
	# the "best model:" line (train's and train-mpi's commands differ)
	sed -e 's/, [0-9.]* s)$/)/' -e '/^written: /d' -e '/^best model: /d' -e '/^Solver not specified/d' "$1"
}
best_close() {	# best_close A B POINTS: the "Best psi = " lines of A and B name the same psi
	# and C, and their CV accuracies differ by at most POINTS
	paste <(grep '^Best psi = ' "$1") <(grep '^Best psi = ' "$2") | awk -F'\t' -v pts="$3" '
		{ n = split($1, a, " "); split($2, b, " "); seen = 1
		  # "Best psi = P  Best C = C  CV accuracy = A%"
		  sub("%", "", a[n]); sub("%", "", b[n])
		  if (a[4] != b[4] || a[8] != b[8] || a[n] - b[n] > pts || b[n] - a[n] > pts) exit 1 }
		END { if (!seen) exit 1 }'
}
"$TRAIN" -C -k iforest -t 20 a9a a9a.ck.train >a9a.ck.train.out 2>/dev/null
ok=0
for n in 1 2 3 4; do
	mpi "$n" -m 1 -C -k iforest -t 20 a9a a9a.ck.model >a9a.ck.n$n 2>/dev/null || ok=1
	cmp -s <(no_seconds a9a.ck.n1) <(no_seconds a9a.ck.n$n) || ok=1
done
[ ! -e a9a.ck.model ] || ok=1
check "a9a -C -k iforest: every line identical for 1, 2, 3 and 4 processes, no model written" $ok
ok=0
[ "$(grep -c '(4000 rows)' <(no_seconds a9a.ck.n1))" -ge 5 ] || ok=1
cmp -s <(no_seconds a9a.ck.n1 | grep -e '(4000 rows)' -e '^plain linear') \
	<(no_seconds a9a.ck.train.out | grep -e '(4000 rows)' -e '^plain linear') || ok=1
check "a9a -C -k iforest: the 4000-row stage and the plain baseline identical to train -C -k's" $ok
best_close a9a.ck.n1 a9a.ck.train.out 0.1
check "a9a -C -k iforest: train -C -k's psi and C, its CV accuracy within 0.1 points" $?

if [ -s aus ]; then
	# psi given (-g): one walk on all rows and the plain baseline on all rows; -W 1 writes
	mkdir -p ckw/n1 ckw/n3 ckw/train
	"$TRAIN" -C -k anne -t 20 -g 16 -W 1 aus ckw/train/m >ckw/train.out 2>/dev/null
	ok=0
	for n in 1 3; do
		mpi "$n" -m 1 -b 200 -C -k anne -t 20 -g 16 -W 1 aus "ckw/n$n/m" >"ckw/n$n.out" 2>/dev/null || ok=1
	done
	cmp -s <(no_seconds ckw/n1.out) <(no_seconds ckw/n3.out) && cmp -s ckw/n1/m ckw/n3/m \
		&& cmp -s ckw/n1/m.ik ckw/n3/m.ik || ok=1
	grep -q '^written: ckw/n1/m$' ckw/n1.out || ok=1
	check "australian -C -k -g 16 -W 1: lines, MODEL and MODEL.ik identical for 1 and 3 processes" $ok
	ok=0
	best_close ckw/n1.out ckw/train.out 0.3 || ok=1
	cmp -s <(grep '^plain linear' ckw/n1.out) <(grep '^plain linear' ckw/train.out) || ok=1
	cmp -s ckw/n1/m.ik ckw/train/m.ik && w_close ckw/n1/m ckw/train/m || ok=1
	check "australian -C -k -g 16 -W 1: train's C, baseline line, MODEL.ik and optimum" $ok

	# fewer rows than the subsample: stage 1 walks on all rows, every process together
	"$TRAIN" -C -k anne -t 20 aus >aus.ck.train 2>/dev/null
	ok=0
	for n in 1 3; do
		mpi "$n" -m 1 -b 200 -C -k anne -t 20 aus >aus.ck.n$n 2>/dev/null || ok=1
	done
	cmp -s <(no_seconds aus.ck.n1) <(no_seconds aus.ck.n3) || ok=1
	[ "$(grep -c '(690 rows)' <(no_seconds aus.ck.n1))" -ge 5 ] || ok=1
	best_close aus.ck.n1 aus.ck.train 0.3 || ok=1
	check "australian -C -k (690 rows, no subsample): identical for 1 and 3 processes, train's psi and C" $ok

	# -E 1: train -C -k -E 1's exhaustive search (every psi of the grid on all rows, train
	# -C's walk at each). aNNE -s 2: every line train's; iForest -B 1 and -s 11 at -g 16: the
	# per-psi and Best lines train's (at C of 2^9 and more, or along -s 11's p walk, a CV
	# score or the walk's length can differ: the primal solver's stopping point, summed by
	# blocks, against train's within the same tolerance)
	psi_lines() { grep -e '^psi = ' -e '^Best psi = ' "$1"; }
	ok=0
	for opts in "-k anne -t 10" "-k iforest -t 10 -B 1" "-s 11 -k anne -t 10 -g 16"; do
		# shellcheck disable=SC2086
		"$TRAIN" -C $opts -E 1 aus >aus.E.train 2>/dev/null || ok=1
		[ "$(psi_lines aus.E.train | wc -l)" -ge 2 ] || ok=1
		for n in 1 3; do
			# shellcheck disable=SC2086
			mpi "$n" -m 1 -b 200 -C $opts -E 1 aus >aus.E.n$n 2>/dev/null || ok=1
			cmp -s <(psi_lines aus.E.n$n) <(psi_lines aus.E.train) || ok=1
			[ "$opts" != "-k anne -t 10" ] || cmp -s aus.E.n$n aus.E.train || ok=1
		done
	done
	[ "$(psi_lines aus.E.n1 | wc -l)" = 2 ] || ok=1	# -g 16: one psi, then Best
	check "australian -C -k -E 1: train's lines (aNNE: all of them) for 1 and 3 processes" $ok
	mpi 2 -m 1 -C -k anne -E 1 -W 1 aus aus.E.model >out 2>err
	[ $? = 1 ] && [ ! -e aus.E.model ] && grep -q "not -E 1's" err
	check "-E 1 with -W 1: refused, no model" $?

	# -s 11: the same solver and walks as train -C -k's: the same lines
	"$TRAIN" -s 11 -C -k anne -t 10 -g 16 aus >aus.ck11.train 2>/dev/null
	ok=0
	for n in 1 3; do
		mpi "$n" -m 1 -b 200 -s 11 -C -k anne -t 10 -g 16 aus >aus.ck11.n$n 2>/dev/null || ok=1
		cmp -s <(no_seconds aus.ck11.n$n) <(no_seconds aus.ck11.train) || ok=1
	done
	grep -q '^Best psi = 16  Best C = .* Best p = ' aus.ck11.train || ok=1
	check "australian -s 11 -C -k -g 16: every line identical for 1 and 3 processes and to train's" $ok
fi

mpi 4 -m 1 -C -k minmax negative neg.ck >out 2>err
[ $? = 1 ] && [ ! -e neg.ck ] && [ "$(grep -c '^ERROR' err)" = 1 ] \
	&& grep -q "^ERROR: negative line 20000: feature [0-9]* is negative" err
check "-C -k minmax: a negative value in rank 2's share named by its line in the whole file, exit 1" $?

# the share read in a thread during MPI_Init (mpi/early_read.h): every process's reader
# thread ran under mpirun (TRAIN_MPI_STATS says how long it took), none with
# TRAIN_MPI_EARLY_READ=0, and the model is the same bytes either way
reader_threads() {	# reader_threads FILE: the processes whose reader thread took > 0 s
	grep -c 'reader thread [0-9.]*[1-9]' "$1"
}
ok=0
TRAIN_MPI_STATS=1 "$MPIRUN" "${MPI_OPTS[@]}" -x TRAIN_MPI_STATS -n 3 "$TRAIN_MPI" -q -m 1 -s 2 a9a early.on \
	2>early.on.err || ok=1
[ "$(reader_threads early.on.err)" = 3 ] || ok=1
TRAIN_MPI_STATS=1 TRAIN_MPI_EARLY_READ=0 "$MPIRUN" "${MPI_OPTS[@]}" -x TRAIN_MPI_STATS \
	-x TRAIN_MPI_EARLY_READ -n 3 "$TRAIN_MPI" -q -m 1 -s 2 a9a early.off 2>early.off.err || ok=1
[ "$(reader_threads early.off.err)" = 0 ] && [ "$(grep -c 'reader thread 0.000' early.off.err)" = 3 ] || ok=1
cmp -s early.on a9a.2.n1 && cmp -s early.off a9a.2.n1 || ok=1
check "reader thread during MPI_Init: on every process under mpirun, off with TRAIN_MPI_EARLY_READ=0, the same model" $ok

# a launcher environment that names another rank and size than MPI gives: the share read
# for it is not used. One process without mpirun (a singleton: the environment is ours)
# told it is rank 1 of 2 reads the second half early; the model must still be the whole
# file's (the second half's would differ). Open MPI's variables, then MPICH's.
ok=0
for vars in "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2" "PMI_RANK=1 PMI_SIZE=2"; do
	# shellcheck disable=SC2086
	env $vars TRAIN_MPI_STATS=1 timeout 120 "$TRAIN_MPI" -q -m 1 -s 2 a9a early.env 2>early.env.err || ok=1
	[ "$(reader_threads early.env.err)" = 1 ] && cmp -s early.env a9a.2.n1 || ok=1
done
check "an environment naming another rank and size: its early read unused, the whole file's model" $ok

# share_first_line FILE P R: the first line of rank R's byte share of FILE among P processes
# (bytes from size/P*R + size%P*R/P, moved on to a line start: share_read.h)
share_first_line() {
	local size pos
	size=$(stat -c %s "$1")
	pos=$((size / $2 * $3 + size % $2 * $3 / $2))
	[ "$pos" = 0 ] && { echo 1; return; }
	echo $(($(head -c $((pos - 1)) "$1" | tr -cd '\n' | wc -c) + 2))
}
# Bad lines read in one process's share but owned by another (blocks of 8192 rows; a9a's
# 4 blocks on 3 processes: rank 0 owns lines 1-8192, rank 1 8193-16384, rank 2 the rest;
# rank 0's share runs past line 8192; on 2 processes rank 0 owns 1-16384 and rank 1's share
# starts before 16384). The owner parses them again: one message, the first bad line.
ok=0
r1=$(share_first_line a9a 3 1)
r1of2=$(share_first_line a9a 2 1)
[ "$r1" -gt 9001 ] && [ "$r1of2" -lt 16370 ] || { ok=1; echo "a9a's shares are not where this test expects: $r1 $r1of2"; }
sed -e '9000s/^\([^ ]*\) /\1 3:abc /' -e '9001s/^[^ ]* /x /' a9a >bad.r0
mpi 3 -m 1 bad.r0 bad.model >out 2>err
[ $? = 1 ] && [ ! -e bad.model ] && grep -q "^train-mpi: bad.r0: Wrong input format at line 9000: " err \
	&& [ "$(grep -c 'Wrong input format' err)" = 1 ] || ok=1
sed -e '16370s/^\([^ ]*\) /\1 3:abc /' -e '16384s/^[^ ]* /x /' a9a >bad.r1
mpi 2 -m 1 bad.r1 bad.model >out 2>err
[ $? = 1 ] && [ ! -e bad.model ] && grep -q "^train-mpi: bad.r1: Wrong input format at line 16370: " err \
	&& [ "$(grep -c 'Wrong input format' err)" = 1 ] || ok=1
check "bad lines in one process's share and another's blocks: the owner's message, the first line" $ok

# a bad line in the third process's share (4 processes, blocks of 8192:
# rank 2 holds lines 16385..24576): named by its line in the whole file
sed '20000s/^\([^ ]*\) /\1 3:abc /' a9a >bad
mpi 4 -m 1 bad bad.model >out 2>err
rc=$?
[ $rc = 1 ] && [ ! -e bad.model ] && grep -q "^train-mpi: bad: Wrong input format at line 20000: " err \
	&& [ "$(grep -c 'Wrong input format' err)" = 1 ] && ! ls bad.model.* >/dev/null 2>&1
check "bad line 20000 in rank 2's share: one message with its global line, exit 1, no model" $?

cp a9a.split.2 bad.2 && cp a9a.split.0 bad.0 && cp a9a.split.1 bad.1
sed -i '7s/^[^ ]* /x /' bad.1
mpi 3 -m 1 -F bad bad.model >out 2>err
rc=$?
[ $rc = 1 ] && [ ! -e bad.model ] && grep -q "^train-mpi: bad.1: Wrong input format at line 7: " err
check "-F: bad line 7 of bad.1 named with its file, exit 1, no model" $?

mpi 2 -m 1 no-such-file nofile.model >out 2>err
[ $? = 1 ] && [ ! -e nofile.model ] && grep -q "can't open input file no-such-file" err
check "missing training file: exit 1, message, no model" $?

mpi 2 -m 1 -s 1 a9a dual.model >out 2>err
[ $? = 1 ] && [ ! -e dual.model ] && grep -q "only the Newton solvers -s 0, 2 and 11" err
check "-s 1 refused, naming the solvers that work" $?

# a process killed while training: no model file, no temporary file. A
# long run (a9a three times, -c 1e5 at a tight tolerance: about 20 Newton
# iterations, 4 s here), one process killed as soon as training has begun
# ("init f"); a run that ended first fails this check rather than passing it.
cat a9a a9a a9a >big
mkdir killed && cd killed || exit 1
"$MPIRUN" "${MPI_OPTS[@]}" -n 2 "$TRAIN_MPI" -m 1 -s 2 -c 100000 -e 1e-12 ../big big.model >out 2>err &
runner=$!
victim=
for _ in $(seq 1 1500); do
	if grep -q "^init f" out 2>/dev/null; then
		victim=$(ps -o pid= --ppid "$runner" | tail -n 1 | tr -d ' ')
		[ -n "$victim" ] && break
	fi
	sleep 0.02
done
[ -n "$victim" ] && kill -9 "$victim"
wait "$runner"
rc=$?
[ -n "$victim" ] && [ "$rc" != 0 ] && [ -z "$(ls)" -o "$(ls | tr '\n' ' ')" = "err out " ]
check "a process killed during training: mpirun fails, no model or temporary file" $?
cd ..

echo "mpi tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
