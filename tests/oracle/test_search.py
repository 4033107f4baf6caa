"""train -C -k: the affordable psi and C search (lik_search, issue 21).

Its output: one line per psi (psi, best C, score, rows, seconds), the Best
line, the plain-linear baseline (which must be exactly what train -C prints
on the same rows), the advice when the kernel does not win, and the train
command of the best model, which must reproduce the model -W 1 writes byte
for byte. Same choices for -m 1 and -m 2. (The stages, the early stop and
the grid-edge extension: tests/unit/test_lik_search.c.)"""
import ctypes
import re
import shlex

import pytest

import oracle_lib as ol

PSI_LINE = re.compile(r"^psi = (\d+)  Best C = (\S+)  CV accuracy = (\S+)%  \((\d+) rows, (\d+\.\d) s\)$")
PSI_LINE_MSE = re.compile(
    r"^psi = (\d+)  Best C = (\S+) Best p = (\S+)  CV MSE = (\S+)  \((\d+) rows, (\d+\.\d) s\)$")
BEST_LINE = re.compile(r"^Best psi = (\d+)  Best C = (\S+)  CV accuracy = (\S+)%$")
PLAIN_LINE = re.compile(r"^plain linear: best C = (\S+), CV accuracy = (\S+)%$")
PLAIN_LINE_MSE = re.compile(r"^plain linear: best C = (\S+), best p = (\S+), CV MSE = (\S+)$")
PLAIN_SUBSAMPLE = re.compile(
    r"^plain linear on the (\d+)-row subsample: best C = (\S+), CV accuracy = (\S+)% \(psi = (\d+) there: (\S+)%\)$")
ADVICE = "the kernel does not beat plain linear training on this data: train without -k"
COMMAND = re.compile(r"^best model: (train .*)$")


