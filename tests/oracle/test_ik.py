"""train -k, predict on -k models, and ikmap, end to end.

The independent expectations: upstream LIBLINEAR 2.50 (through its Python
interface) on the rows `ikmap` prints, which must be exactly what a -k
model sees; our own plain train on those rows; the kernel's definition
K(x, y) = fraction of partitionings where x and y share a cell; and the
accuracies measured on held-out test sets (a9a, dna)."""
import re
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import oracle_lib as ol
from liblinear.liblinear import parameter, problem
from liblinear.liblinearutil import load_model, save_model
from liblinear.liblinearutil import train as upstream_train

# tools/ikmap in the build tree, bin/ikmap installed (oracle_lib).
IKMAP_TOOL = ol.IKMAP_TOOL
TRAILER = re.compile(r"^ik_partitioning ([0-9a-f]{16}) (.+)$")
TRAIN_USAGE = "Usage: train [options] training_set_file [model_file]\noptions:\n"


@pytest.fixture(scope="module")
def tool():
    if not IKMAP_TOOL.exists():
        pytest.fail(f"{IKMAP_TOOL} is not built; run make first")
    return IKMAP_TOOL


def train_ok(binaries, options, data_path, model, cwd=None):
    r = ol.run([binaries[0], "-q", *options.split(), data_path, model], cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


def predict_ok(binaries, test_path, model, out, options=""):
    r = ol.run([binaries[1], *options.split(), test_path, model, out])
    assert r.returncode == 0, r.stderr
    return r.stdout, out.read_text().splitlines()


def map_rows(tool, partitioning, data_path, out):
    """ikmap's map mode: data_path on stdin, the mapped rows to out."""
    with open(data_path) as src, open(out, "w") as dst:
        r = subprocess.run([str(tool), str(partitioning)], stdin=src, stdout=dst,
            stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def split_trailer(model):
    """(model text without its last line, trailer match) of a -k model file."""
    text = model.read_text()
    body, _, last = text.rstrip("\n").rpartition("\n")
    m = TRAILER.match(last)
    assert m, f"no trailer in {model}: {last!r}"
    return body + "\n", m


def parse_ik_model(model, tmp_path):
    """oracle_lib.parse_model of the model without its trailer line."""
    body, _ = split_trailer(model)
    plain = tmp_path / (model.name + ".plain")
    plain.write_text(body)
    return ol.parse_model(plain)


def accuracy(stdout):
    return float(re.match(r"Accuracy = (\S+)%", stdout).group(1)) / 100


# ------------------------------------------------ a9a: the papers' data set

@pytest.fixture(scope="module")
def a9a_lr(tmp_path_factory, data, binaries):
    """train -k anne -t 100 -g 64 -s 0 on a9a, and our predict -b 1 on a9a.test."""
    folder = tmp_path_factory.mktemp("a9a_ik")
    train_path, test_path = data("a9a", "a9a.train"), data("a9a", "a9a.test")
    model = folder / "a9a.model"
    train_ok(binaries, "-k anne -t 100 -g 64 -s 0", train_path, model)
    stdout, lines = predict_ok(binaries, test_path, model, folder / "out", "-b 1")
    return model, test_path, stdout, lines


def test_a9a_test_accuracy(a9a_lr):
    """aNNE, t = 100, psi = 64, -s 0 -c 1: 84.70% measured on a9a.test (the
    IK + LIBLINEAR paper reports .84; plain linear gets about .85 here)."""
    _, _, stdout, _ = a9a_lr
    assert accuracy(stdout) >= 0.84


def test_a9a_model_is_upstream_readable_and_named(a9a_lr):
    model, _, _, _ = a9a_lr
    _, trailer = split_trailer(model)
    assert trailer.group(2) == "a9a.model.ik"
    assert (model.parent / "a9a.model.ik").exists()
    m = load_model(str(model))
    assert m is not None and m.get_nr_feature() == 100 * 64


def test_upstream_predicts_our_output_on_mapped_rows(a9a_lr, upstream, tool, tmp_path):
    """Upstream's load_model reads our -k model (the trailer is ignored), and
    predicting on the rows ikmap prints gives exactly our predict -b 1
    output: labels and probabilities, character for character."""
    model, test_path, _, lines = a9a_lr
    mapped = map_rows(tool, model.parent / "a9a.model.ik", test_path, tmp_path / "mapped")
    labels, probs = upstream.predict(mapped, model, "-b 1")
    expected = ["labels 1 -1"] + ["%g %g %g" % (a, p[0], p[1]) for a, p in zip(labels, probs)]
    assert lines == expected


# ------------------------------------------- the same model as upstream's

def upstream_model_on_mapped(y, X, options, bias, path):
    """Upstream trained on mapped rows X (CSR, every cell column present)."""
    m = upstream_train(problem(y, X, bias), parameter(options + " -q"))
    save_model(str(path), m)
    return ol.parse_model(path)


def weighted_costs(y_int, C, options):
    """Each row's C after -wi, for a two-class problem."""
    costs = np.full(len(y_int), C)
    for label, weight in re.findall(r"-w(-?\d+) (\S+)", options):
        costs[y_int == int(label)] *= float(weight)
    return costs


def objective_and_gap(solver, w, t, X, costs, eps):
    """0.5 w.w + sum C_i loss_i, and the bound on its distance from the optimum
    that Newton's stopping rule ||grad|| <= eps*min(pos,neg)/l*||grad f(0)||
    implies (f is 1-strongly convex: f - f* <= ||grad||^2 / 2)."""
    z = t * (X @ w)
    loss = np.logaddexp(0.0, -z) if solver == 0 else np.maximum(0.0, 1.0 - z) ** 2
    scale = 0.5 if solver == 0 else 2.0
    g0 = np.linalg.norm(scale * (X.T @ (costs * t)))
    pos = int(np.count_nonzero(t > 0))
    g = eps * max(min(pos, len(t) - pos), 1) / len(t) * g0
    return 0.5 * w @ w + costs @ loss, g * g / 2


@pytest.mark.parametrize("options", [
    "-s 0 -c 1", "-s 2 -c 0.5 -B 1", "-s 0 -c 2 -w1 3 -B 1", "-k iforest -s 2 -c 1"])
def test_same_model_as_upstream_on_mapped_rows(options, data, binaries, tool, tmp_path):
    """train -k on heart is upstream's training on ikmap's rows: with
    f 1-strongly convex, ||w_ours - w_up|| <= sqrt(2 gap_ours) + sqrt(2 gap_up),
    and both objectives lie within their gap bounds of each other."""
    kernel = "" if "-k" in options else "-k anne "
    heart = data("heart", "heart.all")
    model = tmp_path / "m"
    train_ok(binaries, f"{kernel}-t 50 -g 16 {options}", heart, model)
    ours = parse_ik_model(model, tmp_path)
    mapped = map_rows(tool, tmp_path / "m.ik", heart, tmp_path / "mapped")
    y, X = ol.read_libsvm(mapped)
    bias = ol.option_value(options, "-B", -1)
    X = ol.with_columns(X, 50 * 16, -1)
    upstream_options = re.sub(r"-k \S+ ", "", options)
    up = upstream_model_on_mapped(y, X, upstream_options, bias, tmp_path / "up")
    assert ours["nr_feature"] == up["nr_feature"] == 800
    Xb = ol.with_columns(X, 800, bias)
    solver = ours["solver"]
    t = ol.binary_targets(y, ours, 0)
    costs = weighted_costs(y.astype(int), ol.option_value(options, "-c", 1), options)
    f_ours, gap_ours = objective_and_gap(solver, ours["w"][:, 0], t, Xb, costs, 0.01)
    f_up, gap_up = objective_and_gap(solver, up["w"][:, 0], t, Xb, costs, 0.01)
    assert abs(f_ours - f_up) <= gap_ours + gap_up + 1e-9 * f_up
    distance = np.linalg.norm(ours["w"][:, 0] - up["w"][:, 0])
    assert distance <= np.sqrt(2 * gap_ours) + np.sqrt(2 * gap_up) + 1e-9


def test_regression_matches_upstream_on_mapped_rows(data, binaries, tool, tmp_path):
    """-s 11 with -k: the same predictions as upstream's -s 11 on the mapped
    rows (both Newton to the tight -s 11 default tolerance), and a training
    fit far better than the linear one (the map is rich)."""
    heart = data("heart", "heart.all")
    train_ok(binaries, "-k anne -s 11", heart, tmp_path / "m")
    out, lines = predict_ok(binaries, heart, tmp_path / "m", tmp_path / "out")
    ours = np.array([float(v) for v in lines])
    mapped = map_rows(tool, tmp_path / "m.ik", heart, tmp_path / "mapped")
    y, X = ol.read_libsvm(mapped)
    X = ol.with_columns(X, 6400, -1)
    m = upstream_train(problem(y, X), parameter("-s 11 -q"))
    up = X @ np.array([m.get_decfun_coef(j + 1) for j in range(6400)])
    np.testing.assert_allclose(ours, up, rtol=1e-3, atol=1e-3)
    train_ok(binaries, "-s 11", heart, tmp_path / "lin")
    _, lin = predict_ok(binaries, heart, tmp_path / "lin", tmp_path / "lin.out")
    mse = lambda p: float(np.mean((p - y) ** 2))
    assert mse(ours) < 0.5 * mse(np.array([float(v) for v in lin]))


# -------------------------------------------- multi-class, one-class, -B

@pytest.mark.parametrize("kernel,least", [("anne", 0.87), ("iforest", 0.80)])
def test_dna_multiclass(kernel, least, data, binaries, tmp_path):
    """Three classes, one-vs-rest -s 1 on mapped rows; measured 89.6% (anne)
    and 85% (iforest) on dna.test."""
    model = tmp_path / "m"
    train_ok(binaries, f"-k {kernel} -s 1", data("dna", "dna.train"), model)
    stdout, lines = predict_ok(binaries, data("dna", "dna.test"), model, tmp_path / "out")
    assert accuracy(stdout) >= least
    assert set(lines) <= {"1", "2", "3"}


def test_multiclass_bias_model_matches_upstream_prediction(data, binaries, tool, upstream, tmp_path):
    """-B 1 with three classes: upstream appends its bias node at nr_feature+1
    = t*psi+1 to the mapped rows, exactly where train -k put it."""
    dna_train, dna_test = data("dna", "dna.train"), data("dna", "dna.test")
    model = tmp_path / "m"
    train_ok(binaries, "-k anne -t 40 -g 32 -s 0 -B 1", dna_train, model)
    _, lines = predict_ok(binaries, dna_test, model, tmp_path / "out", "-b 1")
    mapped = map_rows(tool, tmp_path / "m.ik", dna_test, tmp_path / "mapped")
    labels, probs = upstream.predict(mapped, model, "-b 1")
    assert lines[1:] == [" ".join(["%g" % a] + ["%g" % p for p in row]) for a, row in zip(labels, probs)]


def test_one_class(data, binaries, tmp_path):
    """-s 21 with -k: every prediction is +1 or -1 and, by the nu-property,
    about nu of the training rows fall outside (nu = 0.5)."""
    heart = data("heart", "heart.all")
    train_ok(binaries, "-k anne -s 21 -n 0.5", heart, tmp_path / "m")
    _, lines = predict_ok(binaries, heart, tmp_path / "m", tmp_path / "out", "-q")
    values = np.array([float(v) for v in lines])
    assert set(values) <= {1.0, -1.0}
    assert 0.4 <= np.mean(values < 0) <= 0.6


# --------------------------------------------------------------- -v and -C

def test_cross_validation_is_plain_cv_on_mapped_rows(data, binaries, tool, tmp_path):
    """train -k -v 5 equals plain train -v 5 on ikmap's rows of the same
    map (same folds, same rows), and writes no model and no .ik."""
    heart = data("heart", "heart.all")
    train_ok(binaries, "-k anne -g 32", heart, tmp_path / "m")
    mapped = map_rows(tool, tmp_path / "m.ik", heart, tmp_path / "mapped")
    work = tmp_path / "cv"
    work.mkdir()
    for solver in ("0", "1"):
        r = ol.run([binaries[0], "-k", "anne", "-g", "32", "-s", solver, "-v", "5", heart], cwd=work)
        plain = ol.run([binaries[0], "-s", solver, "-v", "5", mapped], cwd=work)
        assert r.returncode == 0 and plain.returncode == 0, r.stderr + plain.stderr
        ours = ol.CV_LINE.search(r.stdout).group(1)
        assert ours == ol.CV_LINE.search(plain.stdout).group(1)
    assert list(work.iterdir()) == []


PSI_LINE = re.compile(r"^psi = (\d+)  Best C = (\S+)  CV accuracy = (\S+)%$", re.M)
BEST_LINE = re.compile(r"^Best psi = (\d+)  Best C = (\S+)  CV accuracy = (\S+)%$", re.M)


def test_parameter_search_over_psi_and_C(data, binaries, tool, tmp_path):
    """-C -k -E 1 (the exhaustive search): one line per psi = 4..256 (heart
    has 270 rows), the best line is the best of them (first on ties), and
    each psi's line equals plain -C on ikmap's rows of that psi's map. No
    model, no .ik. (The default search: test_search.py.)"""
    heart = data("heart", "heart.all")
    r = ol.run([binaries[0], "-C", "-k", "anne", "-E", "1", "-s", "0", heart], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Doing parameter search with 5-fold cross validation.\n")
    lines = PSI_LINE.findall(r.stdout)
    assert [int(p) for p, _, _ in lines] == [4, 8, 16, 32, 64, 128, 256]
    best = max(lines, key=lambda line: float(line[2]))
    assert BEST_LINE.findall(r.stdout) == [best]
    assert r.stdout.rstrip("\n").split("\n")[-1].startswith("Best psi = ")
    assert list(tmp_path.iterdir()) == []
    for psi, C, rate in lines[2:4]:
        tool_run = ol.run([tool, "-k", "anne", "-g", psi, heart, tmp_path / "p.ik"])
        assert tool_run.returncode == 0, tool_run.stderr
        mapped = map_rows(tool, tmp_path / "p.ik", heart, tmp_path / "mapped")
        plain = ol.run([binaries[0], "-C", "-s", "0", mapped], cwd=tmp_path)
        assert f"Best C = {C}  CV accuracy = {rate}%" in plain.stdout


def test_parameter_search_fixed_psi_regression(data, binaries, tmp_path):
    """-C -k -g 16 -s 11: only psi 16 is tried, in the MSE form."""
    heart = data("heart", "heart.all")
    r = ol.run([binaries[0], "-C", "-k", "anne", "-g", "16", "-s", "11", "-p", "0.05", "-q", heart],
        cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    psi_lines = re.findall(r"^psi = 16  Best C = (\S+) Best p = (\S+)  CV MSE = (\S+)  \(270 rows, \d+\.\d s\)$",
        r.stdout, re.M)
    best = re.findall(r"^Best psi = 16  Best C = (\S+) Best p = (\S+)  CV MSE = (\S+)$", r.stdout, re.M)
    assert len(psi_lines) == 1 and best == psi_lines
    assert float(best[0][1]) in (0.0, 0.05)


# -------------------------------------------------- determinism, threads

@pytest.mark.parametrize("kernel", ["anne", "iforest"])
def test_threads_do_not_change_model_or_partitioning(kernel, data, binaries, tmp_path):
    dna = data("dna", "dna.train")
    for m in ("1", "2", "4"):
        train_ok(binaries, f"-k {kernel} -t 30 -g 128 -s 2 -m {m}", dna, tmp_path / f"m{m}")
    for m in ("2", "4"):
        assert (tmp_path / f"m{m}.ik").read_bytes() == (tmp_path / "m1.ik").read_bytes()
        body1, _ = split_trailer(tmp_path / "m1")
        body, trailer = split_trailer(tmp_path / f"m{m}")
        assert body == body1
        assert trailer.group(2) == f"m{m}.ik"


def test_predict_threads_give_the_same_output(data, binaries, tmp_path):
    dna_train, dna_test = data("dna", "dna.train"), data("dna", "dna.test")
    train_ok(binaries, "-k anne -s 1", dna_train, tmp_path / "m")
    outputs = [predict_ok(binaries, dna_test, tmp_path / "m", tmp_path / f"o{m}", f"-m {m}")[1]
        for m in ("1", "2")]
    assert outputs[0] == outputs[1]


def test_seed_changes_the_partitioning(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    train_ok(binaries, "-k anne -r 1", heart, tmp_path / "a")
    train_ok(binaries, "-k anne -r 2", heart, tmp_path / "b")
    assert split_trailer(tmp_path / "a")[1].group(1) != split_trailer(tmp_path / "b")[1].group(1)
    assert (tmp_path / "a.ik").read_bytes() != (tmp_path / "b.ik").read_bytes()


def test_tool_builds_the_partitioning_train_uses(data, binaries, tool, tmp_path):
    heart = data("heart", "heart.all")
    train_ok(binaries, "-k iforest -t 20 -g 8 -r 7", heart, tmp_path / "m")
    r = ol.run([tool, "-k", "iforest", "-t", "20", "-g", "8", "-r", "7", heart, tmp_path / "p.ik"])
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert (tmp_path / "p.ik").read_bytes() == (tmp_path / "m.ik").read_bytes()


# ------------------------------------------------ broken or missing .ik

@pytest.fixture
def heart_ik(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    model = tmp_path / "m"
    train_ok(binaries, "-k anne -t 20 -g 16", heart, model)
    return heart, model, tmp_path / "m.ik"


def refused(binaries, heart, model, tmp_path, *texts):
    out = tmp_path / "out"
    r = ol.run([binaries[1], heart, model, out])
    assert r.returncode == 1
    assert r.stdout == ""
    for text in texts:
        assert text in r.stderr, r.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out")) == []


def test_predict_refuses_missing_partitioning(heart_ik, binaries, tmp_path):
    heart, model, ik = heart_ik
    ik.unlink()
    refused(binaries, heart, model, tmp_path, "ERROR:", str(ik))


def test_predict_refuses_truncated_partitioning(heart_ik, binaries, tmp_path):
    heart, model, ik = heart_ik
    ik.write_bytes(ik.read_bytes()[:-100])
    refused(binaries, heart, model, tmp_path, "ERROR:", "truncated")


def test_predict_refuses_bit_flipped_partitioning(heart_ik, binaries, tmp_path):
    heart, model, ik = heart_ik
    raw = bytearray(ik.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    ik.write_bytes(bytes(raw))
    refused(binaries, heart, model, tmp_path, "ERROR:", "checksum")


def test_predict_refuses_partitioning_of_another_training(heart_ik, data, binaries, tmp_path):
    heart, model, ik = heart_ik
    train_ok(binaries, "-k anne -t 20 -g 16 -r 99", heart, tmp_path / "other")
    shutil.copy(tmp_path / "other.ik", ik)
    refused(binaries, heart, model, tmp_path, "ERROR:", "not the one model")


def test_predict_refuses_partitioning_of_another_shape(heart_ik, binaries, tmp_path):
    """A trailer naming a valid partitioning whose t*psi is not nr_feature
    (checksum right, shape wrong)."""
    heart, model, ik = heart_ik
    train_ok(binaries, "-k anne -t 10 -g 16", heart, tmp_path / "small")
    _, small = split_trailer(tmp_path / "small")
    body, _ = split_trailer(model)
    model.write_text(body + f"ik_partitioning {small.group(1)} small.ik\n")
    refused(binaries, heart, model, tmp_path, "ERROR:", "nr_feature 320", "t*psi = 10*16")


def test_predict_refuses_malformed_trailer(heart_ik, binaries, tmp_path):
    heart, model, _ = heart_ik
    body, trailer = split_trailer(model)
    model.write_text(body + f"ik_partitioning {trailer.group(1)[:-1]} m.ik\n")
    refused(binaries, heart, model, tmp_path, "ERROR:", "malformed")


def test_predict_stops_at_a_bad_line_after_the_first_batch(heart_ik, binaries, tmp_path):
    """Rows are mapped 4096 at a time; a bad line in the second batch still
    fails the whole run, with upstream's message and no output file."""
    heart, model, _ = heart_ik
    rows = heart.read_text().splitlines() * 20
    rows[4999] = "+1 3:1 2:1"
    test = tmp_path / "t"
    test.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    r = ol.run([binaries[1], test, model, out])
    assert r.returncode == 1
    assert r.stderr.startswith("Wrong input format at line 5000")
    assert not out.exists()


def test_model_and_partitioning_move_together(heart_ik, binaries, tmp_path):
    """The trailer names the .ik relative to the model's folder."""
    heart, model, ik = heart_ik
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.move(model, moved / "m")
    shutil.move(ik, moved / "m.ik")
    out, lines = predict_ok(binaries, heart, moved / "m", tmp_path / "out")
    assert len(lines) == 270 and out.startswith("Accuracy = ")


# ------------------------------------------------------------ default psi

@pytest.mark.parametrize("options,nr_feature", [
    ("-k anne", 100 * 64), ("-k iforest", 100 * 32), ("-k iforest -g 16", 100 * 16),
    ("-g 8 -k anne", 100 * 8)])
def test_default_psi_depends_on_the_kernel(data, binaries, tmp_path, options, nr_feature):
    """psi defaults to 64 for aNNE and 32 for iForest (bench/results/ik-defaults.md); -g wins
    in any order; the model has t*psi features."""
    heart = data("heart", "heart.all")
    train_ok(binaries, options, heart, tmp_path / "m")
    assert "nr_feature %d\n" % nr_feature in (tmp_path / "m").read_text()


# -------------------------------------------------------- files left behind

def test_plain_training_removes_stale_partitioning(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    train_ok(binaries, "-k anne", heart, tmp_path / "m")
    assert (tmp_path / "m.ik").exists()
    train_ok(binaries, "", heart, tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]
    assert "ik_partitioning" not in (tmp_path / "m").read_text()


def test_plain_training_keeps_a_foreign_dot_ik(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    (tmp_path / "m.ik").write_text("not a partitioning\n")
    train_ok(binaries, "", heart, tmp_path / "m")
    assert (tmp_path / "m.ik").read_text() == "not a partitioning\n"


def test_failed_training_leaves_nothing(data, binaries, tmp_path):
    """psi above the row count, and a model folder that does not exist."""
    heart = data("heart", "heart.all")
    r = ol.run([binaries[0], "-k", "anne", "-g", "271", heart, "m"], cwd=tmp_path)
    assert r.returncode == 1
    assert "ERROR: psi (-g 271) exceeds the number of training rows (270)" in r.stderr
    r = ol.run([binaries[0], "-k", "anne", heart, tmp_path / "no" / "m"], cwd=tmp_path)
    assert r.returncode == 1 and "ERROR:" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_options_without_k_are_ignored(data, binaries, tmp_path):
    """-t -g -r -S -d auto/cpu mean nothing without -k (as upstream ignores
    -p for a classifier): the model is byte for byte the plain one."""
    heart = data("heart", "heart.all")
    train_ok(binaries, "", heart, tmp_path / "plain")
    train_ok(binaries, "-t 7 -g 9 -r 5 -S 0 -d cpu -k none", heart, tmp_path / "same")
    assert (tmp_path / "same").read_bytes() == (tmp_path / "plain").read_bytes()


# ------------------------------------------------------------- the kernel

def test_kernel_values(data, tool, tmp_path):
    """ikmap -K: K(x, x) = 1, symmetric, and K(x, y) is the fraction of
    partitionings in which the mapped rows share a cell (their dot product
    in the mapped space, where every value is 1/sqrt(t))."""
    heart = data("heart", "heart.all")
    rows = heart.read_text().splitlines()
    x = tmp_path / "x"
    x.write_text("\n".join(rows[:40]) + "\n")
    y = tmp_path / "y"
    y.write_text("\n".join(rows[100:130]) + "\n")
    r = ol.run([tool, "-k", "anne", "-t", "25", "-g", "16", heart, tmp_path / "p.ik"])
    assert r.returncode == 0, r.stderr
    r = ol.run([tool, "-K", tmp_path / "p.ik", x])
    assert r.returncode == 0, r.stderr
    K = np.array([[float(v) for v in line.split()] for line in r.stdout.splitlines()])
    assert K.shape == (40, 40)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    r = ol.run([tool, "-K", tmp_path / "p.ik", x, y])
    Kxy = np.array([[float(v) for v in line.split()] for line in r.stdout.splitlines()])
    _, Mx = ol.read_libsvm(map_rows(tool, tmp_path / "p.ik", x, tmp_path / "mx"))
    _, My = ol.read_libsvm(map_rows(tool, tmp_path / "p.ik", y, tmp_path / "my"))
    dots = (ol.with_columns(Mx, 400, -1) @ ol.with_columns(My, 400, -1).T).toarray()
    np.testing.assert_allclose(Kxy, dots, rtol=1e-12)
    np.testing.assert_allclose(Kxy * 25, np.round(Kxy * 25), atol=1e-9)
    assert Kxy.min() >= 0 and Kxy.max() <= 1


def test_mapped_rows_format(data, tool, tmp_path):
    """label, then t features k*psi + cell + 1 ascending, one per
    partitioning, each 1/sqrt(t) printed with %.17g."""
    heart = data("heart", "heart.all")
    r = ol.run([tool, "-k", "iforest", "-t", "9", "-g", "8", heart, tmp_path / "p.ik"])
    assert r.returncode == 0, r.stderr
    lines = map_rows(tool, tmp_path / "p.ik", heart, tmp_path / "m").read_text().splitlines()
    labels = [line.split()[0] for line in heart.read_text().splitlines()]
    assert len(lines) == 270
    for line, label in zip(lines, labels):
        tokens = line.split(" ")
        assert float(tokens[0]) == float(label)
        index = [int(tok.split(":")[0]) for tok in tokens[1:]]
        assert [(i - 1) // 8 for i in index] == list(range(9))
        assert all(tok.split(":")[1] == "0.33333333333333331" for tok in tokens[1:])


# ------------------------------------------------------ usage and errors

@pytest.mark.parametrize("args,message", [
    (["-k", "bogus"], "ERROR: -k needs 0 (none), 1 (anne), 2 (iforest), 3 (minmax) or 4 (acos)"),
    (["-k", "anne", "-t", "0"], "ERROR: -t needs a number of partitionings >= 1"),
    (["-k", "anne", "-g", "-4"], "ERROR: -g needs"),
    (["-k", "anne", "-g", "8x"], "ERROR: -g needs"),
    (["-k", "anne", "-r", "-1"], "ERROR: -r needs a seed"),
    (["-k", "anne", "-S", "5"], "ERROR: -S needs 0"),
    (["-k", "anne", "-d", "tpu"], "ERROR: -d needs auto, cpu or gpu"),
    (["-k", "anne", "-m", "0"], "ERROR: -m needs a number of threads >= 1"),
])
def test_train_bad_ik_option(args, message, data, binaries, tmp_path):
    r = ol.run([binaries[0], *args, data("heart", "heart.all")], cwd=tmp_path)
    assert r.returncode == 1
    assert message in r.stderr
    assert r.stdout.startswith(TRAIN_USAGE)
    assert list(tmp_path.iterdir()) == []


GPU_ERRORS = ("ERROR: -d gpu: no CUDA device found\n",
    "ERROR: -d gpu: this build has no GPU support\n")


@pytest.fixture(scope="module")
def gpu_refusal(tool, tmp_path_factory):
    """The -d gpu error of this build on this machine, or None when a GPU works."""
    r = ol.run([tool, "-d", "gpu", "missing.ik"], cwd=tmp_path_factory.mktemp("gpu"))
    return r.stderr if r.stderr in GPU_ERRORS else None


def test_gpu_without_a_device_is_a_clear_error(gpu_refusal, data, binaries, tool, tmp_path):
    if gpu_refusal is None:
        pytest.skip("a CUDA device is usable here: -d gpu is not an error")
    heart = data("heart", "heart.all")
    for cmd in ([binaries[0], "-k", "anne", "-d", "gpu", heart],
            [binaries[1], "-d", "gpu", heart, "model", "out"],
            [tool, "-d", "gpu", "p.ik"],
            [tool, "-d", "gpu", "-k", "anne", heart, "p.ik"]):
        r = ol.run(cmd, cwd=tmp_path)
        assert r.returncode == 1
        assert r.stderr == gpu_refusal
        assert r.stdout == ""
    assert list(tmp_path.iterdir()) == []


def model_on(device, kernel, data, binaries, tmp_path):
    """(model, .ik, predict output) bytes of train -k kernel -d device on dna; the model
    is called m in its own folder, so its trailer line is the same for every device."""
    folder = tmp_path / device
    folder.mkdir()
    train_ok(binaries, f"-k {kernel} -g 32 -t 40 -d {device}", data("dna", "dna.train"), "m",
        cwd=folder)
    predict_ok(binaries, data("dna", "dna.test"), folder / "m", folder / "out", f"-d {device}")
    return [(folder / name).read_bytes() for name in ("m", "m.ik", "out")]


@pytest.mark.parametrize("kernel", ["anne", "iforest"])
def test_auto_gives_the_cpu_model_and_partitioning(kernel, data, binaries, tmp_path):
    assert model_on("auto", kernel, data, binaries, tmp_path) \
        == model_on("cpu", kernel, data, binaries, tmp_path)


@pytest.mark.parametrize("kernel", ["anne", "iforest"])
def test_gpu_gives_the_cpu_model_and_partitioning(kernel, gpu_refusal, data, binaries, tmp_path):
    if gpu_refusal is not None:
        pytest.skip("no usable CUDA device: " + gpu_refusal.strip())
    assert model_on("gpu", kernel, data, binaries, tmp_path) \
        == model_on("cpu", kernel, data, binaries, tmp_path)


def test_usage_lists_the_ik_options(binaries, tool):
    usage = ol.run([binaries[0]]).stdout
    additions = usage.split("LIBLINEAR-IK additions:\n", 1)[1]
    for flag in ("-k", "-t", "-g", "-r", "-S", "-d", "-m"):
        assert re.search(rf"^{flag} ", additions, re.M), flag
    r = ol.run([binaries[1]])
    assert r.returncode == 1 and "-m threads" in r.stdout and "-d device" in r.stdout
    r = ol.run([tool])
    assert r.returncode == 1 and r.stdout.startswith("Usage: ikmap")


@pytest.mark.parametrize("args,message", [
    (["-k", "none", "d", "p"], "needs -k anne, iforest, minmax or acos"),
    (["-K", "-k", "anne", "p", "x"], "-K reads a partitioning file"),
    (["-t", "5", "d", "p"], "needs -k anne, iforest, minmax or acos"),
    (["-Z", "1", "p"], "unknown option: -Z"),
])
def test_tool_bad_usage(args, message, tool, tmp_path):
    r = ol.run([tool, *args], cwd=tmp_path)
    assert r.returncode == 1
    assert message in r.stderr
    assert r.stdout.startswith("Usage: ikmap")


def test_tool_errors(data, tool, tmp_path):
    heart = data("heart", "heart.all")
    r = ol.run([tool, "-k", "anne", "-g", "300", heart, "p.ik"], cwd=tmp_path)
    assert r.returncode == 1 and "exceeds the number of training rows (270)" in r.stderr
    r = ol.run([tool, "no_such.ik"], cwd=tmp_path)
    assert r.returncode == 1 and "no_such.ik" in r.stderr
    (tmp_path / "bad.txt").write_text("+1 1:1\n-1 2:x\n")
    r = ol.run([tool, "-k", "anne", "-g", "1", tmp_path / "bad.txt", "p.ik"], cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("Wrong input format at line 2")
    assert list(tmp_path.iterdir()) == [tmp_path / "bad.txt"]
