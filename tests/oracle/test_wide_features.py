"""Wide data (issue 18: per-feature memory bounded by what a map holds,
not by its claimed d): a LIBSVM file with a feature index of 60,000,000
trains with -k anne -S 0 and -k iforest in little memory and predicts as
the same data with that feature renumbered 6.

The independent expectation: renumbering a feature to an index that keeps
the features' order changes neither map. aNNE's cell is the nearest centre
by a sum over the features in ascending index order (ikmap.h), and iForest
grows its trees on the sampled rows' features in ascending order whatever
their numbers; the model's weights are per cell (t*psi of them), not per
feature. So the two runs must print the same predictions and the same
weights; only the .ik file (its d, its indices, its checksum) differs."""
import os
import random
import resource
import subprocess

import pytest

import oracle_lib as ol

WIDE = 60_000_000
NARROW = 6
# The fuzzing goal's limit; the programs' own code, OpenBLAS and the
# OpenMP runtime fit in it with room to spare, a per-feature array of
# 60M doubles (480 MB) does not.
ADDRESS_SPACE = 256 << 20


def write_data(path, top, seed):
    """40 rows of features 1..5 and, in every third row, feature `top`."""
    rng = random.Random(seed)
    lines = []
    for i in range(40):
        feats = [(j, round(rng.uniform(-2, 3), 3)) for j in range(1, 6) if rng.random() < 0.7]
        if i % 3 == 0:
            feats.append((top, round(rng.uniform(0.5, 4), 3)))
        label = "+1" if rng.random() < 0.5 else "-1"
        lines.append(" ".join([label] + [f"{j}:{v}" for j, v in feats]))
    path.write_text("\n".join(lines) + "\n")
    return path


# In the sanitizer run (make sanitize-check) the programs reserve terabytes of
# address space for ASan's shadow memory, so RLIMIT_AS cannot cap them; there
# ASan itself refuses any one allocation above the same limit (the fuzzing
# goal's own measure, as libFuzzer's -malloc_limit_mb), and the program then
# reports out of memory, which fails the test as the cap would.
SANITIZED = bool(os.environ.get("LIBLINEAR_IK_SANITIZER_LOGS"))


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_small(args):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if SANITIZED:
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1"
                               f":max_allocation_size_mb={ADDRESS_SPACE >> 20}")
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, preexec_fn=None if SANITIZED else limited,
                          env=env)


def weights(model_path):
    text = model_path.read_text()
    return text[:text.index("ik_partitioning")]


@pytest.mark.parametrize("kernel", [["-k", "anne", "-S", "0"], ["-k", "iforest"]],
                         ids=["anne-unscaled", "iforest"])
def test_a_feature_at_60M_maps_as_the_same_feature_renumbered(kernel, binaries, tmp_path):
    train, predict = binaries
    out = {}
    for name, top in (("wide", WIDE), ("narrow", NARROW)):
        data = write_data(tmp_path / f"{name}.train", top, 7)
        test = write_data(tmp_path / f"{name}.test", top, 8)
        model = tmp_path / f"{name}.model"
        r = run_small([train, "-q", *kernel, "-t", "20", "-g", "8", "-d", "cpu", data, model])
        assert r.returncode == 0, r.stderr
        pred = tmp_path / f"{name}.pred"
        r = run_small([predict, "-d", "cpu", test, model, pred])
        assert r.returncode == 0, r.stderr
        out[name] = (weights(model), pred.read_text(), r.stdout)
    assert out["wide"] == out["narrow"]
    # and the wide map really is wide: its .ik claims d = 60M
    assert int.from_bytes((tmp_path / "wide.model.ik").read_bytes()[24:28], "little") == WIDE


def test_a_scaled_map_of_60M_features_is_refused_cleanly(binaries, tmp_path):
    """A scaled map stores a factor per feature (480 MB here): refused with a
    message that says what to do, exit 1, and nothing left behind."""
    train, _ = binaries
    data = write_data(tmp_path / "wide.train", WIDE, 7)
    r = run_small([train, "-q", "-k", "anne", "-g", "8", data, tmp_path / "m"])
    assert r.returncode == 1
    assert "at most 33554430" in r.stderr and "unscaled" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wide.train"]
