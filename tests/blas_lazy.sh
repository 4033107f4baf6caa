#!/bin/sh
# blas_lazy.sh - an OpenBLAS build opens OpenBLAS only when a GEMM runs
# (ikmap/gemm.c), so that the runs that never multiply matrices never
# start OpenBLAS's spinning thread pool:
#  - train, predict, tools/ikmap and ik/libliblinear-ik.so.1 do not name
#    libopenblas among their needed libraries (readelf -d);
#  - plain training, -s 30 -k iforest and predict on its model never load
#    it (the dynamic loader's LD_DEBUG=files log);
#  - a dense aNNE map (covtype, 54 features, psi 128: above the 8-bit
#    path of anne_vnni.c, which needs no GEMM) loads it, with the default
#    choice and with IKMAP_SGEMM=openblas, but not with IKMAP_SGEMM=builtin;
#  - a libopenblas.so.0 that lacks the symbols (a stub found first through
#    LD_LIBRARY_PATH) is not used: the built-in kernel runs instead;
#  and every one of these aNNE runs gives the same model, .ik and
#  predictions, byte for byte.
#
# Usage: sh tests/blas_lazy.sh   (from anywhere; `make check` runs it)
# Needs the programs built here (make all), readelf, xz, cmp and $CC (for
# the stub). Data: $LIBLINEAR_IK_DATA or ../shared/data. Prints one PASS or
# FAILED line per check and exits 1 if any fails. A build without OpenBLAS
# (BLAS=builtin or cblas) has nothing to open lazily: SKIPPED, exit 0.
set -u
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
data=${LIBLINEAR_IK_DATA:-../shared/data}
case $data in /*) ;; *) data=$root/$data ;; esac

flavour=$(cut -d' ' -f1 ikmap/blas-flavour 2>/dev/null)
case $flavour in
openblas) ;;
builtin|cblas)
	echo "SKIPPED: this build uses $flavour, not OpenBLAS (blas_lazy.sh checked nothing)"
	exit 0 ;;
*)
	echo "blas_lazy: ikmap/blas-flavour missing; run make first" >&2
	exit 1 ;;
esac
for exe in train predict tools/ikmap ik/libliblinear-ik.so.1; do
	test -e "$exe" || { echo "blas_lazy: ./$exe missing; run make first" >&2; exit 1; }
done
unset IKMAP_SGEMM

work=$(mktemp -d "${TMPDIR:-/tmp}/blas-lazy.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
status=0
pass() { echo "PASS: $1"; }
fail() { echo "FAILED: $1"; status=1; }

for exe in train predict tools/ikmap ik/libliblinear-ik.so.1; do
	if ! readelf -d "$exe" >"$work/dyn" 2>&1; then
		fail "readelf -d $exe"
	elif grep -q 'NEEDED.*libopenblas' "$work/dyn"; then
		fail "$exe needs libopenblas at start-up"
	else
		pass "$exe does not need libopenblas"
	fi
done

xz -dc "$data/a9a/a9a.train.xz" | head -n 3000 >"$work/a9a" \
	&& xz -dc "$data/covtype.binary.subset20k/covtype.binary.subset20k.all.xz" \
		| head -n 3000 >"$work/cov" \
	|| { echo "blas_lazy: cannot read the data under $data" >&2; exit 1; }

# loads WHAT COMMAND...: runs COMMAND (quiet) and says whether the loader
# opened libopenblas: prints yes or no, or fails the check WHAT.
loads() {
	what=$1
	shift
	if ! LD_DEBUG=files "$@" >/dev/null 2>"$work/ld.log"; then
		fail "$what: the run failed"
		tail -5 "$work/ld.log"
		echo failed
	elif grep -q 'file=libopenblas' "$work/ld.log"; then
		echo yes
	else
		echo no
	fi
}

# expect WHAT yes|no COMMAND...
expect() {
	what=$1 want=$2
	shift 2
	got=$(loads "$what" "$@")
	case $got in
	"$want") pass "$what: libopenblas loaded: $want" ;;
	*failed*) ;;
	*) fail "$what: libopenblas loaded: $got, expected $want" ;;
	esac
}

expect "train -s 2 (plain)" no "$root/train" -q -s 2 "$work/a9a" "$work/plain"
expect "train -s 30 -k iforest" no "$root/train" -q -s 30 -k iforest -g 64 "$work/a9a" "$work/if"
expect "predict (iforest model)" no "$root/predict" "$work/a9a" "$work/if" "$work/if.out"
expect "tools/ikmap -k iforest" no "$root/tools/ikmap" -k iforest -g 64 "$work/a9a" "$work/if2.ik"

# The dense aNNE runs; each leaves its model, .ik and predictions in its own directory.
# anne NAME [ENV=VALUE...]
anne() {
	name=$1
	shift
	mkdir "$work/$name"
	(cd "$work/$name" && env "$@" "$root/train" -q -s 2 -k anne -d cpu -g 128 ../cov m \
		&& env "$@" "$root/predict" -d cpu ../cov m out)
}
expect "train + predict -k anne (dense)" yes anne default
expect "the same, IKMAP_SGEMM=openblas" yes anne openblas IKMAP_SGEMM=openblas
expect "the same, IKMAP_SGEMM=builtin" no anne builtin IKMAP_SGEMM=builtin

# A libopenblas.so.0 without OpenBLAS's symbols, found first: loaded, not used.
mkdir "$work/stub"
echo 'int blas_lazy_stub;' >"$work/stub/stub.c"
if ${CC:-cc} -shared -fPIC -Wl,-soname,libopenblas.so.0 -o "$work/stub/libopenblas.so.0" \
	"$work/stub/stub.c"; then
	expect "the same, a stub libopenblas.so.0 first (IKMAP_SGEMM=openblas)" yes \
		anne stub IKMAP_SGEMM=openblas LD_LIBRARY_PATH="$work/stub"
else
	fail "cannot build the stub library"
fi

for name in openblas builtin stub; do
	for f in m m.ik out; do
		if [ ! -f "$work/$name/$f" ] || ! cmp -s "$work/default/$f" "$work/$name/$f"; then
			fail "$name: $f differs from the default run's"
			continue 2
		fi
	done
	pass "$name: model, .ik and predictions are the default run's"
done
exit $status
