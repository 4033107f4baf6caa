#!/bin/sh
# test_check_deps.sh - tests/check_deps.sh on simulated machines: it runs
# with a PATH of stubs (links to the real tools, or small scripts that
# act as a missing package would), so each case is a machine lacking
# something. A lacking machine must make it exit 1 within seconds with
# the one apt-get line naming exactly what is missing; a complete one
# must pass. make check runs it after check_deps.sh itself has passed.
#
# Usage: sh tests/test_check_deps.sh GOOD_PYTHON
#   GOOD_PYTHON: a Python that imports liblinear, numpy, scipy and pytest.
# Prints PASS/FAIL per case; exits 1 if any fails.
set -u
cd "$(dirname "$0")/.." || exit 1
good_python=${1:?usage: test_check_deps.sh GOOD_PYTHON}
work=$(mktemp -d "${TMPDIR:-/tmp}/check-deps.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

real() { # the real program NAME, or exit
	p=$(command -v "$1") || { echo "test_check_deps: $1 not found" >&2; exit 1; }
	echo "$p"
}
real_pkg_config=$(real pkg-config)
real_python3=$(real python3)

# stubs DIR NAME... : DIR holds links to the real NAMEs and nothing else.
stubs() {
	dir=$1
	shift
	mkdir -p "$dir"
	for name in "$@"; do
		ln -s "$(real "$name")" "$dir/$name"
	done
}

# script FILE BODY: an executable shell script.
script() {
	printf '#!/bin/sh\n%s\n' "$2" >"$1"
	chmod +x "$1"
}

# locale_stub DIR LOCALES...: a `locale` whose -a lists LOCALES.
locale_stub() {
	dir=$1
	shift
	mkdir -p "$dir"
	script "$dir/locale" "printf '%s\\n' $*"
}
# Locale sources: one folder with de_DE (the locales package), one without.
mkdir -p "$work/i18n/locales" "$work/no-i18n"
: >"$work/i18n/locales/de_DE"

status=0
# expect CASE WANT_STATUS WANT_LINE ENV...: runs check_deps.sh under ENV
# (PATH included); WANT_LINE is a fixed string the output must contain
# as a whole line ("" for none), and an apt-get line must appear exactly
# when WANT_LINE is one.
expect() {
	name=$1 want_status=$2 want_line=$3
	shift 3
	start=$(date +%s)
	env -i HOME="$work" I18NPATH="$work/i18n" "$@" /bin/sh tests/check_deps.sh >"$work/out" 2>&1
	got=$?
	took=$(($(date +%s) - start))
	ok=1
	[ "$got" = "$want_status" ] || ok=0
	if [ -n "$want_line" ]; then
		grep -qxF "$want_line" "$work/out" || ok=0
	fi
	case $want_line in
	*apt-get*) ;;
	*) ! grep -q 'apt-get' "$work/out" || ok=0 ;;
	esac
	[ "$took" -le 10 ] || ok=0
	if [ $ok = 1 ]; then
		echo "PASS: $name (exit $got, ${took}s)"
	else
		echo "FAIL: $name (exit $got, want $want_status, ${took}s); output:"
		sed 's/^/    /' "$work/out"
		status=1
	fi
}

# Everything there, the caller's Python.
stubs "$work/full" pkg-config xz python3 g++ cc
locale_stub "$work/full" C POSIX de_DE.utf8
expect "complete machine, PYTHON given" 0 \
	"check_deps: all test dependencies found; oracle tests use $good_python" \
	PATH="$work/full" PYTHON="$good_python"

# Everything there, and a project venv that already works: nothing installed.
mkdir -p "$work/venv/bin"
script "$work/venv/bin/python" "exec \"$good_python\" \"\$@\""
expect "complete machine, working .venv" 0 \
	"check_deps: all test dependencies found; oracle tests use $work/venv/bin/python" \
	PATH="$work/full" VENV="$work/venv"

# pkg-config present but no check, and no xz.
stubs "$work/nocheck" python3 g++
locale_stub "$work/nocheck" C fr_FR.utf8
script "$work/nocheck/pkg-config" "case \" \$* \" in *' check '*) exit 1 ;; esac
exec \"$real_pkg_config\" \"\$@\""
expect "no check, no xz" 1 "  apt-get install -y check xz-utils" \
	PATH="$work/nocheck" PYTHON="$good_python"

# A bare machine: no pkg-config (so check's header is asked of a compiler
# that finds none), no Python, no g++, no locales; xz there.
stubs "$work/bare" xz
script "$work/bare/cc" "exit 1"
locale_stub "$work/bare" C C.utf8 POSIX
expect "bare machine, no PYTHON" 1 \
	"  apt-get install -y pkg-config check locales python3-dev python3-venv g++" \
	PATH="$work/bare" VENV="$work/none" I18NPATH="$work/no-i18n"
grep -qxF "  localedef -i de_DE -f UTF-8 de_DE.UTF-8" "$work/out" \
	|| { echo "FAIL: bare machine: no localedef line"; status=1; }

# Only the locale missing (its sources there): the localedef line alone.
stubs "$work/nolocale" pkg-config xz
locale_stub "$work/nolocale" C POSIX
expect "no decimal-comma locale" 1 "  localedef -i de_DE -f UTF-8 de_DE.UTF-8" \
	PATH="$work/nolocale" PYTHON="$good_python"

# python3 without venv/ensurepip and without its headers.
stubs "$work/nopydev" pkg-config xz g++
locale_stub "$work/nopydev" C de_DE
script "$work/nopydev/python3" "case \"\$*\" in *ensurepip*|*Python.h*) exit 1 ;; esac
exec \"$real_python3\" \"\$@\""
expect "python3 without venv and headers" 1 "  apt-get install -y python3-venv python3-dev" \
	PATH="$work/nopydev" VENV="$work/none"

# The Python package's environment (PYVENV) missing, python3 without venv:
# python3-venv is named even though PYTHON is given.
expect "PYVENV to create, python3 without venv" 1 "  apt-get install -y python3-venv" \
	PATH="$work/nopydev" PYTHON="$good_python" PYVENV="$work/none"

# The caller's Python lacks the packages: no apt-get line, pip's command.
script "$work/full/badpython" "exit 1"
expect "PYTHON lacking packages" 1 \
	"Install them into it:  $work/full/badpython -m pip install liblinear-official==2.50.0 numpy==2.4.6 scipy==1.17.1 pytest==9.2.0" \
	PATH="$work/full" PYTHON="$work/full/badpython"

exit $status
