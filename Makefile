# LIBLINEAR-IK build. `make` builds train, predict and the library;
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
PROGRAMS = train predict

CLI_SRC = liblinear/train.c liblinear/predict.c
LIB_SRC = $(filter-out $(CLI_SRC), $(wildcard liblinear/*.c))
LIB_OBJ = $(LIB_SRC:.c=.o)
LIB_HDR = $(wildcard liblinear/*.h)

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:.c=)

.PHONY: all lib check unit oracle demo bench install clean

all: $(PROGRAMS) $(LIB_SO) $(LIB_A)

lib: $(LIB_SO) $(LIB_A)

liblinear/%.o: liblinear/%.c $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(LIB_SO): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,liblinear.so.$(SHVER) -o $@ $(LIB_OBJ) $(LDLIBS)
	ln -sf liblinear.so.$(SHVER) liblinear/liblinear.so

train: liblinear/train.o $(LIB_A)
	$(CC) -o $@ liblinear/train.o $(LIB_A) $(LDLIBS)

predict: liblinear/predict.o $(LIB_A)
	$(CC) -o $@ liblinear/predict.o $(LIB_A) $(LDLIBS)

tests/unit/test_%: tests/unit/test_%.c tests/unit/unit.h $(LIB_HDR) $(LIB_A)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Iliblinear -o $@ $< $(LIB_A) $$(pkg-config --libs check) $(LDLIBS)

# ---- ikmap: the Isolation Kernel feature map (ikmap/, needs OpenBLAS) ----
IKMAP_A = ikmap/libikmap.a
IKMAP_SRC = $(wildcard ikmap/*.c)
IKMAP_OBJ = $(IKMAP_SRC:.c=.o)
IKMAP_HDR = $(wildcard ikmap/*.h)
IKMAP_LIBS = -lopenblas

ikmap/%.o: ikmap/%.c $(IKMAP_HDR) $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) -Iliblinear -c -o $@ $<

$(IKMAP_A): $(IKMAP_OBJ)
	rm -f $@
	ar rcs $@ $(IKMAP_OBJ)

IKMAP_TESTS = $(filter tests/unit/test_ikmap%, $(UNIT_BIN))

$(IKMAP_TESTS): tests/unit/%: tests/unit/%.c tests/unit/unit.h $(IKMAP_HDR) $(LIB_HDR) $(IKMAP_A) $(LIB_A)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -Iliblinear -Iikmap -o $@ $< $(IKMAP_A) $(LIB_A) $$(pkg-config --libs check) $(IKMAP_LIBS) $(LDLIBS)

# Mapping time against the GEMM it is built on: `make ikmap-bench` builds it;
# run e.g. `ikmap/bench/ikmap_bench 20000 54` (usage in the source).
ikmap/bench/ikmap_bench: ikmap/bench/ikmap_bench.c $(IKMAP_HDR) $(IKMAP_A) $(LIB_A)
	$(CC) $(ALL_CFLAGS) -Iliblinear -Iikmap -o $@ $< $(IKMAP_A) $(LIB_A) $(IKMAP_LIBS) $(LDLIBS)

.PHONY: ikmap-bench
ikmap-bench: ikmap/bench/ikmap_bench

all lib: $(IKMAP_A)
# ---- end ikmap ----

# Each test program runs from the repo root; all run even if one fails.
unit: $(UNIT_BIN)
	@status=0; for t in $(UNIT_BIN); do echo "== $$t"; ./$$t || status=1; done; exit $$status

oracle: all
	$(PYTHON) -m pytest -q tests/oracle

check: all unit oracle

demo: all
	sh tests/demo.sh

bench: all
	$(PYTHON) bench/run.py

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 train $(DESTDIR)$(PREFIX)/bin/train
	install -m 755 predict $(DESTDIR)$(PREFIX)/bin/predict
	install -m 644 liblinear/linear.h $(DESTDIR)$(PREFIX)/include/linear.h
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/liblinear.so.$(SHVER)
	ln -sf liblinear.so.$(SHVER) $(DESTDIR)$(PREFIX)/lib/liblinear.so
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/liblinear.a
	sed -e 's|@PREFIX@|$(PREFIX)|' liblinear/liblinear.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/liblinear.pc

clean:
	rm -f liblinear/*.o liblinear/*.a liblinear/*.so liblinear/*.so.* $(UNIT_BIN) $(PROGRAMS)
	rm -f ikmap/*.o $(IKMAP_A) ikmap/bench/ikmap_bench
