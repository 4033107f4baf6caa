"""The kernel's C library (ik/libliblinear-ik.so.1, ik/liblinear_ik.h) against
the programs: it exports exactly the header's functions; a -k model trained
through it is saved as the very bytes `train -k` writes for the same data and
options; lik_predict_rows gives `predict`'s labels and probabilities; a pair
saved by the library is predicted by `predict`; a C program links it beside
liblinear.so.6 with no clash. The library is called through ctypes, in a
subprocess (this process has upstream's liblinear module loaded)."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import oracle_lib as ol

LIK_SO = ol.REPO / "ik" / "libliblinear-ik.so.1"
HEADER = ol.REPO / "ik" / "liblinear_ik.h"

# In `make sanitize-check` the programs under test are the ASan builds of
# build/asan (LIBLINEAR_IK_BIN), while the library loaded here is the plain
# one of the tree: the byte-for-byte comparisons between the two are made
# by the plain `make oracle` only.
plain_run_only = pytest.mark.skipif(bool(os.environ.get("LIBLINEAR_IK_SANITIZER_LOGS")),
    reason="sanitizer run: compares the plain library with the ASan-built programs")

# The ctypes side, run as its own Python program: argv[1] is a JSON job.
RUNNER = textwrap.dedent(r'''
    import ctypes, json, sys
    job = json.loads(sys.argv[1])
    lib = ctypes.CDLL(job["lib"])

    class Node(ctypes.Structure):
        _fields_ = [("index", ctypes.c_int), ("value", ctypes.c_double)]

    class Problem(ctypes.Structure):
        _fields_ = [("l", ctypes.c_int), ("n", ctypes.c_int), ("y", ctypes.POINTER(ctypes.c_double)),
                    ("x", ctypes.POINTER(ctypes.POINTER(Node))), ("bias", ctypes.c_double)]

    class Parameter(ctypes.Structure):
        _fields_ = [("solver_type", ctypes.c_int), ("eps", ctypes.c_double), ("C", ctypes.c_double),
                    ("nr_weight", ctypes.c_int), ("weight_label", ctypes.POINTER(ctypes.c_int)),
                    ("weight", ctypes.POINTER(ctypes.c_double)), ("p", ctypes.c_double),
                    ("nu", ctypes.c_double), ("init_sol", ctypes.POINTER(ctypes.c_double)),
                    ("regularize_bias", ctypes.c_int), ("w_recalc", ctypes.c_bool)]

    class MapParams(ctypes.Structure):
        _fields_ = [("kernel", ctypes.c_int), ("t", ctypes.c_int), ("psi", ctypes.c_int),
                    ("seed", ctypes.c_uint64), ("scale", ctypes.c_int), ("device", ctypes.c_int),
                    ("threads", ctypes.c_int)]

    class Error(ctypes.Structure):
        _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]

    lib.lik_train.restype = ctypes.c_void_p
    lib.lik_train.argtypes = [ctypes.POINTER(Problem), ctypes.POINTER(Parameter),
                              ctypes.POINTER(MapParams), ctypes.POINTER(Error)]
    lib.lik_model_save.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(Error)]
    lib.lik_model_load.restype = ctypes.c_void_p
    lib.lik_model_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(Error)]
    lib.lik_model_nr_class.argtypes = [ctypes.c_void_p]
    lib.lik_model_nr_outputs.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.lik_predict_rows.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(Node)), ctypes.c_size_t,
                                     ctypes.c_int, ctypes.POINTER(ctypes.c_double),
                                     ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_int,
                                     ctypes.POINTER(Error)]
    lib.lik_model_free.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    quiet = ctypes.CFUNCTYPE(None, ctypes.c_char_p)(lambda s: None)
    lib.lik_set_print_string_function(quiet)

    def rows_of(path, bias):
        ys, rows = [], []
        for line in open(path):
            tokens = line.split()
            if not tokens:
                continue
            ys.append(float(tokens[0]))
            feats = [(int(i), float(v)) for i, v in (t.split(":") for t in tokens[1:])]
            rows.append(feats)
        n = max((f[-1][0] for f in rows if f), default=0)
        x = (ctypes.POINTER(Node) * len(rows))()
        keep = []
        for r, feats in enumerate(rows):
            extra = [(n + 1, bias)] if bias >= 0 else []
            arr = (Node * (len(feats) + len(extra) + 1))(*(feats + extra + [(-1, 0.0)]))
            keep.append(arr)
            x[r] = ctypes.cast(arr, ctypes.POINTER(Node))
        return ys, x, n + (1 if bias >= 0 else 0), keep

    def fail(err):
        print(json.dumps({"code": err.code, "message": err.message.decode()}))
        sys.exit(0)

    err = Error()
    out = {}
    if job["what"] == "train":
        ys, x, n, keep = rows_of(job["data"], job["bias"])
        y = (ctypes.c_double * len(ys))(*ys)
        prob = Problem(len(ys), n, y, x, job["bias"])
        param = Parameter(job["solver"], job["eps"], job["C"], 0, None, None, 0.1, 0.5, None, 1, False)
        mp = MapParams(job["kernel"], job["t"], job["psi"], job["seed"], job["scale"], 0, 0)
        model = lib.lik_train(ctypes.byref(prob), ctypes.byref(param), ctypes.byref(mp), ctypes.byref(err))
        if not model:
            fail(err)
        if lib.lik_model_save(job["model"].encode(), model, ctypes.byref(err)) != 0:
            fail(err)
        m = ctypes.c_void_p(model)
        lib.lik_model_free(ctypes.byref(m))
    else:
        ys, x, n, keep = rows_of(job["data"], -1)
        model = lib.lik_model_load(job["model"].encode(), ctypes.byref(err))
        if not model:
            fail(err)
        what = job["output"]
        width = lib.lik_model_nr_outputs(model, what)
        labels = (ctypes.c_double * len(ys))()
        values = (ctypes.c_double * max(1, len(ys) * width))()
        if lib.lik_predict_rows(model, x, len(ys), what, labels, values if width else None,
                                0, 2, ctypes.byref(err)) != 0:
            fail(err)
        out["labels"] = list(labels)
        out["values"] = [list(values[i * width:(i + 1) * width]) for i in range(len(ys))]
        m = ctypes.c_void_p(model)
        lib.lik_model_free(ctypes.byref(m))
    out["code"] = err.code
    print(json.dumps(out))
''')


def call_library(**job):
    job["lib"] = str(LIK_SO)
    r = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(job)], capture_output=True,
        text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", f"the library printed: {r.stderr}"
    lines = r.stdout.splitlines()
    assert len(lines) == 1, f"the library printed: {r.stdout}"
    return json.loads(lines[0])


def header_functions():
    """The functions liblinear_ik.h declares (a declaration starts at a line's
    beginning with its return type; names start with lik_)."""
    names = set()
    for line in HEADER.read_text().splitlines():
        m = re.match(r"^[a-z][\w ]*?[ *](lik_\w+)\(", line)
        if m:
            names.add(m.group(1))
    return names


def test_exports_exactly_the_header_functions():
    assert LIK_SO.exists(), "make builds ik/libliblinear-ik.so.1"
    r = ol.run(["nm", "-D", "--defined-only", LIK_SO])
    assert r.returncode == 0, r.stderr
    exported = {line.split()[-1] for line in r.stdout.splitlines() if line.strip()}
    declared = header_functions()
    assert len(declared) >= 40
    assert exported == declared, (sorted(exported - declared), sorted(declared - exported))
    r = ol.run(["readelf", "-d", LIK_SO])
    assert "Library soname: [libliblinear-ik.so.1]" in r.stdout
    assert "liblinear.so" not in r.stdout.replace("libliblinear-ik.so", "")
    # liblinear.so.6 gains no dependency on the kernel's libraries
    r = ol.run(["readelf", "-d", ol.OUR_LIB])
    for lib in ("libopenblas", "libcudart", "libliblinear-ik", "libstdc++"):
        assert lib not in r.stdout, lib


TRAIN_CASES = [
    # kernel, t, psi, seed, scale, solver, C, bias
    (1, 20, 16, 3, 1, 2, 1.0, -1),
    (1, 7, 32, 1, 0, 0, 0.5, 1),
    (2, 15, 8, 9, 1, 1, 2.0, 1),
    (2, 10, 64, 2, 0, 4, 1.0, -1),
]


@plain_run_only
@pytest.mark.parametrize("kernel,t,psi,seed,scale,solver,C,bias", TRAIN_CASES)
def test_library_model_is_the_programs_pair(kernel, t, psi, seed, scale, solver, C, bias, data,
                                            binaries, tmp_path):
    heart = data("heart", "heart.all")
    train, predict = binaries
    (tmp_path / "cli").mkdir()
    (tmp_path / "lib").mkdir()
    options = ["-k", kernel, "-t", t, "-g", psi, "-r", seed, "-S", scale, "-s", solver, "-c", C,
               "-B", bias, "-q"]
    r = ol.run([train, *options, heart, tmp_path / "cli" / "m"])
    assert r.returncode == 0, r.stderr
    got = call_library(what="train", data=str(heart), bias=bias, solver=solver,
        eps=ol.DEFAULT_EPS[solver], C=C, kernel=kernel, t=t, psi=psi, seed=seed, scale=scale,
        model=str(tmp_path / "lib" / "m"))
    assert got["code"] == 0, got
    for name in ("m", "m.ik"):
        assert (tmp_path / "lib" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name

    # the library's pair is predicted by `predict` exactly as the program's own
    outputs = []
    for side in ("cli", "lib"):
        r = ol.run([predict, heart, tmp_path / side / "m", tmp_path / side / "out"])
        assert r.returncode == 0, r.stderr
        outputs.append((r.stdout, (tmp_path / side / "out").read_text()))
    assert outputs[0] == outputs[1]

    # lik_predict_rows gives predict's labels (and -b 1's probabilities)
    got = call_library(what="predict", data=str(heart), model=str(tmp_path / "lib" / "m"), output=0)
    assert got["code"] == 0, got
    assert [f"{v:.17g}" for v in got["labels"]] == outputs[1][1].split()
    if solver in ol.PROBABILITY:
        r = ol.run([predict, "-b", "1", heart, tmp_path / "lib" / "m", tmp_path / "prob"])
        assert r.returncode == 0, r.stderr
        lines = (tmp_path / "prob").read_text().splitlines()[1:]
        got = call_library(what="predict", data=str(heart), model=str(tmp_path / "lib" / "m"), output=2)
        expected = [" ".join([f"{label:g}"] + [f"{p:g}" for p in probs])
                    for label, probs in zip(got["labels"], got["values"])]
        assert expected == lines


@plain_run_only
def test_library_reports_errors_without_printing(data, tmp_path):
    heart = data("heart", "heart.all")
    got = call_library(what="train", data=str(heart), bias=-1, solver=2, eps=0.01, C=1.0, kernel=1,
        t=10, psi=271, seed=1, scale=1, model=str(tmp_path / "m"))
    assert got == {"code": 1, "message": "psi (-g 271) exceeds the number of training rows (270)"}
    got = call_library(what="predict", data=str(heart), model=str(tmp_path / "none"), output=0)
    assert got["code"] == 3 and "none" in got["message"]
    (tmp_path / "bad").write_text("solver_type L2R_LR\nnr_class 2\n")
    got = call_library(what="predict", data=str(heart), model=str(tmp_path / "bad"), output=0)
    assert got["code"] == 6, got


C_BOTH = r'''
#include <stdio.h>
#include "linear.h"
#include "liblinear_ik.h"

/* Both libraries in one program: upstream's train() from liblinear.so.6,
   the kernel's from libliblinear-ik.so.1; each keeps its own solvers. */
int main(void)
{
	struct feature_node rows[6][3] = {
		{ { 1, 0.0 }, { 2, 0.1 }, { -1, 0 } }, { { 1, 0.2 }, { 2, 0.0 }, { -1, 0 } },
		{ { 1, 0.1 }, { 2, 0.2 }, { -1, 0 } }, { { 1, 1.0 }, { 2, 0.9 }, { -1, 0 } },
		{ { 1, 0.8 }, { 2, 1.0 }, { -1, 0 } }, { { 1, 0.9 }, { 2, 0.8 }, { -1, 0 } } };
	struct feature_node *x[6];
	double y[6] = { -1, -1, -1, 1, 1, 1 };
	for (int i = 0; i < 6; i++)
		x[i] = rows[i];
	struct problem prob = { 6, 2, y, x, -1 };
	struct parameter param = { 0 };
	param.solver_type = L2R_L2LOSS_SVC;
	param.C = 1;
	param.eps = 0.01;
	param.regularize_bias = 1;
	set_print_string_function(NULL);
	struct model *plain = train(&prob, &param);
	struct lik_map_params kernel;
	lik_map_params_default(&kernel, LIK_KERNEL_ANNE);
	kernel.t = 8;
	kernel.psi = 2;
	kernel.device = LIK_DEVICE_CPU;
	struct lik_error err;
	struct lik_model *ik = lik_train(&prob, &param, &kernel, &err);
	if (plain == NULL || ik == NULL) {
		fprintf(stderr, "training failed: %s\n", err.message);
		return 1;
	}
	int plain_right = 0, ik_right = 0;
	for (int i = 0; i < 6; i++) {
		plain_right += predict(plain, x[i]) == y[i];
		ik_right += lik_predict(ik, x[i], NULL) == y[i];
	}
	printf("%d %d %d %d\n", get_nr_feature(plain), lik_model_nr_feature(ik), plain_right, ik_right);
	free_and_destroy_model(&plain);
	lik_model_free(&ik);
	return 0;
}
'''


def test_a_program_links_both_libraries(tmp_path):
    source = tmp_path / "both.c"
    source.write_text(C_BOTH)
    exe = tmp_path / "both"
    r = ol.run(["cc", "-std=c11", "-Wall", "-Werror", "-I", ol.REPO / "liblinear", "-I", ol.REPO / "ik",
                "-o", exe, source, "-L", ol.REPO / "ik", "-L", ol.REPO / "liblinear",
                "-l:libliblinear-ik.so.1", "-l:liblinear.so.6",
                f"-Wl,-rpath,{ol.REPO / 'ik'}:{ol.REPO / 'liblinear'}"])
    assert r.returncode == 0, r.stderr
    r = ol.run([exe])
    assert r.returncode == 0, r.stderr
    # (training's progress lines come first: both print hooks are stdout's)
    # without a bias the plain model's line passes through the origin: it gets
    # the far class only; the kernel's cells separate the two clusters
    assert r.stdout.splitlines()[-1].split() == ["2", "16", "3", "6"]


def test_readme_example_builds_with_pkg_config(tmp_path):
    """The README's C example, built with pkg-config against a staged
    `make install DESTDIR=... PREFIX=/usr/local`, trains, saves, loads, predicts."""
    readme = (ol.REPO / "README.md").read_text()
    m = re.search(r"<!-- lik-example -->\n```c\n(.*?)```", readme, re.S)
    assert m, "README.md has no <!-- lik-example --> block"
    stage = tmp_path / "stage"
    r = ol.run(["make", "-s", "--no-print-directory", "install", f"DESTDIR={stage}", "PREFIX=/usr/local"],
        cwd=ol.REPO, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    prefix = stage / "usr" / "local"
    env_pc = {"PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig")}
    r = subprocess.run(["pkg-config", f"--define-variable=prefix={prefix}", "--cflags", "--libs",
                        "liblinear-ik"], capture_output=True, text=True, env={**env_pc, "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    flags = r.stdout.split()
    assert f"-I{prefix}/include" in flags and "-lliblinear-ik" in flags
    source = tmp_path / "example.c"
    source.write_text(m.group(1))
    r = ol.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", source, *flags, "-o", tmp_path / "example"])
    assert r.returncode == 0, r.stderr
    r = subprocess.run([tmp_path / "example"], cwd=tmp_path, capture_output=True, text=True,
        env={"LD_LIBRARY_PATH": str(prefix / "lib")}, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # the progress lines of training come first (the print hook is stdout)
    results = lines[-9:]
    assert results[-1] == "nr_feature 200"
    labels = [float(line.split()[0]) for line in results[:8]]
    assert labels == [1, 1, 1, 1, 2, 2, 2, 2]
    assert all(float(line.split()[1]) > 0.5 for line in results[:4])
    assert (tmp_path / "example.model").exists() and (tmp_path / "example.model.ik").exists()
    # the pair it wrote is one `predict` reads
    data = tmp_path / "rows"
    data.write_text("1 1:0.1 2:0.2\n2 1:0.9 2:0.8\n")
    r = ol.run([ol.PREDICT, data, tmp_path / "example.model", tmp_path / "out"])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out").read_text().split() == ["1", "2"]
