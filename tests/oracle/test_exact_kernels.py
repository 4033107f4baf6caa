"""train -k minmax|acos, predict on their models and tools/ikmap (issue 27), end to end.

The independent expectations: the option rules of the issue (2^b a power of
two from 16 to 65536, no -g with acos, -S 0..4; issue 28 opened every -S to
every type: test_transforms.py), the first negative value of a file found here by reading
its text, the kernels' definitions (acos: 1 - angle/pi; minmax on 0/1 rows:
the Jaccard similarity) against the share of colliding samples, the
accuracies of plain linear training on the same held-out test set (dna),
and the .ik header's fields read from the file's bytes.

Tests marked `needs_maps` build real minmax/acos maps: they run once the
ikmap library has the samplers (branches `minmax` and `kernels`); before
that, ikmap_build answers "unknown partitioning method" and they are
skipped with that reason. Everything else (parsing, refusals) runs now.
"""
import math
import re
import struct
import subprocess

import numpy as np
import pytest

import oracle_lib as ol

IKMAP_TOOL = ol.IKMAP_TOOL


def first_negative(path):
    """(line, feature) of the first negative value of a LIBSVM file, read as text."""
    with open(path) as f:
        for number, line in enumerate(f, start=1):
            for token in line.split()[1:]:
                index, value = token.split(":")
                if float(value) < 0:
                    return number, int(index)
    return None


def maps_available(tmp_path_factory):
    """False only while ikmap itself lacks the new types (before the merge)."""
    folder = tmp_path_factory.mktemp("probe")
    data = folder / "tiny"
    data.write_text("1 1:1 2:0.5\n-1 1:0.25 3:2\n1 2:1\n-1 3:1\n")
    r = ol.run([ol.TRAIN, "-q", "-k", "minmax", "-t", "4", "-g", "16", data, folder / "m"])
    return "unknown partitioning method" not in r.stderr


@pytest.fixture(scope="module")
def needs_maps(tmp_path_factory):
    if not maps_available(tmp_path_factory):
        pytest.skip("this build's ikmap has no minmax/acos maps yet (unknown partitioning method)")


def write_rows(path, y, X):
    """A LIBSVM file of y and the dense rows X (zeros left out)."""
    with open(path, "w") as f:
        for label, row in zip(y, X):
            cells = " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row) if v != 0)
            f.write(f"{label:g} {cells}".rstrip() + "\n")


# ------------------------------------------------------------ option refusals

@pytest.mark.parametrize("options,message", [
    ("-k minmax -g 100", "-k minmax needs 2^b cells, a power of two from 16 to 65536"),
    ("-k minmax -g 8", "-k minmax needs 2^b cells, a power of two from 16 to 65536"),
    ("-k minmax -g 131072", "-k minmax needs 2^b cells, a power of two from 16 to 65536"),
    ("-k 3 -g 48", "-k minmax needs 2^b cells, a power of two from 16 to 65536"),
    ("-k acos -g 2", "-g cannot be used with -k acos"),
    ("-k 4 -g 16", "-g cannot be used with -k acos"),
    ("-k minmax -t 65537", "takes at most 65536 samples"),
    ("-k acos -t 100000", "takes at most 65536 samples"),
])
@pytest.mark.parametrize("mode", ["train", "cv", "search"])
def test_bad_combinations_are_refused_before_any_work(binaries, data, tmp_path, options, message, mode):
    """Exit 1 with the reason on stderr, and no model file (the data is never read)."""
    extra = {"train": [], "cv": ["-v", "3"], "search": ["-C", "-s", "2", "-W", "1"]}[mode]
    model = tmp_path / "m.model"
    r = ol.run([binaries[0], *options.split(), *extra, data("dna", "dna.train"), model])
    assert r.returncode == 1
    assert message in r.stderr
    assert r.stderr.startswith("ERROR: ")
    assert not model.exists() and not (tmp_path / "m.model.ik").exists()


@pytest.mark.parametrize("value", ["5", "-1", "x", "2.0"])
def test_scale_takes_0_to_4(binaries, data, tmp_path, value):
    r = ol.run([binaries[0], "-k", "minmax", "-S", value, data("dna", "dna.train"), tmp_path / "m"])
    assert r.returncode == 1
    assert "-S needs 0 (none), 1 (divide by max |x|), 2 (min-max), 3" in r.stderr


