"""train/predict/ikmap with the transforms -S 0..4 on every -k type (issue 28), end to end.

The independent expectations: the .ik header's fields read from the file's
bytes (ikmap_file.c's format: version 1 for aNNE -S 0/1 and iForest -S 0-3,
else 2; the stored scale code; 8 d bytes of factors where the format says
so), the first negative value of a file found here by reading its text,
aNNE -S 2 against an unscaled aNNE trained on rows divided by their range
here (numpy: the range over the training rows, implicit zeros counted),
iForest's bytes under -S 1-3 against its -S 0 bytes, and `ikmap` building
the very bytes that `train` stores. An `.ik` pair written by a build from
before this change (LIBLINEAR_IK_BASE_BIN, a directory holding its train
and predict; skipped when unset) loads and predicts identically, and the
files of what uses nothing new are byte-identical.
"""
import os
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import oracle_lib as ol

KERNELS = {"anne": 0, "iforest": 1, "minmax": 2, "acos": 3}
SMALL = {"anne": ["-t", "30", "-g", "16"], "iforest": ["-t", "30", "-g", "16"],
         "minmax": ["-t", "60", "-g", "64"], "acos": ["-t", "200"]}


def ik_header(path):
    """(version, method, t, psi, d, scale) from a .ik file's first bytes."""
    raw = Path(path).read_bytes()
    assert raw[:8] == b"IKMAP\r\n\x1a"
    return struct.unpack("<6I", raw[8:32])


def accuracy_of(stdout):
    return float(re.search(r"Accuracy = ([0-9.]+)%", stdout).group(1))


def first_negative(path):
    """(line, feature) of the first negative value of a LIBSVM file, read as text."""
    with open(path) as f:
        for number, line in enumerate(f, start=1):
            for token in line.split()[1:]:
                index, value = token.split(":")
                if float(value) < 0:
                    return number, int(index)
    return None


def expected_version(kernel, scale):
    if kernel == "anne":
        return 1 if scale <= 1 else 2
    if kernel == "iforest":
        return 1 if scale <= 3 else 2
    return 2


def expected_stored_scale(kernel, scale):
    return (4 if scale == 4 else 0) if kernel == "iforest" else scale


def arrays_of_d(kernel, scale):
    """How many arrays of d doubles follow the header (min, factor)."""
    if scale == 0 or kernel == "iforest":
        return 0
    return 2 if scale == 2 and kernel in ("minmax", "acos") else 1


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("scale", [0, 1, 2, 3, 4])
def test_every_type_and_scale_round_trips_on_dna(binaries, data, tmp_path, kernel, scale):
    """dna (0/1 features, so every -S applies): the header says what was asked, ikmap builds
    the same bytes, predict reads the pair and predicts plausibly (plain linear: about 95%)."""
    train, predict = binaries
    model = tmp_path / "m"
    options = ["-k", kernel, "-S", str(scale), *SMALL[kernel]]
    r = ol.run([train, "-q", *options, data("dna", "dna.train"), model])
    assert r.returncode == 0, r.stderr
    ik = tmp_path / "m.ik"
    version, method, t, psi, d, stored = ik_header(ik)
    assert version == expected_version(kernel, scale)
    assert method == KERNELS[kernel]
    assert stored == expected_stored_scale(kernel, scale)
    assert d == 180
    if kernel in ("minmax", "acos"):
        # no per-sample data: the size is the header, the arrays of d doubles and the checksum
        assert ik.stat().st_size == 56 + 8 * d * arrays_of_d(kernel, scale) + 8
    # ikmap -k with the same options writes the same partitioning, byte for byte
    built = tmp_path / "built.ik"
    b = ol.run([ol.IKMAP_TOOL, *options, data("dna", "dna.train"), built])
    assert b.returncode == 0, b.stderr
    assert built.read_bytes() == ik.read_bytes()
    p = ol.run([predict, data("dna", "dna.test"), model, tmp_path / "out"])
    assert p.returncode == 0, p.stderr
    assert accuracy_of(p.stdout) >= 60


