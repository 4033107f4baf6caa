"""The online solver -s 30 from Python (issue 23): train(y, x, '-s 30 ...')
with and without -k and with -v, online_update (lik_online_update: a model
changed in place by new rows) and train_from (lik_train_from: a new model
from a saved one). Each is checked against the train program (./train -s 30,
./train -i), which does not use the Python layer: the model files written
by save_model must be the program's, byte for byte."""
import pickle
import subprocess

import numpy as np
import pytest

from liblinear.liblinearutil import (load_model, online_update, predict, save_model, svm_read_problem, train,
                                     train_from)


def program(path, *args):
    r = subprocess.run([path] + [str(a) for a in args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def heart(data):
    return svm_read_problem(data["heart"])


@pytest.fixture(scope="module")
def halves(data, tmp_path_factory):
    """heart's rows in two files (first 120, the other 150) and as (y, x) lists."""
    folder = tmp_path_factory.mktemp("halves")
    lines = open(data["heart"]).read().splitlines(keepends=True)
    first, second = folder / "h1", folder / "h2"
    first.write_text("".join(lines[:120]))
    second.write_text("".join(lines[120:]))
    y, x = svm_read_problem(data["heart"])
    return folder, first, second, (y[:120], x[:120]), (y[120:], x[120:])


def saved(m, path):
    """MODEL (and MODEL.ik) as save_model writes them, without the trailer line naming the file."""
    save_model(str(path), m)
    text = [line for line in path.read_text().splitlines() if not line.startswith("ik_partitioning")]
    ik = path.with_name(path.name + ".ik")
    return text, ik.read_bytes() if ik.exists() else None


def program_files(path):
    text = [line for line in path.read_text().splitlines() if not line.startswith("ik_partitioning")]
    ik = path.with_name(path.name + ".ik")
    return text, ik.read_bytes() if ik.exists() else None


@pytest.mark.parametrize("options", ["-s 30", "-s 30 -B 1", "-s 30 -c 0.25 -w1 2", "-s 30 -k anne -g 16 -t 30",
                                     "-s 30 -k iforest -g 16 -t 30 -r 3 -B 1"])
def test_train_s30_is_the_program_s_model(options, data, heart, programs, tmp_path):
    y, x = heart
    m = train(y, x, options + " -q")
    assert m.param.solver_type == 30
    assert m.is_ik_model() == ("-k" in options)
    program(programs[0], *options.split(), "-q", data["heart"], tmp_path / "cli")
    assert saved(m, tmp_path / "py") == program_files(tmp_path / "cli")
    # the program's predictions on the program's model
    printed = program(programs[1], data["heart"], tmp_path / "cli", tmp_path / "out")
    labels, (accuracy, _, _), _ = predict(y, x, m, "-q")
    assert labels == [float(v) for v in (tmp_path / "out").read_text().split()]
    assert "Accuracy = %g%%" % accuracy in printed
    assert accuracy > 100 * max(np.mean(np.array(y) == 1), np.mean(np.array(y) == -1))


def test_default_eta_is_half(heart):
    y, x = heart
    a, b, c = (train(y, x, o) for o in ("-s 30 -q", "-s 30 -c 0.5 -q", "-s 30 -c 1 -q"))
    assert a.param.C == 0.5
    assert a.w[:13] == b.w[:13] and a.w[:13] != c.w[:13]


@pytest.mark.parametrize("options", ["-s 30 -v 5", "-s 30 -k anne -g 16 -t 30 -v 4", "-s 30 -B 1 -v 3"])
def test_cross_validation_is_the_program_s(options, data, heart, programs, capsys):
    y, x = heart
    accuracy = train(y, x, options + " -q")
    printed = program(programs[0], *options.split(), "-q", data["heart"])
    assert printed.strip() == "Cross Validation Accuracy = %g%%" % accuracy
    assert capsys.readouterr().out.strip() == printed.strip()


def test_no_parameter_search_for_s30(heart):
    y, x = heart
    with pytest.raises(ValueError, match="only available for -s 0, -s 2 and -s 11"):
        train(y, x, "-s 30 -C -q")


@pytest.mark.parametrize("kernel", ["", "-k anne -g 16 -t 30", "-k iforest -g 16 -t 30"])
def test_online_update_in_place_is_the_program_s_continued_training(kernel, halves, programs):
    folder, first, second, (y1, x1), (y2, x2) = halves
    tag = kernel.replace(" ", "")
    m = train(y1, x1, "-s 30 -q " + kernel)
    before = saved(m, folder / ("before" + tag))
    assert online_update(m, y2, x2, "-m 2") is m
    assert saved(m, folder / ("after" + tag)) != before
    # ./train -i continues the program's model of the first half on the second
    program(programs[0], "-s", 30, "-q", *kernel.split(), first, folder / ("cli1" + tag))
    program(programs[0], "-i", folder / ("cli1" + tag), second, folder / ("cli2" + tag))
    assert saved(m, folder / ("py2" + tag)) == program_files(folder / ("cli2" + tag))
    if not kernel:
        # plain: two halves are one pass over the whole file
        whole = train(y1 + y2, x1 + x2, "-s 30 -q")
        assert saved(whole, folder / "whole") == saved(m, folder / "again")


def test_online_update_passes_threads_device_and_eta(halves):
    _, _, _, (y1, x1), (y2, x2) = halves
    models = []
    for options in ("-m 1", "-m 2", "-m 2 -d cpu", "-d auto"):
        m = train(y1, x1, "-s 30 -k anne -g 16 -t 30 -q")
        models.append(pickle.dumps(online_update(m, y2, x2, options + " -P 3")))
    assert models.count(models[0]) == len(models)
    # -P 3 is three passes: not one; -c is eta
    m1 = online_update(train(y1, x1, "-s 30 -k anne -g 16 -t 30 -q"), y2, x2, "-P 1")
    assert pickle.dumps(m1) != models[0]
    a = online_update(train(y1, x1, "-s 30 -q"), y2, x2, "-c 0.5")
    b = online_update(train(y1, x1, "-s 30 -q"), y2, x2, "-c 2")
    assert a.w[:13] != b.w[:13]


@pytest.mark.parametrize("kernel", ["", "-k iforest -g 16 -t 30"])
def test_the_model_s_eta_goes_on(kernel, halves, programs):
    """Without -c, online_update and train_from go on with the model's eta, as train -i does with
    the file's eta line: both equal the program's -i of a -c 0.25 model, also after a load."""
    folder, first, second, (y1, x1), (y2, x2) = halves
    tag = "eta" + kernel.replace(" ", "")
    program(programs[0], "-s", 30, "-c", 0.25, "-q", *kernel.split(), first, folder / (tag + "1"))
    program(programs[0], "-i", folder / (tag + "1"), "-q", second, folder / (tag + "2"))
    expected = program_files(folder / (tag + "2"))
    assert "eta 0.25" in expected[0]
    m = train(y1, x1, "-s 30 -c 0.25 -q " + kernel)
    assert saved(train_from(m, y2, x2, "-q"), folder / (tag + "from")) == expected
    loaded = load_model(str(folder / (tag + "1")))
    assert loaded.param.C == 0.25
    assert saved(online_update(loaded, y2, x2, "-q"), folder / (tag + "upd")) == expected
    other = train_from(m, y2, x2, "-c 0.5 -q")
    assert saved(other, folder / (tag + "other")) != expected


def test_online_update_a_new_label_and_feature_join(heart):
    y, x = heart
    m = train(y, x, "-s 30 -q")
    assert m.get_nr_class() == 2 and m.get_nr_feature() == 13
    online_update(m, [3, 3], [{1: 0.5, 20: 1.0}, {2: -0.5, 20: 1.0}])
    assert m.get_nr_class() == 3 and m.get_labels() == [1, -1, 3]
    assert m.get_nr_feature() == 20
    labels, _, _ = predict([3], [{20: 5.0}], m, "-q")
    assert labels == [3.0]
    # an updated model pickles and saves as any other
    assert pickle.dumps(pickle.loads(pickle.dumps(m))) == pickle.dumps(m)


@pytest.mark.parametrize("kernel", ["", "-k iforest -g 16 -t 30"])
def test_train_from_s30_is_the_program_s_and_leaves_the_model(kernel, halves, programs):
    folder, first, second, (y1, x1), (y2, x2) = halves
    tag = "from" + kernel.replace(" ", "")
    m = train(y1, x1, "-s 30 -q " + kernel)
    before = pickle.dumps(m)
    m2 = train_from(m, y2, x2, "-q -m 2")
    assert pickle.dumps(m) == before
    program(programs[0], "-s", 30, "-q", *kernel.split(), first, folder / (tag + "1"))
    program(programs[0], "-i", folder / (tag + "1"), "-P", 2, second, folder / (tag + "2"))
    m3 = train_from(m, y2, x2, "-P 2")
    assert saved(m3, folder / (tag + "py")) == program_files(folder / (tag + "2"))
    assert pickle.dumps(m2) != pickle.dumps(m3)


@pytest.mark.parametrize("solver", [0, 2, 11])
def test_train_from_newton_is_the_program_s(solver, data, heart, programs, tmp_path):
    y, x = heart
    m = train(y, x, "-s %d -B 1 -q" % solver)  # upstream's path: a plain model, not the library's
    program(programs[0], "-s", solver, "-B", 1, "-q", data["heart"], tmp_path / "m1")
    program(programs[0], "-i", tmp_path / "m1", "-e", 0.0001, data["heart"], tmp_path / "m2")
    m2 = train_from(m, y, x, "-e 0.0001 -q")
    assert m2.param.solver_type == solver and m2.bias == 1
    assert saved(m2, tmp_path / "py") == program_files(tmp_path / "m2")
    # loaded from the program's file, the same
    assert saved(train_from(load_model(str(tmp_path / "m1")), y, x, "-e 0.0001 -q"), tmp_path / "py2") == \
        program_files(tmp_path / "m2")


def test_refusals(heart):
    y, x = heart
    s2 = train(y, x, "-s 2 -q")
    s30 = train(y, x, "-s 30 -q")
    k30 = train(y, x, "-s 30 -k anne -g 16 -t 30 -q")
    with pytest.raises(ValueError, match="not the Isolation Kernel library's"):
        online_update(s2, y, x)
    with pytest.raises(ValueError, match="needs a -s 30 model"):
        online_update(load_model_of(s2), y, x)
    with pytest.raises(ValueError, match="the model was trained by -s 2, not -s 0"):
        train_from(s2, y, x, "-s 0")
    with pytest.raises(ValueError, match="-k does not apply"):
        train_from(k30, y, x, "-k iforest")
    with pytest.raises(ValueError, match="-g does not apply"):
        online_update(k30, y, x, "-g 32")
    with pytest.raises(ValueError, match="-B 1 does not fit the model's bias -1"):
        train_from(s30, y, x, "-B 1")
    with pytest.raises(ValueError, match="label 3 of row 1 is not one of the model's labels"):
        train_from(s2, [3] + list(y[1:]), x)
    with pytest.raises(ValueError, match="cannot start from weights|training from a model needs"):
        train_from(train(y, x, "-s 1 -q"), y, x)
    with pytest.raises(ValueError, match="labels for"):
        online_update(s30, y[:5], x)
    with pytest.raises(ValueError, match="-P needs a number of passes"):
        online_update(s30, y, x, "-P 0")
    with pytest.raises(ValueError, match="-d needs auto, cpu or gpu"):
        online_update(s30, y, x, "-d tpu")
    with pytest.raises(ValueError, match="eta"):
        online_update(s30, y, x, "-c 0")
    with pytest.raises(ValueError, match="not a finite number"):
        online_update(s30, [1], [{1: float("nan")}])
    with pytest.raises(TypeError):
        train_from("not a model", y, x)


def load_model_of(m):
    """m through pickle: the library's own copy (so online_update reaches its solver check)."""
    return pickle.loads(pickle.dumps(m))