@pytest.mark.parametrize("value", ["3", "minmax", "4", "acos"])
def test_kernel_names_and_numbers_are_accepted(binaries, value, tmp_path):
    """-k 3|minmax and 4|acos parse (a bad -t after them shows that parsing went on)."""
    r = ol.run([binaries[0], "-k", value, "-t", "0", tmp_path / "absent"])
    assert r.returncode == 1
    assert "-t needs" in r.stderr
    assert "-k needs" not in r.stderr


def test_unknown_kernel_names_the_new_ones(binaries, tmp_path):
    r = ol.run([binaries[0], "-k", "5", tmp_path / "absent"])
    assert r.returncode == 1
    assert "-k needs 0 (none), 1 (anne), 2 (iforest), 3 (minmax) or 4 (acos)" in r.stderr


def test_plain_training_ignores_the_new_rules(binaries, data, tmp_path):
    """Without -k the kernel options are ignored, as before (even ones minmax would refuse)."""
    model = tmp_path / "m.model"
    r = ol.run([binaries[0], "-q", "-g", "100", "-S", "2", data("heart", "heart.all"), model])
    assert r.returncode == 0, r.stderr
    assert model.exists() and not (tmp_path / "m.model.ik").exists()


# ------------------------------------------------------------ negative values

@pytest.mark.parametrize("extra", [[], ["-v", "5"], ["-C"], ["-s", "30"], ["-g", "64", "-t", "7"]])
def test_minmax_refuses_a_negative_value_naming_line_and_feature(binaries, data, tmp_path, extra):
    heart = data("heart", "heart.all")
    line, feature = first_negative(heart)
    model = tmp_path / "m.model"
    r = ol.run([binaries[0], "-k", "minmax", *extra, heart, model])
    assert r.returncode == 1
    assert f"line {line}: feature {feature} is negative" in r.stderr, r.stderr
    assert "-S 2" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_line_is_the_files_line_past_the_first_rows(binaries, tmp_path):
    path = tmp_path / "late"
    rows = [f"{1 if i % 2 else -1} 1:{i + 1} 4:0.5" for i in range(5000)]
    rows[4321] = "1 1:2 3:7 9:-0.001"
    path.write_text("\n".join(rows) + "\n")
    r = ol.run([binaries[0], "-k", "minmax", path, tmp_path / "m"])
    assert r.returncode == 1
    assert "line 4322: feature 9 is negative" in r.stderr
    assert not (tmp_path / "m").exists()


def test_ikmap_tool_refuses_negative_build_rows(data, tmp_path):
    heart = data("heart", "heart.all")
    line, feature = first_negative(heart)
    out = tmp_path / "map.ik"
    r = ol.run([IKMAP_TOOL, "-k", "minmax", heart, out])
    assert r.returncode == 1
    assert f"line {line}: feature {feature} is negative" in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("options,message", [
    ("-k minmax -g 12", "power of two"), ("-k acos -g 2", "-g cannot be used with -k acos"),
    ("-k anne -S 5", "-S needs 0"),
])
def test_ikmap_tool_refuses_bad_combinations(data, tmp_path, options, message):
    out = tmp_path / "map.ik"
    r = ol.run([IKMAP_TOOL, *options.split(), data("dna", "dna.train"), out])
    assert r.returncode == 1
    assert message in r.stderr
    assert not out.exists()


def test_ikmap_tool_usage_names_the_new_types():
    r = ol.run([IKMAP_TOOL])
    assert r.returncode == 1
    assert "3 or minmax" in r.stdout and "4 or acos" in r.stdout and "-S 0|1|2" in r.stdout


# ------------------------------------------------------------ with real maps

def accuracy_of(stdout):
    return float(re.search(r"Accuracy = ([0-9.]+)%", stdout).group(1))