def search(binaries, options, data_file, cwd, model=None):
    args = [binaries[0], "-C", "-k", "anne"] + options.split() + [data_file]
    if model is not None:
        args.append(model)
    r = ol.run(args, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout.rstrip("\n").split("\n")


def linear_file(path, rows=200, features=6):
    """Labels by the sign of x1 + x2: plain linear training separates them."""
    state = 7
    with open(path, "w") as f:
        for _ in range(rows):
            values = []
            for _ in range(features):
                state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
                values.append((state >> 11) / 2**53 * 2 - 1)
            label = 1 if values[0] + values[1] > 0 else -1
            f.write(f"{label:+d} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(values)) + "\n")
    return path


def test_one_line_per_psi_then_best_baseline_and_command(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    lines = search(binaries, "-s 2", heart, tmp_path)
    assert lines[0] == "Doing parameter search with 5-fold cross validation."
    assert not any("log2c=" in line for line in lines)
    psi_rows = [PSI_LINE.match(line).groups() for line in lines if line.startswith("psi = ")]
    # heart has 270 rows (below the subsample): every psi 4..256 on all rows, once
    assert [int(g[0]) for g in psi_rows] == [4, 8, 16, 32, 64, 128, 256]
    assert all(g[3] == "270" for g in psi_rows)
    best_at = lines.index(next(line for line in lines if line.startswith("Best psi")))
    assert best_at == 1 + len(psi_rows)
    best = BEST_LINE.match(lines[best_at]).groups()
    top = max(float(g[2]) for g in psi_rows)
    first_top = next(g for g in psi_rows if float(g[2]) == top)	# ties: the smaller psi
    assert best == first_top[:3]
    rest = lines[best_at + 1:]
    if best[0] == "256":
        assert rest[0].startswith("note: psi = 256 is the largest tried: psi = 512 would pass")
        rest = rest[1:]
    plain = PLAIN_LINE.match(rest[0]).groups()
    if float(best[2]) > float(plain[1]):
        assert rest[1:-1] == []
    else:
        assert rest[1:-1] == [ADVICE]
    assert COMMAND.match(rest[-1]).group(1) == \
        f"train -k anne -s 2 -g {best[0]} -c {float(best[1]):.17g} {heart} heart.all.model"
    assert list(tmp_path.iterdir()) == []	# no model without -W 1


def test_verbose_adds_the_per_C_lines_only(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    quiet = search(binaries, "-s 0 -g 32", heart, tmp_path)
    verbose = search(binaries, "-s 0 -g 32 -V 1", heart, tmp_path)
    walk = [line for line in verbose if line.startswith("log2c=")]
    assert len(walk) >= 5
    strip = [re.sub(r", \d+\.\d s\)$", ")", line) for line in quiet]
    assert [re.sub(r", \d+\.\d s\)$", ")", line) for line in verbose
            if not line.startswith("log2c=") and line != "WARNING: maximum C reached."] == strip


@pytest.mark.parametrize("options", ["-s 2", "-s 0 -B 1", "-s 11 -p 0.05"])
def test_plain_baseline_equals_train_C(options, data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    lines = search(binaries, options + " -g 16", heart, tmp_path)
    r = ol.run([binaries[0], "-C"] + options.split() + [heart], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    upstream_best = r.stdout.rstrip("\n").split("\n")[-1]
    if "-s 11" in options:
        C, p, mse = PLAIN_LINE_MSE.match(next(l for l in lines if l.startswith("plain"))).groups()
        assert upstream_best == f"Best C = {C} Best p = {p}  CV MSE = {mse}"
        assert PSI_LINE_MSE.match(next(l for l in lines if l.startswith("psi = ")))
    else:
        C, rate = PLAIN_LINE.match(next(l for l in lines if l.startswith("plain"))).groups()
        assert upstream_best == f"Best C = {C}  CV accuracy = {rate}%"


def test_threads_do_not_change_the_search(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    out = []
    for m in ("1", "2"):
        lines = search(binaries, f"-s 2 -m {m}", heart, tmp_path)
        out.append([re.sub(r", \d+\.\d s\)$", ")", line).replace(f"-m {m} ", "") for line in lines])
    assert out[0] == out[1]


@pytest.mark.parametrize("options", ["-s 2 -B 1", "-s 0 -t 30 -r 3"])
def test_printed_command_reproduces_the_written_model(options, data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    written, again = tmp_path / "written", tmp_path / "again"
    written.mkdir()
    again.mkdir()
    lines = search(binaries, options + " -W 1", heart, written, model="best.model")
    assert lines[-1] == "written: best.model"
    command = shlex.split(next(COMMAND.match(l) for l in lines if COMMAND.match(l)).group(1))
    assert command[0] == "train" and "-C" not in command and "-W" not in command
    r = ol.run([binaries[0]] + command[1:], cwd=again)
    assert r.returncode == 0, r.stderr
    for name in ("best.model", "best.model.ik"):
        assert (written / name).read_bytes() == (again / name).read_bytes(), name


def test_advice_when_the_kernel_does_not_win(binaries, tmp_path):
    linear = linear_file(tmp_path / "linear.txt")
    work = tmp_path / "work"
    work.mkdir()
    lines = search(binaries, "-s 2 -t 20", linear, work)
    best = BEST_LINE.match(next(l for l in lines if l.startswith("Best psi"))).groups()
    plain = PLAIN_LINE.match(next(l for l in lines if l.startswith("plain"))).groups()
    assert float(plain[1]) >= float(best[2])	# a line separates it; 20 partitionings blur it
    assert ADVICE in lines


def test_bad_search_options_are_refused(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    for bad in (["-V", "2"], ["-W", "x"], ["-T", "-1"], ["-E", "3"]):
        r = ol.run([binaries[0], "-C", "-k", "anne"] + bad + [heart], cwd=tmp_path)
        assert r.returncode == 1 and r.stdout.startswith("Usage: train"), bad


# ---- lik_search through ctypes (the C API the Python and MATLAB layers will adopt)

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


class SearchOptions(ctypes.Structure):
    _fields_ = [("patience", ctypes.c_int), ("subsample_rows", ctypes.c_int), ("confirm", ctypes.c_int),
                ("grid_max", ctypes.c_int), ("max_psi", ctypes.c_int), ("time_budget", ctypes.c_double),
                ("verbose", ctypes.c_int), ("on_row", ctypes.c_void_p), ("context", ctypes.c_void_p),
                ("dual_scoring", ctypes.c_int)]


class SearchRow(ctypes.Structure):
    _fields_ = [("psi", ctypes.c_int), ("rows", ctypes.c_int), ("C", ctypes.c_double),
                ("p", ctypes.c_double), ("score", ctypes.c_double), ("seconds", ctypes.c_double)]


class SearchTable(ctypes.Structure):
    _fields_ = [("count", ctypes.c_size_t), ("rows", ctypes.POINTER(SearchRow)), ("best", ctypes.c_size_t),
                ("plain", ctypes.c_size_t), ("at_edge", ctypes.c_int), ("note", ctypes.c_char * 512),
                ("best_map", ctypes.c_void_p), ("plain_versus", ctypes.c_size_t), ("kernel_wins", ctypes.c_int)]


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]


def c_problem(path):
    y, X = ol.read_libsvm(path)
    rows = []
    for i in range(X.shape[0]):
        start, end = X.indptr[i], X.indptr[i + 1]
        nodes = (Node * (end - start + 1))()
        for k, j in enumerate(range(start, end)):
            nodes[k] = Node(int(X.indices[j]) + 1, float(X.data[j]))
        nodes[end - start] = Node(-1, 0)
        rows.append(nodes)
    x = (ctypes.POINTER(Node) * len(rows))(*[ctypes.cast(r, ctypes.POINTER(Node)) for r in rows])
    ys = (ctypes.c_double * len(y))(*y)
    prob = Problem(len(y), X.shape[1], ys, x, -1.0)
    return prob, (rows, x, ys)	# keep the arrays alive with the problem


def test_early_stop_waits_past_the_noisy_small_C(data, tmp_path):
    """pendigits, stage 1 on its 4000-row subsample at psi 512: the walk
    once stopped at C = 2^-12 with 98.4% (the score wobbles at tiny C) where
    the exhaustive sweep reaches 99.4% at larger C; the stop now counts only
    from C = 1/16, where the score means something."""
    lib = ctypes.CDLL(str(ol.REPO / "ik" / "libliblinear-ik.so.1"))
    lib.lik_search.restype = ctypes.POINTER(SearchTable)
    lib.lik_search.argtypes = [ctypes.POINTER(Problem), ctypes.POINTER(Parameter), ctypes.POINTER(MapParams),
                               ctypes.c_int, ctypes.c_double, ctypes.c_double,
                               ctypes.POINTER(SearchOptions), ctypes.POINTER(Error)]
    lib.lik_search_table_free.argtypes = [ctypes.POINTER(ctypes.POINTER(SearchTable))]
    lib.lik_search_options_default.argtypes = [ctypes.POINTER(SearchOptions)]
    lib.lik_map_params_default.argtypes = [ctypes.POINTER(MapParams), ctypes.c_int]
    prob, keep = c_problem(data("pendigits", "pendigits.train"))
    param = Parameter(solver_type=2, eps=0.01, C=1, p=0.1, nu=0.5, regularize_bias=1)
    kernel = MapParams()
    lib.lik_map_params_default(ctypes.byref(kernel), 1)
    kernel.psi = 0
    options = SearchOptions()
    lib.lik_search_options_default(ctypes.byref(options))
    assert (options.patience, options.subsample_rows, options.confirm, options.grid_max,
            options.max_psi, options.time_budget, options.dual_scoring) == (3, 4000, 2, 4096, 16384, 300.0, 1)
    options.grid_max = 512	# stage 1 up to 512, then two psi on all rows; no extension
    options.confirm = 1
    options.time_budget = 0
    err = Error()
    table = lib.lik_search(ctypes.byref(prob), ctypes.byref(param), ctypes.byref(kernel), 5, -1, -1,
                           ctypes.byref(options), ctypes.byref(err))
    assert table, err.message
    t = table.contents
    rows = [(t.rows[i].psi, t.rows[i].rows, t.rows[i].C, t.rows[i].score) for i in range(t.count)]
    assert [r[:2] for r in rows[:8]] == [(4 << k, 4000) for k in range(8)]
    psi512 = rows[7]
    assert psi512[3] >= 0.99 and psi512[2] >= 1 / 16, psi512
    assert rows[-1][0] == 0 and t.plain == t.count - 1
    lib.lik_search_table_free(ctypes.byref(table))
    assert not table


def test_the_baseline_of_a_large_set_runs_on_the_subsample(data, binaries, tmp_path):
    """Above 4000 rows the plain baseline runs on stage 1's 4000-row subsample (upstream's full
    sweep of all rows can cost more than the whole kernel search) and is compared with stage 1's
    best psi there: the line says so and names that psi and its score; the advice follows it."""
    sat = data("satimage", "satimage.train")  # 4435 rows
    lines = search(binaries, "-s 2 -t 20", sat, tmp_path)
    stage1 = [PSI_LINE.match(line).groups() for line in lines
              if line.startswith("psi = ") and PSI_LINE.match(line).group(4) == "4000"]
    assert [int(g[0]) for g in stage1] == [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
    plain = PLAIN_SUBSAMPLE.match(next(line for line in lines if line.startswith("plain"))).groups()
    assert plain[0] == "4000"
    top = max(float(g[2]) for g in stage1)
    first_top = next(g for g in stage1 if float(g[2]) == top)  # ties: the smaller psi
    assert (plain[3], plain[4]) == (first_top[0], first_top[2])
    assert (ADVICE in lines) == (not float(first_top[2]) > float(plain[2]))
