"""Option values that are not numbers are errors (issue 18): every option
of train, predict and ikmap that takes a number, given words that upstream's
atoi/atof would have taken as some number ("1x" as 1, "abc" as 0, "nan",
"inf"), must exit 1 with an ERROR line naming the option, and write no
file. Valid spellings ("1e-3", ".5", "+2", "-B 1") keep working and give
exactly what the plain spelling gives."""
import pytest

import oracle_lib as ol

# tools/ikmap in the build tree, bin/ikmap installed (oracle_lib).
IKMAP_TOOL = ol.IKMAP_TOOL

TRAIN_USAGE = "Usage: train [options] training_set_file [model_file]\n"
PREDICT_USAGE = "Usage: predict [options] test_file model_file output_file\n"

# Words that are not a finite real number read whole by strtod.
BAD_REALS = ["1x", "abc", "", "nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999",
             "-1e999", "1,5", "1 ", "0x", "1e", "--1", "+"]
# Words that are not an optional sign and decimal digits in int range.
BAD_INTS = ["abc", "1x", "1.5", "1.0", "1e3", "", "nan", "inf", "0x10", " 1", "1 ", "+",
            "-", "--1", "+-1", "2147483648", "-2147483649", "99999999999999999999"]
# -r takes any 64-bit seed, so 2147483648 is a good one there.
BAD_SEEDS = [v for v in BAD_INTS if v not in ("2147483648",)] + [
    "-1", "18446744073709551616", "-5"]


@pytest.fixture(scope="module")
def heart(data):
    return data("heart", "heart.all")


def assert_refused(r, option, folder, usage):
    assert r.returncode == 1, (option, r.stdout, r.stderr)
    assert f"ERROR: {option} needs" in r.stderr, (option, r.stderr)
    assert r.stdout.startswith(usage)
    assert list(folder.iterdir()) == [], list(folder.iterdir())


# ------------------------------------------------------------------ train

@pytest.mark.parametrize("option", ["-c", "-p", "-n", "-e", "-B", "-w1", "-w-1"])
@pytest.mark.parametrize("value", BAD_REALS)
def test_train_real_option_needs_a_finite_number(option, value, binaries, heart, tmp_path):
    r = ol.run([binaries[0], option, value, heart, "m"], cwd=tmp_path)
    assert_refused(r, option, tmp_path, TRAIN_USAGE)


@pytest.mark.parametrize("option", ["-s", "-v", "-m", "-t", "-g", "-S"])
@pytest.mark.parametrize("value", BAD_INTS)
def test_train_integer_option_needs_an_integer(option, value, binaries, heart, tmp_path):
    for kernel in ([], ["-k", "anne"]):
        r = ol.run([binaries[0], *kernel, option, value, heart, "m"], cwd=tmp_path)
        assert_refused(r, option, tmp_path, TRAIN_USAGE)


@pytest.mark.parametrize("value", BAD_SEEDS)
def test_train_seed_needs_a_64_bit_integer(value, binaries, heart, tmp_path):
    r = ol.run([binaries[0], "-k", "anne", "-r", value, heart, "m"], cwd=tmp_path)
    assert_refused(r, "-r", tmp_path, TRAIN_USAGE)


@pytest.mark.parametrize("option", ["-w", "-wx", "-w1x", "-w1.5", "-w1e3", "-w+", "-w 1",
                                    "-w2147483648", "-wnan"])
def test_train_weight_label_needs_an_integer(option, binaries, heart, tmp_path):
    r = ol.run([binaries[0], option, "2", heart, "m"], cwd=tmp_path)
    assert_refused(r, "-wi", tmp_path, TRAIN_USAGE)


def test_train_bad_value_after_good_ones(binaries, heart, tmp_path):
    """The check is per value, wherever it stands on the line."""
    r = ol.run([binaries[0], "-s", "0", "-c", "2", "-e", "0.1", "-B", "1x", heart, "m"],
               cwd=tmp_path)
    assert_refused(r, "-B", tmp_path, TRAIN_USAGE)


# Each pair: a spelling upstream's atof/atoi read as a valid number, and its
# plain spelling; both must give the same model, byte for byte.
SAME_MODEL = [
    ("-c 1e-3", "-c 0.001"), ("-c .5", "-c 0.5"), ("-c +2", "-c 2"), ("-c 0x1p-1", "-c 0.5"),
    ("-c 5E-1", "-c 0.5"), ("-B 1", "-B 1.0"), ("-B -1", ""), ("-s +2", "-s 2"),
    ("-s 02", "-s 2"), ("-s -0", "-s 0"), ("-e 1E-2", "-e 0.01"), ("-w+1 2 -w-1 .5", "-w1 2 -w-1 0.5"),
    ("-s 21 -n .25", "-s 21 -n 0.25"), ("-s 11 -p +0.2", "-s 11 -p 0.2"), ("-m +1", "-m 1"),
    ("-k anne -t +3 -g 04 -r +7 -S +1", "-k anne -t 3 -g 4 -r 7 -S 1"),
    ("-k iforest -t 3 -r +18446744073709551615", "-k iforest -t 3 -r 18446744073709551615"),
    ("-k anne -t 3 -r -0 -S -0", "-k anne -t 3 -r 0 -S 0"),
]