def split_heart(data, tmp_path):
    lines = data("heart", "heart.all").read_text().splitlines()
    train, test = tmp_path / "heart.train", tmp_path / "heart.test"
    train.write_text("\n".join(lines[:200]) + "\n")
    test.write_text("\n".join(lines[200:]) + "\n")
    return train, test


def rewrite(src, dst, factor):
    """src's rows with each value of feature j multiplied by factor[j - 1], zeros left out."""
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            tokens = line.split()
            cells = []
            for token in tokens[1:]:
                index, value = token.split(":")
                v = float(value) * factor[int(index) - 1]
                if v != 0:
                    cells.append(f"{index}:{v:.17g}")
            g.write(" ".join([tokens[0], *cells]) + "\n")


def test_anne_scale_2_is_anne_on_rows_divided_by_their_range(binaries, data, tmp_path):
    """heart (signed features on different ranges): train -k anne -S 2 predicts exactly what
    train -k anne -S 0 predicts on rows divided here by each feature's training range (the
    same sampled rows: sampling never looks at values)."""
    train, predict = binaries
    tr, te = split_heart(data, tmp_path)
    _, X = ol.read_libsvm(tr)
    dense = X.toarray()
    lo, hi = np.minimum(dense.min(axis=0), 0), np.maximum(dense.max(axis=0), 0)
    span = hi - lo
    factor = np.where(span > 0, 1 / np.where(span > 0, span, 1), 1.0)
    tr2, te2 = tmp_path / "tr2", tmp_path / "te2"
    rewrite(tr, tr2, factor)
    rewrite(te, te2, factor)
    options = ["-q", "-k", "anne", "-t", "50", "-g", "16"]
    assert ol.run([train, *options, "-S", "2", tr, tmp_path / "a"]).returncode == 0
    assert ol.run([train, *options, "-S", "0", tr2, tmp_path / "b"]).returncode == 0
    pa = ol.run([predict, te, tmp_path / "a", tmp_path / "out_a"])
    pb = ol.run([predict, te2, tmp_path / "b", tmp_path / "out_b"])
    assert pa.returncode == 0 and pb.returncode == 0, pa.stderr + pb.stderr
    assert (tmp_path / "out_a").read_text() == (tmp_path / "out_b").read_text()
    # and the transform mattered on this data: raw rows through the -S 0 model differ somewhere
    pc = ol.run([predict, te, tmp_path / "b", tmp_path / "out_c"])
    assert pc.returncode == 0
    assert (tmp_path / "out_c").read_text() != (tmp_path / "out_b").read_text()


@pytest.mark.parametrize("scale", [1, 2, 3])
def test_iforest_ignores_scales_1_to_3(binaries, data, tmp_path, scale):
    train, _ = binaries
    heart = data("heart", "heart.all")
    options = ["-q", "-k", "iforest", "-t", "20", "-g", "16"]
    assert ol.run([train, *options, "-S", "0", heart, tmp_path / "m0"]).returncode == 0
    r = ol.run([train, *options, "-S", str(scale), heart, tmp_path / "m1"])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "m1.ik").read_bytes() == (tmp_path / "m0.ik").read_bytes()
    assert ik_header(tmp_path / "m1.ik")[0] == 1
    # the models differ only in the name of their .ik file
    assert (tmp_path / "m1").read_text().replace("m1.ik", "m0.ik") == (tmp_path / "m0").read_text()


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("extra", [[], ["-v", "3"], ["-C"]])
def test_scale_4_refuses_a_negative_value_naming_line_and_feature(binaries, data, tmp_path,
                                                                   kernel, extra):
    heart = data("heart", "heart.all")
    line, feature = first_negative(heart)
    out = tmp_path / "out"
    out.mkdir()
    r = ol.run([binaries[0], "-k", kernel, "-S", "4", *extra, heart, out / "m"])
    assert r.returncode == 1
    assert f"line {line}: feature {feature} is negative" in r.stderr, r.stderr
    assert "-S 4 (log1p)" in r.stderr
    assert list(out.iterdir()) == []


