#!/bin/sh
# check_deps.sh - what `make check` needs beyond a C compiler and make,
# checked before anything is built, so that a machine lacking it stops at
# once instead of in the middle of the tests.
#
# Usage: sh tests/check_deps.sh   (make check runs it from the repo root)
# Environment:
#   PYTHON      the Python for the oracle tests when the caller chose one
#               (make check PYTHON=...): it must import liblinear (the
#               liblinear-official 2.50.0 package), numpy, scipy and pytest;
#               nothing is installed into it.
#   VENV        otherwise this project-local virtual environment (default
#               .venv) is used, and created with python3 -m venv and pip
#               when it is missing or incomplete (no root needed).
#   PYVENV      when set (make check sets build/pyvenv): the virtual
#               environment of our Python package's tests (make
#               python-check), created with python3 -m venv and pip install
#               $PYVENV_PACKAGES when missing or incomplete; python3 with
#               venv (ensurepip) is then needed even when PYTHON is given.
#   PKG_CONFIG  (default pkg-config), CC (default cc): the tools to ask.
#   I18NPATH    where localedef finds locale sources (default /usr/share/i18n).
# Needs root, so only reported: the `check` unit-test framework (found by
# pkg-config, or its header when pkg-config is absent), pkg-config, xz,
# for creating the venv python3 with venv (ensurepip) and its headers
# (liblinear-official has no Linux wheels: pip compiles it, with g++),
# and a decimal-comma locale (de_DE or fr_FR, UTF-8), which the model-file
# tests switch to: its sources come with the `locales` package, and
# `localedef` generates it.
# Exit 0 when everything is there (the last line names the Python);
# exit 1 at once otherwise, printing the one `apt-get install` line that
# installs exactly what is missing (Debian package names) and, when the
# locale is missing, the `localedef` line; or what to do about a PYTHON
# that lacks packages; or pip's failure.
set -u
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${CC:-cc}
VENV=${VENV:-.venv}
PIP_PACKAGES="liblinear-official==2.50.0 numpy==2.4.6 scipy==1.17.1 pytest==9.2.0"
IMPORTS="import liblinear.liblinearutil, numpy, scipy, pytest"

missing=""
need() {
	case " $missing " in *" $1 "*) ;; *) missing="${missing:+$missing }$1" ;; esac
}
has() {
	command -v "$1" >/dev/null 2>&1
}

if has "$PKG_CONFIG"; then
	"$PKG_CONFIG" --exists check 2>/dev/null || need check
else
	need pkg-config
	# Without pkg-config, ask the compiler whether check's header is there.
	printf '#include <check.h>\n' | "$CC" -E -x c - >/dev/null 2>&1 || need check
fi
has xz || need xz-utils

# The locales test_model_io.c accepts, as `locale -a` spells them.
comma_locale=0
for name in $(locale -a 2>/dev/null); do
	case $name in
	de_DE | de_DE.utf8 | de_DE.UTF-8 | fr_FR.utf8 | fr_FR.UTF-8) comma_locale=1 ;;
	esac
done
if [ $comma_locale = 0 ] && [ ! -f "${I18NPATH:-/usr/share/i18n}/locales/de_DE" ]; then
	need locales
fi

python=""
make_venv=0
if [ -n "${PYTHON:-}" ]; then
	if ! has "$PYTHON"; then
		echo "check_deps: PYTHON=$PYTHON: no such program" >&2
		exit 1
	fi
	if ! "$PYTHON" -c "$IMPORTS" >/dev/null 2>&1; then
		echo "check_deps: PYTHON=$PYTHON cannot import liblinear, numpy, scipy and pytest." >&2
		echo "Install them into it:  $PYTHON -m pip install $PIP_PACKAGES" >&2
		echo "or leave PYTHON unset and make check creates its own environment in $VENV." >&2
		exit 1
	fi
	python=$PYTHON
elif [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "$IMPORTS" >/dev/null 2>&1; then
	python=$VENV/bin/python
else
	make_venv=1
	if has python3; then
		python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need python3-venv
		python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
			>/dev/null 2>&1 || need python3-dev
	else
		need python3-dev
		need python3-venv
	fi
	has g++ || need g++
fi

# Our package's environment (python-check), separate from the oracle's.
pyvenv_ready=1
if [ -n "${PYVENV:-}" ]; then
	PYVENV_IMPORTS="import numpy, scipy, sklearn, pytest, build, wheel, setuptools"
	if ! [ -f "$PYVENV/.ready" ] || ! "$PYVENV/bin/python" -c "$PYVENV_IMPORTS" >/dev/null 2>&1; then
		pyvenv_ready=0
		if has python3; then
			python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need python3-venv
		else
			need python3-venv
		fi
	fi
fi

if [ -n "$missing" ] || [ $comma_locale = 0 ]; then
	echo "make check needs system packages or a locale that are missing. As root, run:" >&2
	echo "" >&2
	[ -z "$missing" ] || echo "  apt-get install -y $missing" >&2
	[ $comma_locale = 1 ] || echo "  localedef -i de_DE -f UTF-8 de_DE.UTF-8" >&2
	echo "" >&2
	echo "then run make check again (it creates its Python environment itself)." >&2
	exit 1
fi

if [ $make_venv = 1 ]; then
	echo "check_deps: creating the Python environment $VENV (pip install $PIP_PACKAGES)"
	# shellcheck disable=SC2086 # PIP_PACKAGES is a list of requirements
	if ! python3 -m venv "$VENV" \
		|| ! "$VENV/bin/python" -m pip install --disable-pip-version-check -q $PIP_PACKAGES \
		|| ! "$VENV/bin/python" -c "$IMPORTS"; then
		echo "check_deps: could not set up $VENV (see pip's message above; it needs the network" >&2
		echo "to reach PyPI). Fix that, or give make check PYTHON=... with those packages." >&2
		exit 1
	fi
	python=$VENV/bin/python
fi
if [ $pyvenv_ready = 0 ]; then
	echo "check_deps: creating the Python package's test environment $PYVENV (pip install ${PYVENV_PACKAGES:-})"
	# shellcheck disable=SC2086 # PYVENV_PACKAGES is a list of requirements
	if ! python3 -m venv "$PYVENV" \
		|| ! "$PYVENV/bin/python" -m pip install --disable-pip-version-check -q ${PYVENV_PACKAGES:-} \
		|| ! "$PYVENV/bin/python" -c "$PYVENV_IMPORTS" || ! touch "$PYVENV/.ready"; then
		echo "check_deps: could not set up $PYVENV (see pip's message above; it needs the network" >&2
		echo "to reach PyPI)." >&2
		exit 1
	fi
fi
echo "check_deps: all test dependencies found; oracle tests use $python"
