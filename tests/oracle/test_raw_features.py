"""train -k -a w and ikmap -a w: the raw features beside the cells (issue 28).

The independent expectations: the column layout and the raw values of
`ikmap`'s rows against the data's own statistics computed here in numpy
(range over the training rows, implicit zeros counted; the mapped cells
must lie in 1..t*psi and the raw feature j at t*psi + j with value
w * x_j / range_j); train -k -a against plain `train` on the rows that
`ikmap -a` writes (same solver, C and a tight tolerance: the same model
and the same predictions); the .ik header and w field read from the
file's bytes (version 2, flag 0x100 in the scale field, w at byte 56);
ikmap -K's K(x, x) = 1 + w^2 ||x'||^2 computed here; -a 0 byte-identical
to no -a (and to a build from before, LIBLINEAR_IK_BASE_BIN, when set);
every bad -a refused with exit 1, a message and no file written.
"""
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import oracle_lib as ol

IKMAP_TOOL = ol.IKMAP_TOOL


def run_ok(cmd, **kw):
    r = ol.run([str(c) for c in cmd], **kw)
    assert r.returncode == 0, r.stderr
    return r


def map_rows(partitioning, data_path, out):
    with open(data_path) as src, open(out, "w") as dst:
        r = subprocess.run([str(IKMAP_TOOL), str(partitioning)], stdin=src, stdout=dst,
                           stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def model_w(path):
    """(nr_feature, w as a feature-major matrix) of a model file, trailer line ignored."""
    lines = Path(path).read_text().splitlines()
    header = {}
    at = 0
    while lines[at] != "w":
        key, _, value = lines[at].partition(" ")
        header[key] = value
        at += 1
    rows = [[float(v) for v in line.split()] for line in lines[at + 1:]
            if line and not line.startswith("ik_partitioning")]
    return int(header["nr_feature"]), np.array(rows)


def dense(path, d):
    y, X = ol.read_libsvm(path)
    return y, ol.with_columns(X, d, -1).toarray()


CASES = [
    # kernel options, data, test, d
    ("-k iforest -t 40 -g 16 -S 2", "dna", "dna.train", "dna.test", 180),
    ("-k anne -t 30 -g 16 -S 1", "heart", "heart.all", "heart.all", 13),
    ("-k minmax -t 40 -g 64 -S 2", "heart", "heart.all", "heart.all", 13),
    ("-k acos -t 64 -S 0", "heart", "heart.all", "heart.all", 13),
]


@pytest.mark.parametrize("kernel,name,train_stem,test_stem,d", CASES)
def test_train_a_is_plain_train_on_ikmaps_rows(kernel, name, train_stem, test_stem, d,
                                              data, binaries, tmp_path):
    """The model of train -k -a 0.3 is plain train's on the rows ikmap -a
    0.3 writes: nr_feature = cells + d, the same weights (tight tolerance),
    the same predictions; ikmap builds the very .ik bytes train stored."""
    train_path, test_path = data(name, train_stem), data(name, test_stem)
    solver = "-s 2 -e 1e-9 -c 0.5 -B 1"
    model = tmp_path / "k.model"
    run_ok([binaries[0], "-q", *kernel.split(), "-a", "0.3", *solver.split(), train_path, model])
    ik = tmp_path / "built.ik"
    run_ok([IKMAP_TOOL, *kernel.split(), "-a", "0.3", train_path, ik])
    assert ik.read_bytes() == Path(str(model) + ".ik").read_bytes()
    mapped_train = map_rows(ik, train_path, tmp_path / "mapped.train")
    mapped_test = map_rows(ik, test_path, tmp_path / "mapped.test")
    plain = tmp_path / "plain.model"
    run_ok([binaries[0], "-q", *solver.split(), mapped_train, plain])
    version, method, t, psi, dim, scale_field = struct.unpack("<6I", ik.read_bytes()[8:32])
    cells = t * psi
    n_ours, w_ours = model_w(model)
    n_plain, w_plain = model_w(plain)
    assert n_ours == cells + d
    # plain train counts the largest index it saw: the last raw feature may be absent
    assert n_plain <= n_ours
    w_plain_full = np.zeros_like(w_ours)
    w_plain_full[:n_plain] = w_plain[:n_plain]
    w_plain_full[-1] = w_plain[-1]	# the bias row, after every column
    np.testing.assert_allclose(w_ours, w_plain_full, rtol=0, atol=1e-6)
    out_k, out_p = tmp_path / "k.out", tmp_path / "p.out"
    run_ok([binaries[1], test_path, model, out_k])
    run_ok([binaries[1], mapped_test, plain, out_p])
    assert out_k.read_text() == out_p.read_text()


def test_column_layout_and_raw_values(data, binaries, tmp_path):
    """ikmap -a 0.3 -S 2 with iForest: t cells in 1..t*psi (one per
    partitioning), then feature j at t*psi + j with 0.3 * x_j / range_j, the
    range over the training rows with implicit zeros counted."""
    dna = data("dna", "dna.train")
    ik = tmp_path / "m.ik"
    run_ok([IKMAP_TOOL, "-k", "iforest", "-t", "20", "-g", "8", "-S", "2", "-a", "0.3", dna, ik])
    version, method, t, psi, dim, scale_field = struct.unpack("<6I", ik.read_bytes()[8:32])
    assert (version, method, t, psi, scale_field) == (2, 1, 20, 8, 0x100 | 2)
    (w,) = struct.unpack("<d", ik.read_bytes()[56:64])
    assert w == 0.3
    y, X = dense(dna, dim)
    rng = X.max(axis=0) - X.min(axis=0)
    rng[rng == 0] = 1
    mapped = map_rows(ik, dna, tmp_path / "mapped")
    for i, line in enumerate(mapped.read_text().splitlines()[:300]):
        tokens = [tok.split(":") for tok in line.split()[1:]]
        index = np.array([int(a) for a, _ in tokens])
        value = np.array([float(b) for _, b in tokens])
        cell = index <= t * psi
        assert cell.sum() == t
        assert list((index[cell] - 1) // psi) == list(range(t))
        raw_j = index[~cell] - t * psi
        want_j = np.nonzero(X[i])[0] + 1
        assert list(raw_j) == list(want_j)
        np.testing.assert_allclose(value[~cell], 0.3 * X[i, want_j - 1] / rng[want_j - 1],
                                   rtol=1e-15)


def test_ikmap_kernel_values_add_the_raw_inner_product(data, tmp_path):
    """ikmap -K with a raw part: K(x, x) = 1 + w^2 ||x'||^2 (x' = x / max|x| under aNNE -S 1)."""
    heart = data("heart", "heart.all")
    ik = tmp_path / "m.ik"
    run_ok([IKMAP_TOOL, "-k", "anne", "-t", "20", "-g", "8", "-S", "1", "-a", "0.5", heart, ik])
    few = tmp_path / "few"
    few.write_text("".join(Path(heart).read_text().splitlines(True)[:5]))
    r = run_ok([IKMAP_TOOL, "-K", ik, few])
    K = np.array([[float(v) for v in line.split()] for line in r.stdout.splitlines()])
    _, Xall = dense(heart, 13)
    scale = np.abs(Xall).max(axis=0)
    scale[scale == 0] = 1
    Xs = Xall[:5] / scale
    # -K prints %g: six significant digits
    np.testing.assert_allclose(np.diag(K), 1 + 0.25 * (Xs * Xs).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(K, K.T, rtol=1e-5)
    # the cells' part is a fraction of t = 20 partitionings
    cellpart = K - 0.25 * Xs @ Xs.T
    np.testing.assert_allclose(cellpart * 20, np.round(cellpart * 20), atol=1e-3)


@pytest.mark.parametrize("kernel", ["-k anne -t 20 -g 16", "-k iforest -t 20 -g 16 -S 2",
                                    "-k minmax -t 30 -g 16 -S 2", "-k acos -t 50"])
def test_a_zero_is_byte_identical(kernel, data, binaries, tmp_path):
    """-a 0 writes the same model and .ik bytes as no -a (and as a build from
    before raw features, LIBLINEAR_IK_BASE_BIN, when set)."""
    heart = data("heart", "heart.all")
    folders = {"none": [], "zero": ["-a", "0"]}
    base = os.environ.get("LIBLINEAR_IK_BASE_BIN")
    for label, extra in folders.items():
        (tmp_path / label).mkdir()
        run_ok([binaries[0], "-q", *kernel.split(), *extra, "-s", "1", heart, "m"],
               cwd=tmp_path / label)
    if base:
        (tmp_path / "base").mkdir()
        run_ok([Path(base) / "train", "-q", *kernel.split(), "-s", "1", heart, "m"],
               cwd=tmp_path / "base")
    for label in folders.keys() | ({"base"} if base else set()):
        for f in ("m", "m.ik"):
            assert (tmp_path / label / f).read_bytes() == (tmp_path / "none" / f).read_bytes(), (label, f)


@pytest.mark.parametrize("value", ["-1", "-0.3", "nan", "inf", "abc", "0.3x", ""])
def test_bad_weights_refused(value, data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    for cmd in ([binaries[0], "-k", "anne", "-a", value, heart, tmp_path / "m"],
                [IKMAP_TOOL, "-k", "anne", "-a", value, heart, tmp_path / "m"]):
        r = ol.run([str(c) for c in cmd])
        assert r.returncode == 1
        assert "-a" in r.stderr or r.stdout.startswith("Usage")
    assert not any(tmp_path.iterdir())


def test_a_without_k_refused(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    r = ol.run([str(binaries[0]), "-a", "0.3", str(heart), str(tmp_path / "m")])
    assert r.returncode == 1
    assert "-a" in r.stderr and "-k" in r.stderr
    assert not any(tmp_path.iterdir())


def test_model_and_map_must_agree_on_the_columns(data, binaries, tmp_path):
    """A -a model whose trailer line was lost, with its .ik beside it (t*psi + d
    columns = nr_feature: the stale-.ik check counts the raw columns), is
    refused, never predicted as a plain model."""
    heart = data("heart", "heart.all")
    model = tmp_path / "m"
    run_ok([binaries[0], "-q", "-k", "anne", "-t", "10", "-g", "8", "-a", "0.3", "-s", "1", heart, model])
    lines = model.read_text().splitlines(True)
    assert lines[-1].startswith("ik_partitioning")
    model.write_text("".join(lines[:-1]))
    r = ol.run([str(binaries[1]), str(heart), str(model), str(tmp_path / "out")])
    assert r.returncode == 1
    assert "trailer" in r.stderr


def test_online_update_counts_the_raw_weights(data, binaries, tmp_path):
    """-s 30 with -k -a: the model has t*psi + d weights and predicts as trained."""
    heart = data("heart", "heart.all")
    model = tmp_path / "m"
    run_ok([binaries[0], "-q", "-k", "iforest", "-t", "10", "-g", "8", "-a", "1", "-s", "30", heart, model])
    n, w = model_w(model)
    assert n == 10 * 8 + 13 and w.shape[0] == n
    assert np.any(w[80:] != 0)
    r = run_ok([binaries[1], heart, model, tmp_path / "out"])
    assert "Accuracy" in r.stdout