@pytest.fixture(scope="module")
def plain_dna_accuracy(binaries, data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("plain")
    r = ol.run([binaries[0], "-q", data("dna", "dna.train"), folder / "m"])
    assert r.returncode == 0, r.stderr
    p = ol.run([binaries[1], data("dna", "dna.test"), folder / "m", folder / "out"])
    assert p.returncode == 0, p.stderr
    return accuracy_of(p.stdout)


def ik_header(path):
    """(version, method, t, psi, d, scaled) from a .ik file's first bytes (ikmap_file.c)."""
    raw = path.read_bytes()
    assert raw[:8] == b"IKMAP\r\n\x1a"
    return struct.unpack("<6I", raw[8:32])


@pytest.mark.parametrize("kernel,options,method,psi,floor", [
    ("minmax", "-t 300", 2, 256, 85.0),
    ("minmax", "-t 200 -g 64", 2, 64, 85.0),
    ("acos", "-t 400", 3, 2, 80.0),
    ("3", "-t 200 -S 2", 2, 256, 85.0),
])
def test_round_trip_on_dna(needs_maps, binaries, data, tmp_path, plain_dna_accuracy, kernel, options,
                           method, psi, floor):
    """The pair trains, predicts plausibly (dna: plain linear about 95%), and is a .ik version 2."""
    model = tmp_path / "m.model"
    r = ol.run([binaries[0], "-q", "-k", kernel, *options.split(), data("dna", "dna.train"), model])
    assert r.returncode == 0, r.stderr
    t = int(options.split()[1])
    version, stored_method, stored_t, stored_psi, d, scaled = ik_header(tmp_path / "m.model.ik")
    assert (version, stored_method, stored_t, stored_psi) == (2, method, t, psi)
    assert scaled == (2 if "-S 2" in options else 0)
    nr_feature = re.search(r"^nr_feature (\d+)$", model.read_text(), re.M).group(1)
    assert int(nr_feature) == t * psi
    p = ol.run([binaries[1], data("dna", "dna.test"), model, tmp_path / "out"])
    assert p.returncode == 0, p.stderr
    accuracy = accuracy_of(p.stdout)
    assert accuracy >= floor
    assert accuracy >= plain_dna_accuracy - 10


def test_predict_refuses_negative_test_values_under_minmax(needs_maps, binaries, data, tmp_path):
    model = tmp_path / "m.model"
    r = ol.run([binaries[0], "-q", "-k", "minmax", "-t", "50", data("dna", "dna.train"), model])
    assert r.returncode == 0, r.stderr
    test = tmp_path / "test"
    original = data("dna", "dna.test").read_text().splitlines()
    out = tmp_path / "out"
    # four copies: more rows than one batch of predict (4096), so lines are counted across batches
    for row in (2128 % len(original), 3 * len(original) + 5):
        lines = original * 4
        tokens = lines[row].split()
        index = tokens[1].split(":")[0]
        lines[row] = " ".join([tokens[0], f"{index}:-1"] + tokens[2:])
        test.write_text("\n".join(lines) + "\n")
        p = ol.run([binaries[1], test, model, out])
        assert p.returncode == 1
        assert f"{test} line {row + 1}: feature {index} is negative" in p.stderr, p.stderr
        assert not out.exists()


def training_range(X):
    """Per-feature min and max over the rows, implicit zeros counted (the -S 2 rule)."""
    dense = X.toarray()
    return dense.min(axis=0), dense.max(axis=0)


def test_scale_2_takes_negatives_and_clips_test_values(needs_maps, binaries, data, tmp_path):
    """heart has negative values: -S 2 trains on them; a test value outside the training range
    predicts exactly as the same value clipped to that range (min-max, then clipped to [0, 1])."""
    heart = data("heart", "heart.all")
    model = tmp_path / "m.model"
    for kernel in ("minmax", "acos"):
        r = ol.run([binaries[0], "-q", "-k", kernel, "-S", "2", "-t", "200", heart, model])
        assert r.returncode == 0, r.stderr
        assert ik_header(tmp_path / "m.model.ik")[5] == 2
        y, X = ol.read_libsvm(heart)
        low, high = training_range(X)
        wide = X.toarray() * 3 - 0.5
        write_rows(tmp_path / "wide", y, wide)
        write_rows(tmp_path / "clipped", y, np.clip(wide, low, high))
        outs = []
        for name in ("wide", "clipped"):
            p = ol.run([binaries[1], "-b", "0", tmp_path / name, model, tmp_path / (name + ".out")])
            assert p.returncode == 0, p.stderr
            outs.append((tmp_path / (name + ".out")).read_text())
        assert outs[0] == outs[1]
        # and the training rows themselves predict plausibly (heart: plain linear about 84%)
        p = ol.run([binaries[1], heart, model, tmp_path / "self.out"])
        assert accuracy_of(p.stdout) >= 75


def kernel_values(tool, ik, x_path, y_path=None):
    r = ol.run([tool, "-K", ik, x_path] + ([y_path] if y_path else []))
    assert r.returncode == 0, r.stderr
    return np.array([[float(v) for v in line.split()] for line in r.stdout.splitlines()])


def test_acos_kernel_values_estimate_one_minus_angle_over_pi(needs_maps, data, tmp_path):
    """Sign random projections: each collides with probability 1 - angle/pi, so the share of
    k colliding samples lies within 4/sqrt(k) of it (a 4-sigma bound, sigma <= 1/(2 sqrt(k)))."""
    heart = data("heart", "heart.all")
    k = 2000
    ik = tmp_path / "acos.ik"
    r = ol.run([IKMAP_TOOL, "-k", "acos", "-t", str(k), "-r", "5", heart, ik])
    assert r.returncode == 0, r.stderr
    y, X = ol.read_libsvm(heart)
    rows = X[:12].toarray()
    write_rows(tmp_path / "x", y[:12], rows)
    K = kernel_values(IKMAP_TOOL, ik, tmp_path / "x")
    norms = np.linalg.norm(rows, axis=1)
    cosine = np.clip(rows @ rows.T / np.outer(norms, norms), -1, 1)
    expected = 1 - np.arccos(cosine) / math.pi
    assert np.all(np.abs(K - expected) <= 4 / math.sqrt(k))
    np.testing.assert_array_equal(np.diag(K), 1)


def test_minmax_kernel_values_estimate_the_jaccard_similarity(needs_maps, data, tmp_path):
    """dna's rows are 0/1, where the min-max kernel is the Jaccard similarity. The full CWS
    samples collide with exactly that probability (within 4/sqrt(k)); keeping the index only
    (0-bit) and folding it into 2^b cells adds chance collisions of about 2^-b and the 0-bit
    approximation's own error, given 0.05 here (no bound is claimed for it)."""
    dna = data("dna", "dna.train")
    k = 2048
    ik = tmp_path / "minmax.ik"
    r = ol.run([IKMAP_TOOL, "-k", "minmax", "-t", str(k), "-g", "4096", dna, ik])
    assert r.returncode == 0, r.stderr
    y, X = ol.read_libsvm(dna)
    rows = X[:10].toarray()
    write_rows(tmp_path / "x", y[:10], rows)
    K = kernel_values(IKMAP_TOOL, ik, tmp_path / "x")
    mins = np.minimum(rows[:, None, :], rows[None, :, :]).sum(axis=2)
    maxs = np.maximum(rows[:, None, :], rows[None, :, :]).sum(axis=2)
    expected = mins / maxs
    assert np.all(np.abs(K - expected) <= 4 / math.sqrt(k) + 0.05)
    np.testing.assert_array_equal(np.diag(K), 1)


def test_ikmap_map_mode_gives_k_cells_per_row_in_k_times_cells_columns(needs_maps, data, tmp_path):
    dna = data("dna", "dna.train")
    for kernel, options, cells in (("minmax", ["-g", "32"], 32), ("acos", [], 2)):
        ik = tmp_path / f"{kernel}.ik"
        r = ol.run([IKMAP_TOOL, "-k", kernel, "-t", "25", *options, dna, ik])
        assert r.returncode == 0, r.stderr
        with open(dna) as src:
            mapped = subprocess.run([str(IKMAP_TOOL), str(ik)], stdin=src, capture_output=True,
                                       text=True, timeout=300)
        assert mapped.returncode == 0, mapped.stderr
        for line in mapped.stdout.splitlines()[:200]:
            features = [token.split(":") for token in line.split()[1:]]
            assert len(features) == 25
            for sample, (index, value) in enumerate(features):
                assert sample * cells < int(index) <= (sample + 1) * cells
                assert float(value) == pytest.approx(1 / math.sqrt(25), rel=1e-15)


def test_search_minmax_tries_its_grid_whatever_the_rows(needs_maps, binaries, data, tmp_path):
    """heart has 270 rows: the IK psi ladder would stop at 256, minmax's goes to 4096."""
    r = ol.run([binaries[0], "-C", "-k", "minmax", "-S", "2", "-t", "30", "-s", "2",
                data("heart", "heart.all"), tmp_path / "m"], timeout=600)
    assert r.returncode == 0, r.stderr
    tried = [int(v) for v in re.findall(r"^psi = (\d+)  Best C = ", r.stdout, re.M)]
    assert sorted(set(tried)) == [16, 64, 256, 1024, 4096]
    best = int(re.search(r"^Best psi = (\d+)  Best C = \S+  CV accuracy = ", r.stdout, re.M).group(1))
    assert best in tried
    assert re.search(r"^best model: train .*-g %d -c " % best, r.stdout, re.M)


def test_search_acos_searches_C_only(needs_maps, binaries, data, tmp_path):
    r = ol.run([binaries[0], "-C", "-k", "acos", "-t", "50", "-s", "2", "-W", "1",
                data("heart", "heart.all"), tmp_path / "m"], timeout=600)
    assert r.returncode == 0, r.stderr
    assert re.findall(r"^psi = (\d+)  Best C = ", r.stdout, re.M) == ["2"]
    command = re.search(r"^best model: (.*)$", r.stdout, re.M).group(1)
    assert " -g " not in command and "-k acos" in command
    assert (tmp_path / "m.ik").exists()


def test_search_with_g_fixes_2_to_the_b(needs_maps, binaries, data, tmp_path):
    r = ol.run([binaries[0], "-C", "-k", "minmax", "-g", "32", "-S", "2", "-t", "30", "-s", "2",
                data("heart", "heart.all"), tmp_path / "m"], timeout=600)
    assert r.returncode == 0, r.stderr
    assert re.findall(r"^psi = (\d+)  Best C = ", r.stdout, re.M) == ["32"]


def test_exhaustive_search_uses_the_minmax_grid(needs_maps, binaries, data, tmp_path):
    r = ol.run([binaries[0], "-C", "-E", "1", "-k", "minmax", "-S", "2", "-t", "20", "-s", "2",
                data("heart", "heart.all"), tmp_path / "m"], timeout=600)
    assert r.returncode == 0, r.stderr
    tried = [int(v) for v in re.findall(r"^psi = (\d+)  Best C = ", r.stdout, re.M)]
    assert tried == [16, 64, 256, 1024, 4096]


def test_online_protocol_and_continued_training_name_the_line(needs_maps, binaries, data, tmp_path):
    """-O reads blocks (the line counts the rows of every earlier block) and -i reads new data:
    a negative value under a -k minmax map is refused naming its line, no model written."""
    heart = data("heart", "heart.all").read_text().splitlines()
    clean = [" ".join([line.split()[0]] + [t.replace(":-", ":") for t in line.split()[1:]])
             for line in heart]
    mixed = tmp_path / "mixed"
    mixed.write_text("\n".join(clean[:150] + heart[150:]) + "\n")
    line, feature = first_negative(mixed)
    assert line > 150
    r = ol.run([binaries[0], "-O", "1", "-b", "50", "-I", "100", "-k", "minmax", "-t", "20", "-g", "16",
                mixed, tmp_path / "o.model"])
    assert r.returncode == 1
    assert f"line {line}: feature {feature} is negative" in r.stderr
    assert not (tmp_path / "o.model").exists()
    first = tmp_path / "clean"
    first.write_text("\n".join(clean) + "\n")
    r = ol.run([binaries[0], "-q", "-s", "30", "-k", "minmax", "-t", "20", "-g", "16", first,
                tmp_path / "i.model"])
    assert r.returncode == 0, r.stderr
    heart_path = data("heart", "heart.all")
    line, feature = first_negative(heart_path)
    r = ol.run([binaries[0], "-i", tmp_path / "i.model", heart_path, tmp_path / "i2.model"])
    assert r.returncode == 1
    assert f"line {line}: feature {feature} is negative" in r.stderr
    assert not (tmp_path / "i2.model").exists()


def test_stale_and_swapped_version_2_partitionings_are_refused(needs_maps, binaries, data, tmp_path):
    """predict's pair checks with k*cells: a model cut before its trailer whose .ik fits it
    (k * 2 = nr_feature for acos) is refused, and so is another training's .ik."""
    dna_train, dna_test = data("dna", "dna.train"), data("dna", "dna.test")
    a, b = tmp_path / "a.model", tmp_path / "b.model"
    assert ol.run([binaries[0], "-q", "-k", "acos", "-t", "30", dna_train, a]).returncode == 0
    assert ol.run([binaries[0], "-q", "-k", "minmax", "-t", "30", "-g", "16", dna_train, b]).returncode == 0
    cut = tmp_path / "cut.model"
    cut.write_text("".join(a.read_text().splitlines(keepends=True)[:-1]))
    (tmp_path / "cut.model.ik").write_bytes((tmp_path / "a.model.ik").read_bytes())
    r = ol.run([binaries[1], dna_test, cut, tmp_path / "out"])
    assert r.returncode == 1
    assert "t*psi = 30*2 = nr_feature" in r.stderr
    (tmp_path / "a.model.ik").write_bytes((tmp_path / "b.model.ik").read_bytes())
    r = ol.run([binaries[1], dna_test, a, tmp_path / "out"])
    assert r.returncode == 1
    assert "is not the one model" in r.stderr
    assert not (tmp_path / "out").exists()