def test_ikmap_tool_refuses_negatives_under_scale_4(data, tmp_path):
    heart = data("heart", "heart.all")
    line, feature = first_negative(heart)
    r = ol.run([ol.IKMAP_TOOL, "-k", "anne", "-S", "4", heart, tmp_path / "p.ik"])
    assert r.returncode == 1
    assert f"line {line}: feature {feature} is negative" in r.stderr, r.stderr
    assert not (tmp_path / "p.ik").exists()


@pytest.mark.parametrize("kernel", ["anne", "iforest"])
def test_predict_refuses_a_negative_test_value_under_scale_4(binaries, data, tmp_path, kernel):
    train, predict = binaries
    model = tmp_path / "m"
    r = ol.run([train, "-q", "-k", kernel, "-S", "4", "-t", "20", data("dna", "dna.train"), model])
    assert r.returncode == 0, r.stderr
    lines = data("dna", "dna.test").read_text().splitlines()
    row = 700
    tokens = lines[row].split()
    index = tokens[1].split(":")[0]
    lines[row] = " ".join([tokens[0], f"{index}:-2"] + tokens[2:])
    test = tmp_path / "test"
    test.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    p = ol.run([predict, test, model, out])
    assert p.returncode == 1
    assert f"{test} line {row + 1}: feature {index} is negative" in p.stderr, p.stderr
    assert "-S 4" in p.stderr
    assert not out.exists()


def test_minmax_scale_3_needs_non_negative_data_and_acos_does_not(binaries, data, tmp_path):
    heart = data("heart", "heart.all")
    line, feature = first_negative(heart)
    r = ol.run([binaries[0], "-k", "minmax", "-S", "3", heart, tmp_path / "m"])
    assert r.returncode == 1
    assert f"line {line}: feature {feature} is negative" in r.stderr
    r = ol.run([binaries[0], "-q", "-k", "acos", "-S", "3", heart, tmp_path / "a"])
    assert r.returncode == 0, r.stderr
    assert ik_header(tmp_path / "a.ik")[5] == 3


BASE = os.environ.get("LIBLINEAR_IK_BASE_BIN")


@pytest.mark.skipif(not BASE, reason="LIBLINEAR_IK_BASE_BIN (a build from before issue 28) not set")
@pytest.mark.parametrize("options", [["-k", "anne"], ["-k", "anne", "-S", "0"], ["-k", "iforest"],
                                     ["-k", "minmax", "-S", "2"], ["-k", "acos"]])
def test_pairs_from_before_load_and_predict_identically(binaries, data, tmp_path, options):
    """A pair written by the older build predicts the same with ours, and ours writes the same
    files for what uses nothing new."""
    old_train, old_predict = Path(BASE) / "train", Path(BASE) / "predict"
    train, predict = binaries
    heart = data("heart", "heart.all") if "minmax" not in options else data("dna", "dna.train")
    test = data("heart", "heart.all") if "minmax" not in options else data("dna", "dna.test")
    args = ["-q", "-t", "40", *options]
    assert ol.run([old_train, *args, heart, tmp_path / "old"]).returncode == 0
    assert ol.run([train, *args, heart, tmp_path / "new"]).returncode == 0
    assert (tmp_path / "old.ik").read_bytes() == (tmp_path / "new.ik").read_bytes()
    assert (tmp_path / "old").read_text().replace("old.ik", "new.ik") == (tmp_path / "new").read_text()
    p_old = ol.run([old_predict, test, tmp_path / "old", tmp_path / "o1"])
    p_new = ol.run([predict, test, tmp_path / "old", tmp_path / "o2"])
    assert p_old.returncode == 0 and p_new.returncode == 0, p_new.stderr
    assert (tmp_path / "o1").read_text() == (tmp_path / "o2").read_text()
