"""The Isolation Kernel from Python: train with -k and its options, the
model pair's files (the programs' own: checked against ./train, ./predict
and ./ikmap/ikmap, which are independent of the Python layer), pickling,
whole-matrix prediction, IKMap, and bad input."""
import ctypes
import math
import os
import pickle
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import BIN_DIR
from liblinear import _ik
from liblinear.liblinear import feature_node
from liblinear.liblinearutil import load_model, predict, save_model, svm_read_problem, train

# the ikmap program: tools/ikmap since the layout moved the programs, ikmap/ikmap before
IKMAP_TOOL = BIN_DIR / "tools" / "ikmap" if (BIN_DIR / "tools" / "ikmap").exists() else BIN_DIR / "ikmap" / "ikmap"


def program(programs, which, *args, cwd=None):
    path = {"train": programs[0], "predict": programs[1], "ikmap": str(IKMAP_TOOL)}[which]
    return subprocess.run([path] + [str(a) for a in args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def heart(data):
    y, x = svm_read_problem(data["heart"])
    return y, x


def read_libsvm(path):
    y, rows = svm_read_problem(str(path))
    return y, rows


# ---------------------------------------------------------------- training

@pytest.mark.parametrize("options", ["-k anne -t 40 -g 16", "-k 2 -t 30 -g 8 -r 7", "-k anne -t 20 -g 32 -S 0 -s 0",
                                     "-k iforest -t 25 -s 11 -B 1", "-k anne -t 30 -g 16 -s 21",
                                     "-k anne -t 30 -g 16 -s 2 -m 1 -d cpu", "-k 1 -t 16 -g 8 -s 4 -c 3"])
def test_python_pair_equals_the_train_program_s(options, data, programs, tmp_path, capfd):
    """train(..., '-k ...') then save_model writes byte for byte the pair that ./train -k writes."""
    y, x = svm_read_problem(data["heart"])
    m = train(y, x, options + " -q")
    assert m.is_ik_model()
    ik_map = m.get_ik_map()
    assert m.get_nr_feature() == ik_map.t * ik_map.psi
    # the same name in two folders: MODEL's trailer line names its .ik file
    (tmp_path / "py").mkdir()
    (tmp_path / "cli").mkdir()
    save_model(str(tmp_path / "py" / "m.model"), m)
    run = program(programs, "train", *options.split(), "-q", data["heart"], tmp_path / "cli" / "m.model")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "py" / "m.model").read_bytes() == (tmp_path / "cli" / "m.model").read_bytes()
    assert (tmp_path / "py" / "m.model.ik").read_bytes() == (tmp_path / "cli" / "m.model.ik").read_bytes()
    assert ik_map.to_bytes() == (tmp_path / "cli" / "m.model.ik").read_bytes()


@pytest.mark.parametrize("options", ["-k anne -t 30 -g 16", "-k iforest -t 20 -g 8 -s 0 -B 1",
                                     "-k anne -t 20 -g 16 -s 11"])
def test_program_predicts_a_python_pair_and_the_reverse(options, data, programs, tmp_path, capfd):
    """Identical printed line and labels both ways (./predict on a Python pair; Python on a ./train pair)."""
    y, x = svm_read_problem(data["dna.train"])
    yt, xt = svm_read_problem(data["dna.test"])
    m = train(y, x, options + " -q")
    save_model(str(tmp_path / "py.model"), m)
    capfd.readouterr()
    labels, acc, values = predict(yt, xt, m)
    printed = capfd.readouterr().out
    run = program(programs, "predict", data["dna.test"], tmp_path / "py.model", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    if m.is_regression_model():
        assert run.stdout == printed
    else:
        assert run.stdout.rstrip("\n") + " (classification)\n" == printed
    assert [float(v) for v in (tmp_path / "out").read_text().split()] == labels

    run = program(programs, "train", *options.split(), "-q", data["dna.train"], tmp_path / "cli.model")
    assert run.returncode == 0, run.stderr
    loaded = load_model(str(tmp_path / "cli.model"))
    assert loaded.is_ik_model()
    capfd.readouterr()
    labels2, acc2, values2 = predict(yt, xt, loaded)
    assert capfd.readouterr().out == printed
    assert labels2 == labels and values2 == values


def test_probabilities_match_the_program(data, programs, tmp_path, capfd):
    y, x = svm_read_problem(data["heart"])
    m = train(y[:200], x[:200], "-k anne -t 50 -g 16 -s 0 -q")
    save_model(str(tmp_path / "m"), m)
    labels, _, probabilities = predict(y[200:], x[200:], m, "-b 1 -q")
    (tmp_path / "test").write_text("".join(
        "%g %s\n" % (label, " ".join("%d:%.17g" % (k, v) for k, v in sorted(row.items())))
        for label, row in zip(y[200:], x[200:])))
    run = program(programs, "predict", "-b", "1", tmp_path / "test", tmp_path / "m", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    lines = (tmp_path / "out").read_text().splitlines()
    assert [int(v) for v in lines[0].split()[1:]] == m.get_labels()
    assert [float(line.split()[0]) for line in lines[1:]] == labels
    # the program prints %g: six significant digits
    for line, row in zip(lines[1:], probabilities):
        assert [float(v) for v in line.split()[1:]] == [float("%g" % p) for p in row]


def test_cross_validation_and_search(heart, capfd):
    y, x = heart
    capfd.readouterr()
    accuracy = train(y, x, "-k anne -t 30 -g 16 -v 5 -q")
    assert capfd.readouterr().out == "Cross Validation Accuracy = %g%%\n" % accuracy
    assert 70 <= accuracy <= 95
    mse = train(y, x, "-k anne -t 30 -g 16 -s 11 -v 5 -q")
    out = capfd.readouterr().out
    assert out.startswith("Cross Validation Mean squared error = %g\n" % mse)
    # -C with -g: C only, psi as given (lines: see test_search_prints_the_programs_lines)
    C, p, score, psi = train(y, x, "-k anne -t 20 -g 16 -C -q")
    assert psi == 16 and p == -1.0 and 0.6 <= score <= 1.0 and C > 0
    assert "\nBest psi = 16  Best C = %g  CV accuracy = %g%%\n" % (C, 100 * score) in capfd.readouterr().out
    # -C without -g searches psi too (4, 8, ... up to the rows)
    C, p, score, psi = train(y, x, "-k anne -t 20 -C -q")
    assert psi in (4, 8, 16, 32, 64, 128, 256)
    assert "\nBest psi = %d  Best C = %g  CV accuracy = %g%%\n" % (psi, C, 100 * score) in capfd.readouterr().out
    C, p, score, psi = train(y, x, "-k anne -t 20 -g 8 -C -s 11 -q")
    assert "\nBest psi = 8  Best C = %g Best p = %g  CV MSE = %g\n" % (C, p, score) in capfd.readouterr().out


def _without_seconds(lines):
    """The search's psi lines end with '(N rows, S s)': the seconds vary from run to run."""
    return [re.sub(r", [0-9.]+ s\)$", ", S s)", line) for line in lines]


def test_search_prints_the_programs_lines(data, programs, heart, capfd):
    """train -C -k from Python runs the program's staged search (lik_search): the same lines
    from the first psi line to the advice, an empty line after them (as upstream's Python
    after its Best line), the same returned values as the Best line, and the whole table in
    liblinear._ik.last_search_table (the plain baseline, psi 0, last)."""
    from liblinear import _ik
    y, x = heart
    for options in (["-k", "anne", "-t", 20], ["-k", "iforest", "-t", 10, "-s", 0, "-B", 1],
                    ["-k", "anne", "-t", 10, "-g", 8, "-s", 11], ["-k", "anne", "-t", 10, "-g", 16]):
        capfd.readouterr()
        C, p, score, psi = train(y, x, " ".join(str(o) for o in options) + " -C -q")
        ours = capfd.readouterr().out.split("\n")
        run = program(programs, "train", *options, "-C", "-q", data["heart"], os.devnull)
        assert run.returncode == 0, run.stderr
        theirs = run.stdout.splitlines()
        assert theirs[0].startswith("Doing parameter search") and theirs[-1].startswith("best model: ")
        assert ours[-2:] == ["", ""]  # the lines, an empty line, and the final newline
        assert _without_seconds(ours[:-2]) == _without_seconds(theirs[1:-1])
        best = [line for line in ours if line.startswith("Best psi = ")]
        assert len(best) == 1 and best[0].startswith("Best psi = %d  Best C = %g" % (psi, C))
        table = _ik.last_search_table
        assert table[-1]["psi"] == 0 and sum(1 for r in table if r["psi"] == 0) == 1
        chosen = [r for r in table if r["psi"] == psi and r["rows"] == 270 and r["C"] == C and r["score"] == score]
        assert chosen, table
        psi_lines = [line for line in ours if line.startswith("psi = ")]
        assert len(psi_lines) == len(table) - 1


def test_search_of_a_large_file_is_the_held_rows_search(data, programs, capfd):
    """Above lik_search's 4000-row subsample train -C -k reads its file in passes and never
    holds all rows (tools/ik_search_stream.c); train(..., '-C -k') from Python runs lik_search
    on the rows held in memory: the same lines, seconds aside, on satimage (4435 rows: stage 1
    on 4000 of them, then all of them), with -s 2 and -s 0."""
    y, x = svm_read_problem(data["satimage"])
    for options in (["-k", "anne", "-t", 20], ["-k", "anne", "-t", 20, "-s", 0, "-B", 1]):
        capfd.readouterr()
        train(y, x, " ".join(str(o) for o in options) + " -C -q")
        ours = capfd.readouterr().out.split("\n")
        run = program(programs, "train", *options, "-C", "-q", data["satimage"], os.devnull)
        assert run.returncode == 0, run.stderr
        theirs = run.stdout.splitlines()
        assert ours[-2:] == ["", ""]
        assert _without_seconds(ours[:-2]) == _without_seconds(theirs[1:-1])
        assert any(line.endswith("(4000 rows, S s)") for line in _without_seconds(theirs))
        assert any(line.endswith("(4435 rows, S s)") for line in _without_seconds(theirs))


def test_auto_search_prints_the_programs_lines(data, programs, heart, capfd):
    """train -C -k auto from Python runs the program's search (lik_auto_search): the same
    candidate and summary lines (seconds aside), the chosen C, score and psi returned, and the
    table with its kernel, t, S, w columns and per-fold scores in last_search_table."""
    from liblinear import _ik
    y, x = heart
    capfd.readouterr()
    C, p, score, psi = train(y, x, "-k auto -t 30 -C -q")
    ours = capfd.readouterr().out.split("\n")
    run = program(programs, "train", "-k", "auto", "-t", 30, "-C", "-q", data["heart"], os.devnull)
    assert run.returncode == 0, run.stderr
    theirs = run.stdout.splitlines()
    assert theirs[-1].startswith("best model: ")
    assert ours[-2:] == ["", ""]
    assert _without_seconds(ours[:-2]) == _without_seconds(theirs[1:-1])
    table = _ik.last_search_table
    assert [r["kernel"] for r in table[:5]] == ["linear", "anne", "iforest", "minmax", "acos"]
    assert all(r["t"] == 30 for r in table if r["kernel"] != "linear")
    assert all(r["w"] == 0 for r in table[:5])  # stage 1; stage 2 adds w = 0.3 and 1
    assert {r["w"] for r in table} == {0, 0.3, 1}
    for r in table:  # 270 rows in 5 folds of 54: the pooled score is the mean of the folds'
        assert len(r["folds"]) == 5 and abs(sum(r["folds"]) / 5 - r["score"]) < 1e-12
    best = [line for line in ours if line.startswith("Best kernel = ")]
    assert len(best) == 1 and "psi = %d  " % psi in best[0] and "  C = %g  " % C in best[0]
    with pytest.raises(ValueError, match="-k auto needs -C"):
        train(y, x, "-k auto -q")
    with pytest.raises(ValueError):
        train(y, x, "-k auto -C -s 11 -q")
    # -a fixes every kernel candidate's w, as the program's -a does
    capfd.readouterr()
    train(y, x, "-k auto -t 30 -a 0.3 -C -q")
    assert all(r["w"] == (0 if r["kernel"] == "linear" else 0.3) for r in _ik.last_search_table)


def test_cross_validation_matches_the_program(data, programs, heart, capfd):
    """The same folds and maps as ./train -k -v: the same printed line."""
    y, x = heart
    capfd.readouterr()
    train(y, x, "-k iforest -t 30 -g 16 -v 5 -q")
    ours = capfd.readouterr().out
    run = program(programs, "train", "-k", "iforest", "-t", 30, "-g", 16, "-v", 5, "-q", data["heart"])
    assert run.returncode == 0, run.stderr
    assert run.stdout == ours


def test_k_none_is_a_plain_model(heart):
    y, x = heart
    m = train(y, x, "-k 0 -t 5 -q")
    assert not m.is_ik_model() and m.get_nr_feature() == 13


def test_seed_and_scale_change_the_map(heart):
    y, x = heart
    a = train(y, x, "-k anne -t 10 -g 8 -q").get_ik_map()
    b = train(y, x, "-k anne -t 10 -g 8 -r 2 -q").get_ik_map()
    c = train(y, x, "-k anne -t 10 -g 8 -S 0 -q").get_ik_map()
    assert a.seed == 1 and b.seed == 2 and a.checksum != b.checksum
    assert a.scaled and not c.scaled
    assert a.kernel == "anne" and a.t == 10 and a.psi == 8 and a.dim == 13


# ---------------------------------------------------------------- pickling and files

def test_pickle_round_trips(heart, tmp_path):
    y, x = heart
    for options in ("-k anne -t 20 -g 16 -s 0 -q", "-s 0 -B 1 -q", "-k iforest -t 10 -g 8 -s 21 -q", "-s 4 -q"):
        m = train(y[:200], x[:200], options)
        again = pickle.loads(pickle.dumps(m))
        assert again.is_ik_model() == m.is_ik_model()
        assert again.get_labels() == m.get_labels() and again.get_nr_feature() == m.get_nr_feature()
        assert predict(y[200:], x[200:], again, "-q") == predict(y[200:], x[200:], m, "-q")
        # the pickled pair is the pair save_model writes
        for folder, which in (("a", m), ("b", again)):
            (tmp_path / folder).mkdir(exist_ok=True)
            save_model(str(tmp_path / folder / "m"), which)
        assert (tmp_path / "a" / "m").read_bytes() == (tmp_path / "b" / "m").read_bytes()
        assert os.path.exists(tmp_path / "a" / "m.ik") == m.is_ik_model() == os.path.exists(tmp_path / "b" / "m.ik")


def test_saving_a_plain_model_removes_a_stale_map(heart, tmp_path):
    y, x = heart
    save_model(str(tmp_path / "m"), train(y, x, "-k anne -t 10 -g 8 -q"))
    assert (tmp_path / "m.ik").exists()
    save_model(str(tmp_path / "m"), train(y, x, "-q"))
    assert not (tmp_path / "m.ik").exists()
    assert not load_model(str(tmp_path / "m")).is_ik_model()


def test_damaged_or_mismatched_map_is_refused(heart, tmp_path):
    y, x = heart
    save_model(str(tmp_path / "a"), train(y, x, "-k anne -t 10 -g 8 -q"))
    save_model(str(tmp_path / "b"), train(y, x, "-k anne -t 10 -g 8 -r 5 -q"))
    good = (tmp_path / "a.ik").read_bytes()
    # another map of the same width: its checksum is not the one MODEL names
    (tmp_path / "a.ik").write_bytes((tmp_path / "b.ik").read_bytes())
    with pytest.raises(ValueError) as caught:
        load_model(str(tmp_path / "a"))
    assert "checksum" in str(caught.value) or "match" in str(caught.value)
    # a damaged map
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0x55
    (tmp_path / "a.ik").write_bytes(bytes(damaged))
    with pytest.raises(ValueError):
        load_model(str(tmp_path / "a"))
    (tmp_path / "a.ik").write_bytes(good[:len(good) // 3])
    with pytest.raises(ValueError):
        load_model(str(tmp_path / "a"))
    # missing: refused, never read as a plain model
    (tmp_path / "a.ik").unlink()
    with pytest.raises((ValueError, OSError)):
        load_model(str(tmp_path / "a"))
    # damaged pickles too
    blob = bytearray(pickle.dumps(train(y, x, "-k anne -t 10 -g 8 -q")))
    blob[len(blob) - 40] ^= 0x55
    with pytest.raises((ValueError, pickle.UnpicklingError)):
        pickle.loads(bytes(blob))


def test_save_errors_are_oserror(heart, tmp_path):
    y, x = heart
    m = train(y, x, "-k anne -t 10 -g 8 -q")
    with pytest.raises(OSError):
        save_model(str(tmp_path / "no" / "such" / "dir" / "m"), m)
    assert load_model(str(tmp_path / "missing")) is None


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("options,message", [
    ("-k 5", "-k needs 0 (none), 1 (anne), 2 (iforest), 3 (minmax) or 4 (acos)"),
    ("-k anne -t 0", "-t needs a number of partitionings >= 1"),
    ("-k anne -t 1.5", "-t needs a number of partitionings >= 1"),
    ("-k anne -g 0", "-g needs a number of cells per partitioning (psi) >= 1"),
    ("-k anne -r -1", "-r needs a seed, a whole number from 0 to 18446744073709551615"),
    ("-k anne -S 5", "-S needs 0 (none), 1 (divide by max |x|), 2 (min-max), 3 (divide by the"
                     " standard deviation) or 4 (log1p, then as 1)"),
    ("-k anne -d tpu", "-d needs auto, cpu or gpu"),
    ("-k anne -m 0", '-m needs a number of threads >= 1, not "0"'),
])
def test_bad_kernel_options(heart, options, message):
    y, x = heart
    with pytest.raises(ValueError) as caught:
        train(y, x, options)
    assert str(caught.value) == message


def test_the_c_library_s_messages(heart):
    y, x = heart
    with pytest.raises(ValueError, match="psi"):
        train(y[:10], x[:10], "-k anne -g 64 -q")
    with pytest.raises(ValueError, match="C <= 0"):
        train(y, x, "-k anne -g 8 -c -1 -q")
    bad = [dict(row) for row in x]
    bad[3][2] = float("nan")
    with pytest.raises(ValueError):
        train(y, bad, "-k anne -g 8 -q")
    with pytest.raises(ValueError):
        _ik.IKMap.build(np.array([[1.0, np.inf], [0.0, 1.0]]), psi=1)
    with pytest.raises(ValueError, match="psi"):
        _ik.IKMap.build(np.ones((3, 2)), psi=4)
    with pytest.raises(ValueError):
        _ik.IKMap.from_bytes(b"not a map")
    with pytest.raises(ValueError):
        _ik.IKMap.build(np.ones((3, 2)), kernel="rbf", psi=2)


# ---------------------------------------------------------------- whole-matrix prediction

def per_row(m, rows, what):
    """lik_predict_values / lik_predict_probability, one call per row (the reference)."""
    lib = _ik._lib
    function = lib.lik_predict_probability if what == "prob" else lib.lik_predict_values
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.c_void_p, ctypes.POINTER(feature_node), ctypes.POINTER(ctypes.c_double),
                         ctypes.POINTER(_ik.lik_error)]
    handle = _ik._plain_handle(m)
    buffer = (ctypes.c_double * 16)()
    labels, values = [], []
    for row in rows:
        nodes = (feature_node * (len(row) + 1))()
        for i, (k, v) in enumerate(sorted(row.items())):
            nodes[i].index, nodes[i].value = k, v
        nodes[len(row)].index = -1
        err = _ik.lik_error()
        labels.append(function(handle, nodes, buffer, ctypes.byref(err)))
        values.append(buffer[:m.get_nr_class() if what == "prob" else (1 if m.get_nr_class() <= 2 else m.get_nr_class())])
    return labels, values


@pytest.mark.parametrize("options", ["-k anne -t 30 -g 16 -s 0", "-k iforest -t 20 -g 8 -s 2 -B 1"])
def test_matrix_prediction_equals_the_per_row_path(data, options):
    y, x = svm_read_problem(data["vowel"])
    m = train(y[::2], x[::2], options + " -q")
    rows = x[1::2]
    ys, xs = svm_read_problem(data["vowel"], return_scipy=True)
    matrix = xs[1::2]
    expected = per_row(m, rows, "values")
    for given in (rows, matrix, matrix.toarray(), sp.csc_matrix(matrix), sp.csr_array(matrix)):
        labels, _, values = predict(list(ys[1::2]), given, m, "-q")
        assert labels == expected[0]
        assert values == expected[1]
    if m.is_probability_model():
        expected = per_row(m, rows, "prob")
        labels, _, values = predict([], matrix, m, "-b 1 -q")
        assert labels == expected[0] and values == expected[1]


# ---------------------------------------------------------------- IKMap

@pytest.fixture(scope="module")
def usps_like():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 20))
    X[rng.random(X.shape) < 0.4] = 0.0
    return X


def test_ikmap_inputs_agree(usps_like):
    X = usps_like
    rows = [{j + 1: v for j, v in enumerate(r) if v != 0} for r in X]
    maps = [_ik.IKMap.build(given, t=40, psi=16, seed=3) for given in
            (X, sp.csr_matrix(X), sp.csr_array(X), sp.coo_matrix(X), rows, [list(r) for r in X])]
    assert len({m.checksum for m in maps}) == 1
    cells = maps[0].cells(X)
    assert cells.dtype == np.uint32 and cells.shape == (300, 40) and cells.max() < 16
    for m in maps[1:]:
        assert np.array_equal(m.cells(sp.csr_matrix(X)), cells)
        assert np.array_equal(m.cells(rows), cells)


@pytest.mark.parametrize("kernel", ["anne", "iforest"])
def test_ikmap_transform_and_kernel(usps_like, kernel):
    X = usps_like
    m = _ik.IKMap.build(X[:200], kernel=kernel, t=50, psi=32, seed=9, scale=0, device="cpu", threads=1)
    assert (m.kernel, m.t, m.psi, m.seed, m.scaled, m.dim) == (kernel, 50, 32, 9, False, 20)
    Z = m.transform(X)
    assert isinstance(Z, sp.csr_matrix) and Z.shape == (300, 50 * 32)
    assert np.all(np.diff(Z.indptr) == 50)
    assert np.all(Z.data == 1 / math.sqrt(50))
    cells = m.cells(X)
    expected_columns = (np.arange(50)[None, :] * 32 + cells.astype(np.int64))
    assert np.array_equal(Z.indices.reshape(300, 50), expected_columns)
    K = m.kernel(X[:40], X[100:170])
    assert K.shape == (40, 70)
    shared = (cells[:40, None, :] == cells[None, 100:170, :]).mean(axis=2)
    assert np.allclose(K, shared, rtol=0, atol=1e-12)
    assert np.allclose(K, (Z[:40] @ Z[100:170].T).toarray(), rtol=0, atol=1e-12)
    assert np.allclose(np.diag(m.kernel(X[:10])), 1.0)


def test_ikmap_matches_the_ikmap_program(usps_like, programs, tmp_path):
    """The bytes are the .ik file the ikmap program reads; it maps and computes K exactly as IKMap does."""
    X = usps_like
    m = _ik.IKMap.build(X, t=30, psi=16, seed=4)
    (tmp_path / "p.ik").write_bytes(m.to_bytes())
    text = "".join("0 " + " ".join("%d:%.17g" % (j + 1, v) for j, v in enumerate(row) if v != 0) + "\n"
                   for row in X[:50])
    (tmp_path / "x").write_text(text)
    run = subprocess.run([str(IKMAP_TOOL), str(tmp_path / "p.ik")], input=text, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    Z = m.transform(X[:50])
    for line, start, end in zip(run.stdout.splitlines(), Z.indptr[:-1], Z.indptr[1:]):
        pairs = [p.split(":") for p in line.split()[1:]]
        assert [int(k) - 1 for k, _ in pairs] == list(Z.indices[start:end])
        assert [float(v) for _, v in pairs] == list(Z.data[start:end])
    run = subprocess.run([str(IKMAP_TOOL), "-K", str(tmp_path / "p.ik"), str(tmp_path / "x")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    K = np.array([[float(v) for v in line.split()] for line in run.stdout.splitlines()])
    # the program prints %g
    assert np.array_equal(K, np.vectorize(lambda v: float("%g" % v))(m.kernel(X[:50], X[:50])))


def test_ikmap_bytes_and_pickle(usps_like):
    X = usps_like
    m = _ik.IKMap.build(X, kernel="iforest", t=20, psi=8, seed=11)
    copy = _ik.IKMap.from_bytes(m.to_bytes())
    assert copy.checksum == m.checksum and copy.to_bytes() == m.to_bytes()
    assert np.array_equal(copy.cells(X), m.cells(X))
    again = pickle.loads(pickle.dumps(m))
    assert again == m and np.array_equal(again.transform(X).toarray(), m.transform(X).toarray())
    # a -k model's map is the same object the model was trained with
    model = train([1.0] * 150 + [-1.0] * 150, X, "-k iforest -t 20 -g 8 -r 11 -q")
    assert model.get_ik_map().to_bytes() == m.to_bytes()
    damaged = bytearray(m.to_bytes())
    damaged[-3] ^= 0x10
    with pytest.raises(ValueError):
        _ik.IKMap.from_bytes(bytes(damaged))


def test_ikmap_threads_and_device_do_not_change_cells(usps_like):
    X = usps_like
    m = _ik.IKMap.build(X, t=30, psi=16)
    reference = m.cells(X, device="cpu", threads=1)
    assert np.array_equal(m.cells(X, device="cpu", threads=2), reference)
    assert np.array_equal(m.cells(X, device="auto"), reference)
    built_on_two = _ik.IKMap.build(X, t=30, psi=16, threads=2)
    assert built_on_two.checksum == m.checksum


def test_ikmap_empty_and_wide_inputs(usps_like):
    X = usps_like
    m = _ik.IKMap.build(X, t=10, psi=8)
    assert m.cells(np.zeros((0, 20))).shape == (0, 10)
    assert m.transform(sp.csr_matrix((0, 20))).shape == (0, 80)
    # features beyond the map's dim are ignored
    wide = np.hstack([X, np.full((300, 5), 3.0)])
    assert np.array_equal(m.cells(wide), m.cells(X))


def test_models_alive_at_exit_free_quietly(data):
    """Models still alive when the interpreter ends are freed without "Exception ignored in
    model.__del__" (it imported a module there, which fails during shutdown)."""
    import sys
    code = ("from liblinear.liblinearutil import *\n"
            "y, x = svm_read_problem(%r)\n"
            "keep = [train(y, x, '-k anne -t 10 -g 8 -q'), train(y, x, '-s 0 -q')]\n"
            "import pickle; keep.append(pickle.loads(pickle.dumps(keep[1])))\n"
            "predict(y, x, keep[1], '-q')\n" % data["heart"])
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stderr == "", run.stderr


def test_non_finite_rows_are_refused_by_maps(heart):
    """NaN or infinity has no cell: predict with a -k model and IKMap refuse the row (they mapped it)."""
    y, x = heart
    mk = train(y, x, "-k anne -t 10 -g 8 -q")
    rows = [dict(r) for r in x[:5]]
    rows[2][4] = float("nan")
    with pytest.raises(ValueError, match=r"^row 3: feature 4 is not a finite number$"):
        predict([], rows, mk, "-q")
    dense = np.ones((4, 3))
    dense[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"^row 2: feature 3 is not a finite number$"):
        mk.get_ik_map().cells(sp.csr_matrix(dense))
    with pytest.raises(ValueError, match="not a finite number"):
        mk.get_ik_map().transform(dense)


def test_untrainable_labels_raise_instead_of_a_null_model():
    """A NaN label: the library refuses it (and says so); train raised ValueError('Null pointer')."""
    with pytest.raises(ValueError, match="returned no model"):
        train([float("nan"), 1.0], [{1: 1.0}, {1: 2.0}], "-q")


def test_object_arrays_of_rows(heart):
    """A 1-D numpy array of dicts is a list of rows (it raised TypeError from float())."""
    y, x = heart
    m = train(y[:100], x[:100], "-s 2 -q")
    as_list = predict(y[100:], x[100:], m, "-q")
    as_array = predict(np.array(y[100:]), np.array(x[100:], dtype=object), m, "-q")
    assert as_list == as_array


def test_the_package_maps_on_the_cpu_only(usps_like):
    """setup.py builds with NVCC= (no CUDA toolkit needed): asking for the GPU is a clear ValueError."""
    X = usps_like
    with pytest.raises(ValueError, match="no GPU support"):
        train([1.0] * 150 + [-1.0] * 150, X, "-k anne -g 8 -t 10 -d gpu -q")
    m = _ik.IKMap.build(X, t=10, psi=8)
    with pytest.raises(ValueError, match="no GPU support"):
        m.cells(X, device="gpu")
    assert np.array_equal(m.cells(X, device="auto"), m.cells(X, device="cpu"))