@pytest.mark.parametrize("spelled,plain", SAME_MODEL)
def test_train_valid_spellings_give_the_plain_model(spelled, plain, binaries, heart, tmp_path):
    files = []
    for name, options in (("a", spelled), ("b", plain)):
        folder = tmp_path / name
        folder.mkdir()
        r = ol.run([binaries[0], "-q", *options.split(), heart, "m"], cwd=folder)
        assert r.returncode == 0, (options, r.stderr)
        files.append(sorted((p.name, p.read_bytes()) for p in folder.iterdir()))
    assert files[0] == files[1]


def test_train_cv_folds_spelled_with_a_sign(binaries, heart, tmp_path):
    runs = [ol.run([binaries[0], "-q", "-v", v, heart], cwd=tmp_path) for v in ("+3", "3")]
    assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout
    assert "Cross Validation Accuracy" in runs[0].stdout
    r = ol.run([binaries[0], "-v", "1", heart], cwd=tmp_path)  # in range of int, below 2
    assert r.returncode == 1 and "n-fold cross validation: n must >= 2" in r.stderr


# ---------------------------------------------------------------- predict

@pytest.fixture(scope="module")
def heart_model(binaries, heart, tmp_path_factory):
    folder = tmp_path_factory.mktemp("option_values_model")
    model = folder / "heart.model"
    r = ol.run([binaries[0], "-q", "-s", "0", heart, model])
    assert r.returncode == 0, r.stderr
    return model


@pytest.mark.parametrize("option", ["-b", "-m"])
@pytest.mark.parametrize("value", BAD_INTS)
def test_predict_integer_option_needs_an_integer(option, value, binaries, heart, heart_model,
                                                 tmp_path):
    r = ol.run([binaries[1], option, value, heart, heart_model, "out"], cwd=tmp_path)
    assert_refused(r, option, tmp_path, PREDICT_USAGE)


def test_predict_valid_spellings(binaries, heart, heart_model, tmp_path):
    outputs = []
    for b in ("1", "+1", "01"):
        out = tmp_path / f"out{len(outputs)}"
        r = ol.run([binaries[1], "-b", b, "-m", "+1", heart, heart_model, out])
        assert r.returncode == 0, r.stderr
        outputs.append(out.read_bytes())
    assert outputs[0].startswith(b"labels ") and outputs[1:] == outputs[:1] * 2


# ------------------------------------------------------------------ ikmap

@pytest.mark.parametrize("option", ["-t", "-g", "-S", "-m"])
@pytest.mark.parametrize("value", BAD_INTS)
def test_ikmap_build_integer_option_needs_an_integer(option, value, heart, tmp_path):
    r = ol.run([IKMAP_TOOL, "-k", "anne", option, value, heart, "p.ik"], cwd=tmp_path)
    assert_refused(r, option, tmp_path, "Usage: ikmap")


@pytest.mark.parametrize("value", BAD_SEEDS)
def test_ikmap_seed_needs_a_64_bit_integer(value, heart, tmp_path):
    r = ol.run([IKMAP_TOOL, "-k", "anne", "-r", value, heart, "p.ik"], cwd=tmp_path)
    assert_refused(r, "-r", tmp_path, "Usage: ikmap")


@pytest.mark.parametrize("value", ["abc", "1x", "0", "-2", "1.5", "nan", ""])
def test_ikmap_map_and_kernel_threads_need_an_integer(value, tmp_path):
    for args in (["-m", value, "p.ik"], ["-K", "-m", value, "p.ik", "x"]):
        r = ol.run([IKMAP_TOOL, *args], cwd=tmp_path)
        assert_refused(r, "-m", tmp_path, "Usage: ikmap")


def test_ikmap_valid_spellings_give_the_same_file(heart, tmp_path):
    for name, options in (("a.ik", ["-t", "+3", "-g", "08", "-r", "+9"]),
                          ("b.ik", ["-t", "3", "-g", "8", "-r", "9"])):
        r = ol.run([IKMAP_TOOL, "-k", "anne", *options, heart, name], cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.ik").read_bytes() == (tmp_path / "b.ik").read_bytes()
