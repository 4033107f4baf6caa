# LIBLINEAR-IK build. `make` builds train, predict, tools/ikmap and the library;
# `make check` runs every test; `make demo`, `make bench`, `make install`.

CC ?= cc
OPT ?= -O3
CFLAGS ?= $(OPT)
WARN = -Wall -Wextra
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) -fPIC -fopenmp $(CFLAGS)
LDLIBS = -lm -fopenmp
PREFIX ?= /usr/local
PYTHON ?= python3

SHVER = 6
LIB_SO = liblinear/liblinear.so.$(SHVER)
LIB_A = liblinear/liblinear.a
PROGRAMS = train predict tools/ikmap

# The library only; the programs are in tools/ (the tools block below).
LIB_SRC = $(wildcard liblinear/*.c)
LIB_OBJ = $(LIB_SRC:.c=.o)
LIB_HDR = $(wildcard liblinear/*.h)
# liblinear.so.6 exports exactly upstream 2.50's API: the library's objects
# (liblinear/ and common/) are compiled with hidden visibility and only the
# definitions of linear.h's names are marked LIBLINEAR_EXPORT
# (liblinear/export.h; tests/oracle/test_abi.py checks the set); the
# OpenMP lock names the compilers make, which no attribute reaches, are
# made local by liblinear/liblinear.map. The static liblinear.a, which the
# programs, ikmap and the tests link, is built from the same objects:
# hidden names still link statically.
LIB_VISIBILITY = -fvisibility=hidden
LIB_MAP = liblinear/liblinear.map

# ---- common: output files written atomically, inputs that must be regular
# files, the seeded RNG (common/*.h), used by liblinear/ and ikmap/ alike;
# compiled into liblinear.a, which every program and ikmap already link. Defined before the rules that list LIB_OBJ/LIB_HDR.
COMMON_SRC = $(wildcard common/*.c)
COMMON_HDR = $(wildcard common/*.h)
LIB_OBJ += $(COMMON_SRC:.c=.o)
LIB_HDR += $(COMMON_HDR)
ALL_CFLAGS += -Icommon

# (liblinear/export.h, which came with LIB_VISIBILITY: a tree built before
# then rebuilds these objects hidden too.)
common/%.o: common/%.c $(COMMON_HDR) liblinear/export.h
	$(CC) $(ALL_CFLAGS) $(LIB_VISIBILITY) -c -o $@ $<
# ---- end common ----

# The GPU mapper's library (built in the GPU block at the end); named here
# because prerequisites are expanded where a rule is read.
GPU_LIB = cuda/libanne_gpu.a
GPU_HDR = $(wildcard cuda/*.h)

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:.c=)
# Every test program depends on the shared test headers (fixtures).
UNIT_HDR = $(wildcard tests/unit/*.h)

.PHONY: all lib check unit oracle demo bench bench-ik install clean

all: $(PROGRAMS) $(LIB_SO) $(LIB_A)

lib: $(LIB_SO) $(LIB_A)

liblinear/%.o: liblinear/%.c $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) $(LIB_VISIBILITY) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(LIB_SO): $(LIB_OBJ) $(LIB_MAP)
	$(CC) -shared -Wl,-soname,liblinear.so.$(SHVER) -Wl,--version-script,$(LIB_MAP) -o $@ $(LIB_OBJ) $(LDLIBS)
	ln -sf liblinear.so.$(SHVER) liblinear/liblinear.so

tests/unit/test_%: tests/unit/test_%.c $(UNIT_HDR) $(LIB_HDR) $(LIB_A)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Iliblinear -o $@ $< $(LIB_A) $$(pkg-config --libs check) $(LDLIBS)

# ---- BLAS: the SGEMM under the dense aNNE path (ikmap/gemm.[ch]) ----
# BLAS=auto (default): OpenBLAS when `pkg-config --exists openblas`, else
# any CBLAS that pkg-config knows as `cblas`, else the built-in kernel
# (ikmap/sgemm.c), which needs nothing but the C compiler; no pkg-config
# at all means built-in too. BLAS=openblas|cblas|builtin forces a choice.
# Building prints one `BLAS: ...` line; ikmap/blas-flavour remembers the
# choice so that switching it rebuilds what depends on it (as cuda/flavour).
PKG_CONFIG ?= pkg-config
BLAS ?= auto
HAVE_PKG_CONFIG := $(shell command -v $(PKG_CONFIG) >/dev/null 2>&1 && echo yes)
ifeq ($(HAVE_PKG_CONFIG),yes)
BLAS_HAS_OPENBLAS := $(shell $(PKG_CONFIG) --exists openblas 2>/dev/null && echo yes)
BLAS_HAS_CBLAS := $(shell $(PKG_CONFIG) --exists cblas 2>/dev/null && echo yes)
endif
ifeq ($(BLAS),auto)
ifeq ($(BLAS_HAS_OPENBLAS),yes)
BLAS_CHOICE := openblas
else ifeq ($(BLAS_HAS_CBLAS),yes)
BLAS_CHOICE := cblas
else
BLAS_CHOICE := builtin
BLAS_WHY := $(if $(HAVE_PKG_CONFIG),no OpenBLAS or CBLAS found by pkg-config,no pkg-config found)
endif
else ifeq ($(BLAS),openblas)
$(if $(BLAS_HAS_OPENBLAS),,$(error BLAS=openblas: pkg-config does not find openblas (apt-get install libopenblas-dev pkg-config)))
BLAS_CHOICE := openblas
else ifeq ($(BLAS),cblas)
$(if $(BLAS_HAS_CBLAS),,$(error BLAS=cblas: pkg-config does not find cblas))
BLAS_CHOICE := cblas
else ifeq ($(BLAS),builtin)
BLAS_CHOICE := builtin
BLAS_WHY := BLAS=builtin
else
$(error BLAS=$(BLAS): use auto, openblas, cblas or builtin)
endif
ifeq ($(BLAS_CHOICE),openblas)
# OpenBLAS is not linked: ikmap/gemm.c opens it with dlopen at the first
# GEMM. A pthreads OpenBLAS starts its thread pool when it is loaded and
# those threads spin (CPU time) for a while, also in the runs that never
# call it (iForest, minmax, acos, plain training). gemm.c opens the
# library by the soname the linker would have recorded (read here from the
# file pkg-config names), then from pkg-config's libdir.
OPENBLAS_LIBDIR := $(patsubst %/,%,$(shell $(PKG_CONFIG) --variable=libdir openblas))
OPENBLAS_FILE := $(OPENBLAS_LIBDIR)/lib$(patsubst -l%,%,$(firstword $(filter -l%,$(shell $(PKG_CONFIG) --libs-only-l openblas)))).so
OPENBLAS_SONAME := $(shell objdump -p '$(OPENBLAS_FILE)' 2>/dev/null | sed -n 's/^ *SONAME *//p')
$(if $(OPENBLAS_SONAME),,$(error BLAS=$(BLAS): cannot read the soname of $(OPENBLAS_FILE) (objdump -p, binutils); use BLAS=builtin))
BLAS_CFLAGS := -DIKMAP_BLAS_OPENBLAS -DIKMAP_OPENBLAS_SONAME=\"$(OPENBLAS_SONAME)\" \
	-DIKMAP_OPENBLAS_LIBDIR=\"$(OPENBLAS_LIBDIR)\" $(shell $(PKG_CONFIG) --cflags openblas)
BLAS_LIBS := -ldl
BLAS_LINE := BLAS: OpenBLAS $(shell $(PKG_CONFIG) --modversion openblas) (pkg-config openblas; $(OPENBLAS_SONAME) opened at the first GEMM)
else ifeq ($(BLAS_CHOICE),cblas)
BLAS_CFLAGS := -DIKMAP_BLAS_CBLAS $(shell $(PKG_CONFIG) --cflags cblas)
BLAS_LIBS := $(shell $(PKG_CONFIG) --libs cblas)
BLAS_LINE := BLAS: CBLAS $(shell $(PKG_CONFIG) --modversion cblas) (pkg-config cblas)
else
BLAS_CFLAGS :=
BLAS_LIBS :=
BLAS_LINE := BLAS: built-in SGEMM ($(BLAS_WHY))
endif

ikmap/blas-flavour: FORCE
	@$(if $(BLAS_SAID),:,echo '$(BLAS_LINE)')
	@echo '$(BLAS_CHOICE) $(BLAS_CFLAGS) $(BLAS_LIBS)' | cmp -s - $@ || echo '$(BLAS_CHOICE) $(BLAS_CFLAGS) $(BLAS_LIBS)' > $@

ikmap/gemm.o: ikmap/gemm.c ikmap/gemm.h ikmap/sgemm.h ikmap/blas-flavour
	$(CC) $(ALL_CFLAGS) $(BLAS_CFLAGS) -c -o $@ $<

# acc += a * b as one FMA where the CPU has it (see ikmap/sgemm.c).
ikmap/sgemm.o: ALL_CFLAGS += -ffp-contract=fast
# The reference arithmetic of the minmax and acos maps (issue 27): no contraction into FMA.
ikmap/detmath.o: ALL_CFLAGS += -ffp-contract=off
# (the acos Gaussians and dot products, and scale 2's transform, ikmap.h)
ikmap/signproj.o: ALL_CFLAGS += -ffp-contract=off
ikmap/kernel_rows.o: ALL_CFLAGS += -ffp-contract=off
# (issue 28's per-feature statistics: the -S 2/3/4 factors are stored, and cells depend on them)
ikmap/ikmap.o: ALL_CFLAGS += -ffp-contract=off
ikmap/ikmap_scan.o: ALL_CFLAGS += -ffp-contract=off
# ---- end BLAS ----

# ---- ikmap: the Isolation Kernel feature map (ikmap/; its GEMM from the BLAS block above) ----
# It maps on a GPU through $(GPU_LIB) (the GPU block below), so whatever
# links $(IKMAP_A) links $(IKMAP_LIBS) after it and depends on $(GPU_LIB).
IKMAP_A = ikmap/libikmap.a
IKMAP_SRC = $(wildcard ikmap/*.c)
IKMAP_OBJ = $(IKMAP_SRC:.c=.o)
IKMAP_HDR = $(wildcard ikmap/*.h)
IKMAP_LIBS = $(GPU_LIB) $(BLAS_LIBS) $(GPU_LDLIBS)

ikmap/%.o: ikmap/%.c $(IKMAP_HDR) $(LIB_HDR) $(GPU_HDR)
	$(CC) $(ALL_CFLAGS) -Iliblinear -Icuda -c -o $@ $<

$(IKMAP_A): $(IKMAP_OBJ)
	rm -f $@
	ar rcs $@ $(IKMAP_OBJ)

# test_ikmap_gpu has its own rule in the GPU block.
IKMAP_TESTS = $(filter-out tests/unit/test_ikmap_gpu, $(filter tests/unit/test_ikmap%, $(UNIT_BIN)))

$(IKMAP_TESTS): tests/unit/%: tests/unit/%.c $(UNIT_HDR) $(IKMAP_HDR) $(LIB_HDR) $(IKMAP_A) $(LIB_A) $(GPU_LIB)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Iliblinear -Iikmap -o $@ $< $(IKMAP_A) $(LIB_A) $$(pkg-config --libs check) $(IKMAP_LIBS) $(LDLIBS)

# Mapping time against the GEMM it is built on (and OpenBLAS's DGEMM):
# `make ikmap-bench` builds it, with OpenBLAS only; run e.g.
# `bench/ikmap_bench 20000 54` (usage in the source).
bench/ikmap_bench: bench/ikmap_bench.c $(IKMAP_HDR) $(IKMAP_A) $(LIB_A) $(GPU_LIB)
	@test "$(BLAS_CHOICE)" = openblas || { echo "ikmap-bench calls OpenBLAS itself; this build has $(BLAS_CHOICE)"; exit 1; }
	$(CC) $(ALL_CFLAGS) $(BLAS_CFLAGS) -Iliblinear -Iikmap -o $@ $< $(IKMAP_A) $(LIB_A) $(IKMAP_LIBS) $$($(PKG_CONFIG) --libs openblas) $(LDLIBS)

.PHONY: ikmap-bench
ikmap-bench: bench/ikmap_bench

# The minmax map's sampler (ikmap/cws.c, issue 27): its reference arithmetic allows no FMA contraction.
ikmap/cws.o: ALL_CFLAGS += -ffp-contract=off
# Rows per second of the minmax sampler against aNNE: bench/cws_speed FILE... (usage in the source).
bench/cws_speed: bench/cws_speed.c bench/libsvm_rows.c bench/libsvm_rows.h $(IKMAP_HDR) $(LIB_HDR) $(IKMAP_A) $(LIB_A) $(GPU_LIB)
	$(CC) $(ALL_CFLAGS) -Iliblinear -Iikmap -o $@ bench/cws_speed.c bench/libsvm_rows.c $(IKMAP_A) $(LIB_A) $(IKMAP_LIBS) $(LDLIBS)

all lib: $(IKMAP_A)
# ---- end ikmap ----

# ---- lik: the kernel's C API as a library (ik/liblinear_ik.h, owned by the capi branch) ----
# ik/libliblinear-ik.so.1 (soname libliblinear-ik.so.1, link
# libliblinear-ik.so) exports exactly the lik_* functions of
# ik/liblinear_ik.h; ik/libliblinear-ik.a holds the objects of ik/ (the
# API and the pair files), ikmap/ and common/ only, so a program links it
# with liblinear.a (as train and predict do).
# Decision: the kernel trains on cell rows through solver entry points
# that are not part of linear.h's ABI (train_rows, cross_validation_rows,
# find_parameters_rows on ROWS_CELLS), so instead of linking
# liblinear.so.6 (which keeps upstream's ABI and gains no export and no
# dependency) the shared library carries its own hidden copy of the
# solver objects, the map, the static CUDA mapper (cuBLAS is opened at
# run time) and OpenBLAS when the build chose it. Every object is built
# -fPIC and the link hides all but lik_* (ik/liblinear_ik.map, a version
# script made from the header's declarations: it hides what
# -fvisibility=hidden cannot, the static CUDA runtime's symbols too), so
# a program may link both libraries: their copies never clash.
# Defined before the programs' block, which links $(LIK_A).
LIK_SHVER = 1
LIK_SO = ik/libliblinear-ik.so.$(LIK_SHVER)
LIK_A = ik/libliblinear-ik.a
LIK_SRC = $(wildcard ik/*.c)
LIK_HDR = $(wildcard ik/*.h)
LIK_OBJ = $(LIK_SRC:.c=.o)
LIK_COMMON_OBJ = $(COMMON_SRC:.c=.o)
LIK_TESTS = $(filter tests/unit/test_lik_%, $(UNIT_BIN))

$(LIK_A): $(LIK_OBJ) $(IKMAP_OBJ) $(LIK_COMMON_OBJ)
	rm -f $@
	ar rcs $@ $^

$(LIK_SO): $(LIK_OBJ) $(IKMAP_OBJ) $(LIB_OBJ) $(GPU_LIB) ik/liblinear_ik.map
	$(CC) -shared -Wl,-soname,libliblinear-ik.so.$(LIK_SHVER) -Wl,--version-script=ik/liblinear_ik.map \
		-Wl,--no-undefined -o $@ $(LIK_OBJ) $(IKMAP_OBJ) $(LIB_OBJ) $(IKMAP_LIBS) $(LDLIBS)
	ln -sf libliblinear-ik.so.$(LIK_SHVER) ik/libliblinear-ik.so

# The version script: the functions ik/liblinear_ik.h declares, global; the rest, local.
ik/liblinear_ik.map: ik/liblinear_ik.h
	{ echo '{'; echo '	global:'; \
	  sed -n 's/^[a-z].*[ *]\(lik_[a-z0-9_]*\)(.*/\1/p' $< | sort -u | sed 's/.*/		&;/'; \
	  echo '	local: *;'; echo '};'; } > $@

all lib: $(LIK_SO) $(LIK_A)

$(LIK_TESTS): tests/unit/%: tests/unit/%.c $(UNIT_HDR) $(LIK_HDR) $(IKMAP_HDR) $(LIB_HDR) $(LIK_A) $(LIB_A) $(GPU_LIB)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Iliblinear -Iikmap -Iik -o $@ $< $(LIK_A) $(LIB_A) $$(pkg-config --libs check) $(IKMAP_LIBS) $(LDLIBS)

.PHONY: install-lik
install: install-lik
# liblinear-ik.pc: Libs.private is what a static link (pkg-config --static) adds.
install-lik: all
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 644 ik/liblinear_ik.h $(DESTDIR)$(PREFIX)/include/liblinear_ik.h
	install -m 755 $(LIK_SO) $(DESTDIR)$(PREFIX)/lib/libliblinear-ik.so.$(LIK_SHVER)
	ln -sf libliblinear-ik.so.$(LIK_SHVER) $(DESTDIR)$(PREFIX)/lib/libliblinear-ik.so
	install -m 644 $(LIK_A) $(DESTDIR)$(PREFIX)/lib/libliblinear-ik.a
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@PRIVATE_LIBS@|$(strip -llinear $(BLAS_LIBS) $(GPU_LDLIBS) -lm -fopenmp)|' \
		ik/liblinear-ik.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/liblinear-ik.pc

clean: clean-lik
.PHONY: clean-lik
clean-lik:
	rm -f ik/*.so ik/*.so.* ik/*.a ik/liblinear_ik.map
# ---- end lik ----

# ---- ik and tools: the Isolation Kernel glue (ik/) and the programs (tools/) ----
# The programs live in tools/: train.c, predict.c and ikmap.c, with the
# option parsing they share (ik_options.c, cli_number.c). train and predict
# are built at the root (upstream's habit); the ikmap command is built as
# tools/ikmap (./ikmap is the map library's folder) and installed as
# $(PREFIX)/bin/ikmap.
IKMAP_TOOL = tools/ikmap
TOOLS_MAIN_SRC = tools/train.c tools/predict.c tools/ikmap.c
TOOLS_SRC = $(filter-out $(TOOLS_MAIN_SRC), $(wildcard tools/*.c))
TOOLS_OBJ = $(TOOLS_SRC:.c=.o)
TOOLS_HDR = $(wildcard tools/*.h)
IK_SRC = $(wildcard ik/*.c)
IK_OBJ = $(IK_SRC:.c=.o)
IK_HDR = $(wildcard ik/*.h)
# ik/ is the kernel's library (the lik block above); the programs link
# its static archive with liblinear.a.
IK_CFLAGS = -Iliblinear -Iikmap -Iik
TOOLS_CFLAGS = $(IK_CFLAGS) -Itools
PROGRAM_LIBS = $(TOOLS_OBJ) $(LIK_A) $(LIB_A)
PROGRAM_DEPS = $(PROGRAM_LIBS) $(GPU_LIB)

ik/%.o: ik/%.c $(IK_HDR) $(TOOLS_HDR) $(IKMAP_HDR) $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) $(IK_CFLAGS) -c -o $@ $<

tools/%.o: tools/%.c $(TOOLS_HDR) $(IK_HDR) $(IKMAP_HDR) $(LIB_HDR) $(COMMON_HDR)
	$(CC) $(ALL_CFLAGS) $(TOOLS_CFLAGS) -c -o $@ $<

train: tools/train.o $(PROGRAM_DEPS)
	$(CC) -o $@ tools/train.o $(PROGRAM_LIBS) $(IKMAP_LIBS) $(LDLIBS)

predict: tools/predict.o $(PROGRAM_DEPS)
	$(CC) -o $@ tools/predict.o $(PROGRAM_LIBS) $(IKMAP_LIBS) $(LDLIBS)

$(IKMAP_TOOL): tools/ikmap.o $(PROGRAM_DEPS)
	$(CC) -o $@ tools/ikmap.o $(PROGRAM_LIBS) $(IKMAP_LIBS) $(LDLIBS)

IK_TESTS = $(filter tests/unit/test_ik_%, $(UNIT_BIN))

$(IK_TESTS): tests/unit/%: tests/unit/%.c $(UNIT_HDR) $(IK_HDR) $(TOOLS_HDR) $(IKMAP_HDR) $(LIB_HDR) $(PROGRAM_DEPS)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) $(TOOLS_CFLAGS) -o $@ $< $(PROGRAM_LIBS) $$(pkg-config --libs check) $(IKMAP_LIBS) $(LDLIBS)
# ---- end ik ----

# Times the primal Newton solvers on 1 and 2 threads: bench/time_primal FILE.
bench/time_primal: bench/time_primal.c $(LIB_HDR) $(LIB_A)
	$(CC) $(ALL_CFLAGS) -Iliblinear -o $@ $< $(LIB_A) $(LDLIBS)
# Times the LIBSVM reader alone on one file: bench/read_time FILE [REPEATS] (bench/reading.py).
bench/read_time: bench/read_time.c $(LIB_HDR) $(LIB_A)
	$(CC) $(ALL_CFLAGS) -Iliblinear -o $@ $< $(LIB_A) $(LDLIBS)

# Each test program runs from the repo root; all run even if one fails.
unit: $(UNIT_BIN)
	@status=0; for t in $(UNIT_BIN); do echo "== $$t"; ./$$t || status=1; done; exit $$status

oracle: all
	$(ORACLE_PYTHON) -m pytest -q tests/oracle

# ---- make check: its dependencies first (tests/check_deps.sh) ----
# PYTHON given (command line or environment): the oracle tests run on it;
# not given: on the project's own .venv, which check_deps.sh creates (pip)
# when it can, or stops at once with the apt-get line for what needs root.
ifeq ($(origin PYTHON),file)
ORACLE_PYTHON = $(CURDIR)/.venv/bin/python
CHECK_DEPS_ENV = PYTHON= VENV=.venv
else
ORACLE_PYTHON = $(PYTHON)
CHECK_DEPS_ENV = PYTHON="$(PYTHON)"
endif

.PHONY: check-deps check-run blas-identity blas-lazy check-deps-test
check-deps:
	@$(CHECK_DEPS_ENV) PYVENV="$(PYVENV)" PYVENV_PACKAGES="$(PYVENV_PACKAGES)" PKG_CONFIG="$(PKG_CONFIG)" CC="$(CC)" sh tests/check_deps.sh

# The tests run in a sub-make, so that nothing is built before the
# dependencies are known to be there; it does not repeat the BLAS line.
check: check-deps
	@echo '$(BLAS_LINE)'
	@$(MAKE) --no-print-directory BLAS_SAID=1 check-run

check-run: all unit oracle blas-identity blas-lazy check-deps-test python-check

# check_deps.sh itself, on simulated machines that lack packages.
check-deps-test:
	sh tests/test_check_deps.sh "$(ORACLE_PYTHON)"

# Byte-identical results with the built-in SGEMM (SKIPPED in a builtin build).
blas-identity: all
	CC="$(CC)" CFLAGS="$(CFLAGS)" sh tests/blas_identity.sh

# OpenBLAS is opened at the first GEMM only (ikmap/gemm.c).
blas-lazy: all
	CC="$(CC)" sh tests/blas_lazy.sh
# ---- end make check ----

# ---- python ----
# The Python package (python/, import name liblinear, distribution
# liblinear-ik) and its tests (tests/python/). liblinear-official uses the
# same import name, so our package gets its own virtual environment,
# build/pyvenv (python3 -m venv + pip), and the tests run the oracle
# ($(ORACLE_PYTHON), as the oracle tests do) in a subprocess.
# `make python-check` installs the package from ./python (its setup.py runs
# `make lib NVCC=` on a copy of the sources) and runs the tests, which also
# build a wheel and an sdist and install them (tests/python/test_packaging.py).
PYVENV = build/pyvenv
# pandas: scikit-learn's estimator checks also feed pandas objects to the sklearn layer (skipped without it).
PYVENV_PACKAGES = numpy==2.4.6 scipy==1.17.1 scikit-learn==1.9.1 pandas==2.3.3 pytest==9.2.0 build==1.6.1 wheel==0.48.0 setuptools
PYTHON3 ?= python3

.PHONY: python-venv python-install python-check
python-venv: $(PYVENV)/.ready

$(PYVENV)/.ready:
	$(PYTHON3) -m venv $(PYVENV)
	$(PYVENV)/bin/python -m pip install -q $(PYVENV_PACKAGES)
	touch $@

python-install: $(PYVENV)/.ready
	$(PYVENV)/bin/python -m pip install -q --no-build-isolation --no-deps --force-reinstall ./python

python-check: train predict python-install
	LIBLINEAR_IK_ORACLE_PYTHON="$(ORACLE_PYTHON)" LIBLINEAR_IK_DATA="$(abspath $(DATA_DIR))" \
		$(PYVENV)/bin/python -m pytest -q tests/python
# Our Python predict on a 100k-row CSR matrix against upstream's
# (bench/results/python-predict.md); ORACLE_PYTHON has liblinear-official.
.PHONY: bench-python
bench-python: python-install
	$(PYTHON3) bench/python_predict.py --ours $(PYVENV)/bin/python --oracle "$(ORACLE_PYTHON)"
# ---- end python ----

demo: all
	CC="$(CC)" sh tests/demo.sh

bench: all bench-ik bench-blas
	$(PYTHON) bench/run.py

# The built-in SGEMM against OpenBLAS: tile shapes and whole maps, both
# builds (bench/blas_fallback.py; bench/results/blas-fallback.md).
bench/sgemm_shapes: bench/sgemm_shapes.c $(IKMAP_HDR) $(IKMAP_A) $(LIB_A) $(GPU_LIB)
	$(CC) $(ALL_CFLAGS) -Iliblinear -Iikmap -o $@ $< $(IKMAP_A) $(LIB_A) $(IKMAP_LIBS) $(LDLIBS)

.PHONY: bench-blas
bench-blas: all bench/sgemm_shapes bench/ik_mapping
	$(PYTHON) bench/blas_fallback.py

# The Isolation Kernel benchmarks (bench/results/ik-*.md); each script
# keeps its measurements in a .json beside its table and skips those
# already there, so delete the .json (or pass --fresh) to measure again.
bench/ik_mapping: bench/ik_mapping.c bench/libsvm_rows.c bench/libsvm_rows.h $(IKMAP_HDR) $(LIB_HDR) $(IKMAP_A) $(LIB_A) $(GPU_LIB)
	$(CC) $(ALL_CFLAGS) -Iliblinear -Iikmap -o $@ bench/ik_mapping.c bench/libsvm_rows.c $(IKMAP_A) $(LIB_A) $(IKMAP_LIBS) $(LDLIBS)

# The acos map's speed beside the same-shape SGEMM, aNNE and iForest (issue 27):
# bench/kernel_speed FILE [K...], one thread.
bench/kernel_speed: bench/kernel_speed.c bench/libsvm_rows.c bench/libsvm_rows.h $(IKMAP_HDR) $(LIB_HDR) $(IKMAP_A) $(LIB_A) $(GPU_LIB)
	$(CC) $(ALL_CFLAGS) -Iliblinear -Iikmap -o $@ bench/kernel_speed.c bench/libsvm_rows.c $(IKMAP_A) $(LIB_A) $(IKMAP_LIBS) $(LDLIBS)

bench/lib_train: bench/lib_train.c bench/libsvm_rows.c bench/libsvm_rows.h $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) -Iliblinear -o $@ bench/lib_train.c bench/libsvm_rows.c -ldl

bench/cells_train: bench/cells_train.c $(LIB_HDR) $(LIB_A)
	$(CC) $(ALL_CFLAGS) -Iliblinear -o $@ $< $(LIB_A) $(LDLIBS)

bench-ik: all bench/ik_mapping bench/lib_train bench/cells_train
	$(PYTHON) bench/ik_defaults.py
	$(PYTHON) bench/ik_accuracy.py
	$(PYTHON) bench/ik_accuracy.py --tag choice8000 --choice-rows 8000 --methods ik-anne,ik-iforest
	$(PYTHON) bench/ik_mapping.py
	$(PYTHON) bench/ik_training.py

# ---- bench-search (issue 21): train -C -k's staged search against the exhaustive one ----
# SEARCH_SETS picks the sets; SEARCH_EXHAUSTIVE=--exhaustive reruns the slow exhaustive
# searches (else their committed tables in bench/results/ik_search_exhaustive_*.txt are read).
SEARCH_SETS ?= satimage,pendigits,usps,letter,a9a,ijcnn1,images
SEARCH_EXHAUSTIVE ?=
.PHONY: bench-search
bench-search: all
	$(PYTHON) bench/ik_search.py --sets $(SEARCH_SETS) $(SEARCH_EXHAUSTIVE)
# ---- end bench-search ----

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 train $(DESTDIR)$(PREFIX)/bin/train
	install -m 755 predict $(DESTDIR)$(PREFIX)/bin/predict
	install -m 755 $(IKMAP_TOOL) $(DESTDIR)$(PREFIX)/bin/ikmap
	install -m 644 liblinear/linear.h $(DESTDIR)$(PREFIX)/include/linear.h
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/liblinear.so.$(SHVER)
	ln -sf liblinear.so.$(SHVER) $(DESTDIR)$(PREFIX)/lib/liblinear.so
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/liblinear.a
	sed -e 's|@PREFIX@|$(PREFIX)|' liblinear/liblinear.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/liblinear.pc

# ---- GPU aNNE mapper (cuda/, owned by the cuda branch) ----------------------
# nvcc is taken from the PATH or /usr/local/cuda/bin; `make NVCC=` builds the
# CPU-only library instead (anne_gpu_none.c: 0 devices, create says why).
# Programs that map on the GPU link $(GPU_LIB) $(GPU_LDLIBS): cudart is
# static and cuBLAS is opened at run time, so they start without CUDA.
ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
endif
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVCCFLAGS ?= -O3
# The datasets: LIBLINEAR_IK_DATA when set (as the tests and .ci/run read it), else ../shared/data.
DATA_DIR ?= $(or $(LIBLINEAR_IK_DATA),../shared/data)
GPU_HOST_OBJ = cuda/anne_bound.o cuda/anne_plan.o
ifneq ($(strip $(NVCC)),)
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(NVCC)))
CUDA_LIBDIR ?= $(CUDA_HOME)/lib64
GPU_FLAVOUR = cuda
GPU_OBJ = cuda/anne_gpu.o
GPU_LDLIBS = -L$(CUDA_LIBDIR) -lcudart_static -ldl -lpthread -lrt -lstdc++
ALL_NVCCFLAGS = -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC,-Wall,-Wextra -DANNE_CUDA_LIBDIR='"$(CUDA_LIBDIR)"' $(NVCCFLAGS)
else
GPU_FLAVOUR = none
GPU_OBJ = cuda/anne_gpu_none.o
GPU_LDLIBS =
endif
# test_anne_gpu links check statically so it can be carried to a GPU machine
# that has no libcheck.
CHECK_STATIC_LIBS = -Wl,-Bstatic -lcheck_pic -lsubunit -Wl,-Bdynamic -lrt -lm

.PHONY: gpu-lib bench-gpu FORCE

all: $(GPU_LIB)

gpu-lib: $(GPU_LIB)

cuda/%.o: cuda/%.c $(GPU_HDR)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

cuda/anne_gpu.o: cuda/anne_gpu.cu $(GPU_HDR)
	$(NVCC) $(ALL_NVCCFLAGS) -c -o $@ $<

# Remembers which flavour the library was built as, so that switching
# between `make` and `make NVCC=` rebuilds it.
cuda/flavour: FORCE
	@echo $(GPU_FLAVOUR) | cmp -s - $@ || echo $(GPU_FLAVOUR) > $@

$(GPU_LIB): $(GPU_HOST_OBJ) $(GPU_OBJ) cuda/flavour
	rm -f $@
	ar rcs $@ $(GPU_HOST_OBJ) $(GPU_OBJ)

tests/unit/test_anne_gpu: tests/unit/test_anne_gpu.c $(UNIT_HDR) $(GPU_HDR) $(GPU_LIB) $(LIB_A)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Iliblinear -Icuda -o $@ $< $(GPU_LIB) $(LIB_A) $(CHECK_STATIC_LIBS) $(GPU_LDLIBS) $(LDLIBS)

tests/unit/test_ikmap_gpu: tests/unit/test_ikmap_gpu.c $(UNIT_HDR) $(IKMAP_HDR) $(LIB_HDR) $(IKMAP_A) $(LIB_A) $(GPU_LIB)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Iliblinear -Iikmap -o $@ $< $(IKMAP_A) $(LIB_A) $(CHECK_STATIC_LIBS) $(IKMAP_LIBS) $(LDLIBS)

# What a GPU session carries (bench/results/README-gpu.md): the shared
# libraries the programs need beyond libc (the device machine may lack
# OpenBLAS) and the datasets, under build/gpu/.
GPU_CARRY_PROGRAMS = train predict tools/ikmap tests/unit/test_ikmap_gpu tests/unit/test_anne_gpu
.PHONY: gpu-carry
gpu-carry: $(GPU_CARRY_PROGRAMS)
	@test -n "$(strip $(NVCC))" || { echo "gpu-carry needs nvcc (CUDA toolkit)"; exit 1; }
	rm -rf build/gpu
	mkdir -p build/gpu/lib build/gpu/data
	for lib in libgomp.so.1; do \
		path=$$(ldd train | awk -v l=$$lib '$$1 == l { print $$3 }'); \
		test -z "$$path" || cp -L "$$path" build/gpu/lib/ || exit 1; \
	done
	# OpenBLAS is opened at the first GEMM (ikmap/gemm.c), so ldd of the
	# programs does not name it: carry it and what it links.
	if test -n "$(OPENBLAS_SONAME)" && test -f "$(OPENBLAS_LIBDIR)/$(OPENBLAS_SONAME)"; then \
		cp -L "$(OPENBLAS_LIBDIR)/$(OPENBLAS_SONAME)" build/gpu/lib/ || exit 1; \
		for lib in libgfortran.so.5 libquadmath.so.0; do \
			path=$$(ldd "$(OPENBLAS_LIBDIR)/$(OPENBLAS_SONAME)" | awk -v l=$$lib '$$1 == l { print $$3 }'); \
			test -z "$$path" || cp -L "$$path" build/gpu/lib/ || exit 1; \
		done; \
	fi
	cp -R $(DATA_DIR)/. build/gpu/data/

# The benchmark calls cuBLAS itself (the plain SGEMM it compares with).
bench/gpu_map: bench/gpu_map.c $(GPU_HDR) $(GPU_LIB) $(LIB_A)
	@test -n "$(strip $(NVCC))" || { echo "bench-gpu needs nvcc (CUDA toolkit)"; exit 1; }
	$(CC) $(ALL_CFLAGS) -Iliblinear -Icuda -I$(CUDA_HOME)/include -o $@ $< $(GPU_LIB) $(LIB_A) -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcublas $(GPU_LDLIBS) $(LDLIBS)

bench-gpu: bench/gpu_map
	./bench/gpu_map
# ---- end of the GPU block ----------------------------------------------------

clean:
	rm -f liblinear/*.o liblinear/*.a liblinear/*.so liblinear/*.so.* $(UNIT_BIN) $(PROGRAMS)
	rm -f cuda/*.o cuda/*.a cuda/flavour bench/gpu_map bench/ik_mapping bench/lib_train bench/cells_train
	rm -f bench/time_primal bench/read_time bench/sgemm_shapes bench/ikmap_bench bench/kernel_speed bench/cws_speed
	rm -f ikmap/*.o $(IKMAP_A) ik/*.o ikmap/blas-flavour
	rm -f common/*.o tools/*.o
	rm -rf python/build python/_csrc python/*.egg-info

# ---- fuzzing and sanitizers (tests/fuzz/, owned by the fuzz branch) ---------
# `make fuzz` builds the libFuzzer targets with clang into build/fuzz/ (the
# library sources are compiled there again, instrumented, so the in-tree
# objects are untouched), runs each for FUZZ_S seconds, merges the corpus
# and what it found, minimised (-merge=1 into an empty folder, on edge
# coverage only, -use_counters=0, which keeps it a few times smaller), back
# into tests/fuzz/corpus/TARGET/ and keeps crashing inputs in
# build/fuzz/crashes/. `make fuzz-regress` replays the corpus once;
# `make fuzz-regress-found` replays tests/fuzz/found/ (the inputs that
# found defects, all fixed: regression tests). `make sanitize-check` builds a copy of
# the tree in build/asan with -fsanitize=address,undefined and runs the
# unit tests and the CLI tests against it. See tests/fuzz/README.md.
FUZZ_CC ?= clang
FUZZ_S ?= 60
FUZZ_JOBS_NICE ?= nice -n 19
FUZZ_MAX_LEN ?= 1048576
# More libFuzzer options for `make fuzz`, e.g. FUZZ_EXTRA="-fork=1
# -ignore_ooms=1 -ignore_crashes=1" to go on past a finding.
FUZZ_EXTRA ?=
FUZZ_BUILD ?= build/fuzz
FUZZ_TARGETS = fuzz_reader fuzz_model fuzz_ikmap fuzz_predict_ik fuzz_decimal
FUZZ_BINS = $(addprefix $(FUZZ_BUILD)/, $(FUZZ_TARGETS))
# Everything the programs link but the CUDA mapper (CPU-only); common/
# and the BLAS choice are picked up when the tree has them.
FUZZ_LIB_SRC = $(LIB_SRC) $(wildcard common/*.c) $(IKMAP_SRC) $(IK_SRC) $(TOOLS_SRC) $(GPU_HOST_OBJ:.o=.c) cuda/anne_gpu_none.c
FUZZ_LIB_OBJ = $(addprefix $(FUZZ_BUILD)/obj/, $(FUZZ_LIB_SRC:.c=.o))
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) -Werror -g -O1 -fno-omit-frame-pointer \
	-fopenmp $(FUZZ_SANITIZE) -Iliblinear -Iikmap -Iik -Itools -Icuda -Icommon $(BLAS_CFLAGS)
FUZZ_LIBS ?= $(if $(BLAS_CHOICE),$(BLAS_LIBS),-lopenblas)
# Options of every run: an allocation above 256 MB, an RSS above 2 GB or
# one input running 10 s is a finding; stdout and stderr of the code under
# test are closed (libFuzzer keeps its own and the sanitizers' reports).
FUZZ_RUN_OPTS = -malloc_limit_mb=256 -rss_limit_mb=2048 -timeout=10 -max_len=$(FUZZ_MAX_LEN) -close_fd_mask=3
FUZZ_ENV = ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 OMP_NUM_THREADS=1

.PHONY: fuzz fuzz-build fuzz-seeds fuzz-regress fuzz-regress-found fuzz-clean sanitize-check

$(FUZZ_BUILD)/obj/%.o: %.c $(LIB_HDR) $(wildcard common/*.h) $(IKMAP_HDR) $(IK_HDR) $(TOOLS_HDR) $(GPU_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(FUZZ_LIBS) -lm

fuzz-build: $(FUZZ_BINS)

# keep the instrumented objects between builds
.SECONDARY: $(FUZZ_LIB_OBJ)

# Each target: run FUZZ_S seconds from the corpus into a scratch corpus,
# then merge that back, minimised, into the committed corpus.
fuzz: fuzz-build
	@status=0; for t in $(FUZZ_TARGETS); do \
		echo "== $$t: $(FUZZ_S) s"; \
		rm -rf $(FUZZ_BUILD)/new/$$t; mkdir -p $(FUZZ_BUILD)/new/$$t $(FUZZ_BUILD)/crashes/$$t tests/fuzz/corpus/$$t; \
		$(FUZZ_ENV) $(FUZZ_JOBS_NICE) $(abspath $(FUZZ_BUILD))/$$t $(FUZZ_RUN_OPTS) $(FUZZ_EXTRA) -max_total_time=$(FUZZ_S) \
			-artifact_prefix=$(FUZZ_BUILD)/crashes/$$t/ -print_final_stats=1 \
			$(FUZZ_BUILD)/new/$$t tests/fuzz/corpus/$$t > $(FUZZ_BUILD)/$$t.log 2>&1; rc=$$?; \
		grep -E '^(#[0-9]+ +DONE|stat::(number_of_executed_units|peak_rss_mb)|==[0-9]+==ERROR|SUMMARY|Test unit written)' $(FUZZ_BUILD)/$$t.log; \
		test $$rc -eq 0 || { echo "$$t: FINDING (exit $$rc), see $(FUZZ_BUILD)/$$t.log and $(FUZZ_BUILD)/crashes/$$t/"; status=1; }; \
		rm -rf $(FUZZ_BUILD)/min/$$t; mkdir -p $(FUZZ_BUILD)/min/$$t; \
		if $(FUZZ_ENV) $(abspath $(FUZZ_BUILD))/$$t $(FUZZ_RUN_OPTS) -use_counters=0 -merge=1 $(FUZZ_BUILD)/min/$$t tests/fuzz/corpus/$$t $(FUZZ_BUILD)/new/$$t \
			> $(FUZZ_BUILD)/$$t.merge.log 2>&1; then \
			rm -rf tests/fuzz/corpus/$$t; cp -R $(FUZZ_BUILD)/min/$$t tests/fuzz/corpus/$$t; \
		else echo "$$t: merge failed, see $(FUZZ_BUILD)/$$t.merge.log"; status=1; fi; \
		echo "$$t: corpus now $$(ls tests/fuzz/corpus/$$t | wc -l) files, $$(cat tests/fuzz/corpus/$$t/* | wc -c) bytes"; \
	done; exit $$status

# Replays every committed corpus input once: a crash is a regression.
fuzz-regress: fuzz-build
	@status=0; for t in $(FUZZ_TARGETS); do \
		echo "== $$t: replaying tests/fuzz/corpus/$$t"; \
		$(FUZZ_ENV) $(abspath $(FUZZ_BUILD))/$$t $(FUZZ_RUN_OPTS) -runs=0 tests/fuzz/corpus/$$t > $(FUZZ_BUILD)/$$t.regress.log 2>&1 \
			|| { tail -40 $(FUZZ_BUILD)/$$t.regress.log; echo "$$t: REGRESSION"; status=1; }; \
	done; exit $$status

# Replays tests/fuzz/found/TARGET/ (the known defects of issue 18 part 2,
# fixed on other branches): each file runs on its own, so one failure
# does not hide the others. Enable in CI once those fixes are merged.
fuzz-regress-found: fuzz-build
	@status=0; for t in $(FUZZ_TARGETS); do \
		test -d tests/fuzz/found/$$t || continue; \
		for f in tests/fuzz/found/$$t/*; do \
			if $(FUZZ_ENV) $(abspath $(FUZZ_BUILD))/$$t $(FUZZ_RUN_OPTS) -runs=1 $$f > $(FUZZ_BUILD)/found.log 2>&1; then \
				echo "ok    $$f"; else echo "FAIL  $$f"; status=1; fi; \
		done; \
	done; exit $$status

# Rebuilds the seed corpus from scratch: tests/fuzz/make_seeds.sh, then
# each target's -merge=1 of those seeds into an empty corpus directory.
fuzz-seeds: fuzz-build train
	sh tests/fuzz/make_seeds.sh $(FUZZ_BUILD)/seeds
	@for t in $(FUZZ_TARGETS); do \
		rm -rf tests/fuzz/corpus/$$t; mkdir -p tests/fuzz/corpus/$$t; \
		$(FUZZ_ENV) $(abspath $(FUZZ_BUILD))/$$t $(FUZZ_RUN_OPTS) -merge=1 tests/fuzz/corpus/$$t $(FUZZ_BUILD)/seeds/$$t \
			> $(FUZZ_BUILD)/$$t.seeds.log 2>&1 || { cat $(FUZZ_BUILD)/$$t.seeds.log; exit 1; }; \
		echo "$$t: $$(ls tests/fuzz/corpus/$$t | wc -l) seeds kept of $$(ls $(FUZZ_BUILD)/seeds/$$t | wc -l)"; \
	done

# The sanitizer run: a copy of the tree (tracked files and untracked ones
# git does not ignore, as they are now) in build/asan/tree, built there with
# ASan and UBSan (SANITIZE_CC, gcc by default: clang 14's LeakSanitizer
# crashes, "Tracer caught signal 11", at the exit of programs that ran
# libomp threads), CPU-only; then its unit tests, and the oracle tests
# against its programs (LIBLINEAR_IK_BIN). ASan exits 86 and UBSan 87, so a
# test expecting 0 or 1 fails; every report lands in build/asan/reports/
# (clang's runtimes write it there by log_path; gcc's print it, and the
# conftest block copies what a program printed there), a test that ran a
# program which reported fails (tests/oracle/conftest.py), and so does this
# target when any report is there at the end, whatever the exit codes said.
# The check framework's per-test timeouts are multiplied by 10: sanitized
# code runs several times slower. No -Werror here: gcc at -O1 with the
# sanitizers warns about format truncation where -O2/-O3 do not; the CI
# builds with -Werror (gcc -O3, clang -O2) keep the code warning-free.
# ASan's quarantine of freed memory is cut to 16 MB (default 256 MB): the
# tests that load crafted files in a child capped at its address space plus
# 192 MiB (RLIMIT_AS) would otherwise run out of room on memory that was
# freed long before.
SANITIZE_CC ?= gcc
SANITIZE_BUILD = build/asan
SANITIZE_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SANITIZE_ENV = ASAN_OPTIONS=log_path=$(CURDIR)/$(SANITIZE_BUILD)/reports/asan:detect_leaks=1:halt_on_error=1:exitcode=86:quarantine_size_mb=16 \
	UBSAN_OPTIONS=log_path=$(CURDIR)/$(SANITIZE_BUILD)/reports/ubsan:halt_on_error=1:print_stacktrace=1:exitcode=87 \
	LIBLINEAR_IK_DATA=$(abspath $(DATA_DIR)) CK_TIMEOUT_MULTIPLIER=10

sanitize-check:
	rm -rf $(SANITIZE_BUILD)
	mkdir -p $(SANITIZE_BUILD)/tree $(SANITIZE_BUILD)/reports
	git ls-files -z -c -o --exclude-standard | xargs -0 sh -c 'for f do \
		if test -e "$$f" || test -L "$$f"; then cp -P --parents "$$f" $(SANITIZE_BUILD)/tree || exit 1; fi; \
		done' copy-tree
	$(MAKE) -C $(SANITIZE_BUILD)/tree -j2 NVCC= CC=$(SANITIZE_CC) CFLAGS="$(SANITIZE_FLAGS)" \
		LDLIBS="-lm -fopenmp $(SANITIZE_FLAGS)" all $(UNIT_BIN)
	@status=0; for t in $(UNIT_BIN); do echo "== $$t (sanitized)"; \
		(cd $(SANITIZE_BUILD)/tree && $(SANITIZE_ENV) ./$$t) || status=1; done; \
	$(SANITIZE_ENV) LIBLINEAR_IK_BIN=$(CURDIR)/$(SANITIZE_BUILD)/tree \
		LIBLINEAR_IK_SANITIZER_LOGS=$(CURDIR)/$(SANITIZE_BUILD)/reports $(PYTHON) -m pytest -q -rs tests/oracle \
		|| status=1; \
	if [ -n "$$(ls $(SANITIZE_BUILD)/reports)" ]; then \
		echo "sanitizer reports in $(SANITIZE_BUILD)/reports:"; cat $(SANITIZE_BUILD)/reports/*; status=1; fi; \
	test $$status -eq 0 && echo "sanitize-check: passed, no sanitizer report"; exit $$status

fuzz-clean:
	rm -rf $(FUZZ_BUILD) build/asan
# ---- end of the fuzzing block -----------------------------------------------

# ---- octave: the MATLAB/Octave interface (matlab/, owned by the matlab branch) ----
# `make octave` builds matlab/*.mex with mkoctfile --mex (Debian: octave,
# liboctave-dev); `make octave-check` runs tests/octave/ in octave-cli;
# `make check` runs it when octave-cli and mkoctfile are there and says
# SKIPPED (not a pass) when they are not. The mex files link the static
# archives ($(LIK_A), $(LIB_A)), not libliblinear-ik.so.1 with an rpath:
# each .mex is then complete in itself (it works after `make clean`, when
# matlab/ is copied elsewhere or added to a MATLAB/Octave path anywhere,
# as upstream's mex files are), and --exclude-libs keeps the library's
# names out of the interpreter's symbol table (only mexFunction is seen).
MKOCTFILE ?= mkoctfile
OCTAVE_CLI ?= octave-cli
MEX_NAMES = train predict libsvmread libsvmwrite ikmap savemodel loadmodel
MEX_FILES = $(MEX_NAMES:%=matlab/%.mex)
MEX_SHARED_OBJ = matlab/lik_mex_convert.o matlab/lik_mex_options.o matlab/lik_mex_print.o
MEX_HDR = matlab/lik_mex.h
MEX_INCLUDES = -Iliblinear -Iik -Icommon
MEX_LINK_LIBS = $(LIK_A) $(LIB_A) $(IKMAP_LIBS)
MEX_ENV = CC="$(CC)" CFLAGS="$(ALL_CFLAGS)" LDFLAGS="-fopenmp -Wl,--exclude-libs,ALL"

.PHONY: octave octave-check octave-check-if-present clean-octave
# the objects outlive one link (make would delete them as intermediates)
.SECONDARY: $(MEX_NAMES:%=matlab/%.o) $(MEX_SHARED_OBJ)

octave: $(MEX_FILES)

matlab/%.o: matlab/%.c $(MEX_HDR) $(LIB_HDR) $(IK_HDR) $(COMMON_HDR)
	$(MEX_ENV) $(MKOCTFILE) --mex -c $(MEX_INCLUDES) -o $@ $<

# the shared helpers stay inside each .mex (no mexFunction there)
$(MEX_SHARED_OBJ): MEX_ENV = CC="$(CC)" CFLAGS="$(ALL_CFLAGS) -fvisibility=hidden"

matlab/%.mex: matlab/%.o $(MEX_SHARED_OBJ) $(LIK_A) $(LIB_A) $(GPU_LIB)
	$(MEX_ENV) $(MKOCTFILE) --mex -o $@ $< $(MEX_SHARED_OBJ) $(MEX_LINK_LIBS) -lm

# The tests compare with the programs (train, predict, tools/ikmap).
# OCTAVE_HISTFILE: Octave 7.3 fails to save its history at exit in a
# non-interactive run and says "error: ignoring const execution_exception&
# while preparing to exit" (harmless, exit status 0; Octave bug 62515).
octave-check: octave $(PROGRAMS)
	OCTAVE_HISTFILE=/dev/null LIBLINEAR_IK_DATA=$(abspath $(DATA_DIR)) \
		$(OCTAVE_CLI) --no-gui --norc --quiet tests/octave/run_tests.m

octave-check-if-present:
	@if command -v $(OCTAVE_CLI) >/dev/null 2>&1 && command -v $(MKOCTFILE) >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory octave-check; \
	else \
		echo "octave-check: SKIPPED ($(OCTAVE_CLI) or $(MKOCTFILE) not found; apt-get install octave liboctave-dev)"; \
	fi

check-run: octave-check-if-present

clean: clean-octave
clean-octave:
	rm -f matlab/*.o matlab/*.mex
# ---- end of the octave block ----

# ---- ikpykit comparison (bench/ik_vs_ikpykit.py, owned by the speed branch) ----
# Our aNNE map against ikpykit's IsoKernel(method="anne") on 784-d data
# (bench/results/ik-vs-ikpykit.md). ikpykit runs in its own environment:
# IKPYKIT_PYTHON (python3 -m venv DIR && DIR/bin/pip install ikpykit).
# IK_OURS_PYTHON, when set, also times liblinear.sklearn.IsolationKernel.
IKPYKIT_PYTHON ?= /work/venv-ikpykit/bin/python
IK_OURS_PYTHON ?=
.PHONY: bench-ikpykit
bench-ikpykit: bench/ik_mapping
	$(PYTHON) bench/ik_vs_ikpykit.py --ikpykit-python $(IKPYKIT_PYTHON) $(if $(IK_OURS_PYTHON),--ours-python $(IK_OURS_PYTHON))
# ---- end ikpykit comparison ----

# ---- mpi: train-mpi, distributed Newton training (mpi/, issue 24) ----
# `make mpi` builds train-mpi with MPICC (Debian: openmpi-bin libopenmpi-dev);
# the normal build never needs MPI. `make mpi-check` runs tests/mpi/run.sh;
# `make check` runs it when mpicc and mpirun are there and says SKIPPED
# otherwise.
MPICC ?= mpicc
MPIRUN ?= mpirun
MPI_SRC = $(wildcard mpi/*.c)
MPI_OBJ = $(MPI_SRC:.c=.o)
MPI_HDR = $(wildcard mpi/*.h)
.PHONY: mpi mpi-check mpi-check-if-present clean-mpi
mpi: train-mpi

mpi/%.o: mpi/%.c $(MPI_HDR) $(LIB_HDR) $(TOOLS_HDR) $(IK_HDR) $(IKMAP_HDR)
	$(MPICC) $(ALL_CFLAGS) $(TOOLS_CFLAGS) -Impi -c -o $@ $<

train-mpi: $(MPI_OBJ) $(PROGRAM_DEPS)
	$(MPICC) -o $@ $(MPI_OBJ) $(PROGRAM_LIBS) $(IKMAP_LIBS) $(LDLIBS)

# TCP_NODELAY on the MPI library's sockets (mpi/tcp_nodelay.h) needs no MPI: a unit test
tests/unit/test_tcp_nodelay: tests/unit/test_tcp_nodelay.c mpi/tcp_nodelay.c mpi/tcp_nodelay.h $(UNIT_HDR)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Impi -o $@ $< mpi/tcp_nodelay.c $$(pkg-config --libs check) $(LDLIBS)

mpi-check: train-mpi train predict
	MPIRUN="$(MPIRUN)" LIBLINEAR_IK_DATA=$(abspath $(DATA_DIR)) bash tests/mpi/run.sh

# (an mpicc that cannot find mpi.h, as openmpi-bin without libopenmpi-dev, counts as absent)
mpi-check-if-present:
	@if command -v $(MPICC) >/dev/null 2>&1 && command -v $(MPIRUN) >/dev/null 2>&1 \
		&& printf '#include <mpi.h>\nint main(void) { return 0; }\n' \
			| $(MPICC) -x c -o /dev/null - >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory mpi-check; \
	else \
		echo "mpi-check: SKIPPED ($(MPICC) with mpi.h, or $(MPIRUN), not found; apt-get install openmpi-bin libopenmpi-dev)"; \
	fi

check-run: mpi-check-if-present

# train-mpi -n 2 against train -m 1 and -m 2 (bench/mpi_scaling.sh; needs a quiet machine)
.PHONY: bench-mpi
bench-mpi: train train-mpi
	LIBLINEAR_IK_DATA=$(abspath $(DATA_DIR)) bash bench/mpi_scaling.sh

clean: clean-mpi
clean-mpi:
	rm -f mpi/*.o train-mpi
# ---- end of the mpi block ----
