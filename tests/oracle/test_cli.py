"""train and predict as programs: usage text, option and input errors,
exit codes, which files they leave behind, input-format quirks."""
import re

import pytest

import oracle_lib as ol
from oracle_lib import Case
from liblinear.liblinear import liblinear as upstream_lib
from liblinear.liblinear import parameter, problem
from liblinear.liblinearutil import predict as upstream_predict_fn
from liblinear.liblinearutil import train as upstream_train_fn

TRAIN_USAGE = "Usage: train [options] training_set_file [model_file]\noptions:\n"
PREDICT_USAGE = "Usage: predict [options] test_file model_file output_file\noptions:\n"

GOOD_LINES = "+1 1:0.5 2:1\n-1 1:-0.5 3:0.25\n"


def write(path, text):
    path.write_bytes(text.encode())
    return path


def usage_of(exe):
    r = ol.run([exe])
    assert r.returncode == 1
    return r.stdout


def upstream_option_lines(doc):
    """Lines of an upstream docstring's options section that start with '-'."""
    section = doc.split("options:", 1)[1]
    return [line.strip() for line in section.splitlines() if line.strip().startswith("-")]


# -------------------------------------------------------------------- usage

def test_train_usage_on_stdout_exit_1(binaries):
    r = ol.run([binaries[0]])
    assert r.returncode == 1
    assert r.stdout.startswith(TRAIN_USAGE)


def readme_block(heading):
    """The first fenced block after the README's heading line."""
    text = (ol.REPO / "README.md").read_text()
    after = text.split("\n" + heading + "\n", 1)[1]
    return after.split("```\n", 2)[1]


@pytest.mark.parametrize("which,heading", [(0, "## `train` usage"), (1, "## `predict` usage")])
def test_readme_shows_the_usage_text_exactly(which, heading, binaries):
    """README's usage sections are the programs' usage texts, line for line (kept in step)."""
    assert readme_block(heading) == usage_of(binaries[which])


def test_train_usage_lists_every_upstream_option(binaries):
    """Every option and solver of upstream's documented train options (from
    its Python docstring, which mirrors train's usage) is in our usage, plus
    -n, which upstream's option parser accepts but that docstring omits."""
    usage = usage_of(binaries[0])
    usage_lines = [line.strip() for line in usage.splitlines()]
    documented = upstream_option_lines(upstream_train_fn.__doc__)
    flags = {re.match(r"-\w+", line).group(0) for line in documented}
    flags -= {"-s"} | {f"-s{n}" for n in range(22)}
    flags |= {"-s", "-n"}
    assert parameter("-n 0.3").nu == 0.3  # upstream takes -n
    for flag in sorted(flags):
        assert any(re.match(re.escape(flag) + r"\b", line) for line in usage_lines), flag
    solvers = re.findall(r"^\s*(\d+) -- (.+?)\s*$", upstream_train_fn.__doc__, re.M)
    assert len(solvers) == 12
    squeezed = re.sub(r"\s+", " ", usage)
    for number, text in solvers:
        assert f"{number} -- {text}" in squeezed, (number, text)


@pytest.mark.parametrize("args", [[], ["only_test"], ["test", "model"]])
def test_predict_too_few_arguments_prints_usage(args, binaries, tmp_path):
    r = ol.run([binaries[1], *args], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.startswith(PREDICT_USAGE)
    assert list(tmp_path.iterdir()) == []


def test_predict_usage_lists_upstream_options(binaries):
    usage_lines = [line.strip() for line in usage_of(binaries[1]).splitlines()]
    for line in upstream_option_lines(upstream_predict_fn.__doc__):
        flag = re.match(r"-\w+", line).group(0)
        assert any(re.match(re.escape(flag) + r"\b", u) for u in usage_lines), flag


# ------------------------------------------------------------- bad options

def test_train_unknown_option(binaries, data, tmp_path):
    r = ol.run([binaries[0], "-Z", data("heart", "heart.all")], cwd=tmp_path)
    assert r.returncode == 1
    assert "unknown option: -Z" in r.stderr
    assert r.stdout.startswith(TRAIN_USAGE)
    assert list(tmp_path.iterdir()) == []


def test_predict_unknown_option(binaries, tmp_path):
    r = ol.run([binaries[1], "-Z", "a", "b", "c"], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.startswith(PREDICT_USAGE)
    assert list(tmp_path.iterdir()) == []


def upstream_check_parameter(options, solver_type=None):
    """The message upstream's check_parameter gives for these options."""
    prob = problem([1, -1], [{1: 1.0}, {1: -1.0}])
    param = parameter(options)
    # Upstream's train gives -B to the problem, which check_parameter reads.
    prob.set_bias(param.bias)
    if solver_type is not None:
        param.solver_type = solver_type
    return upstream_lib.check_parameter(prob, param).decode()


# -R: only with -B 1, only for the primal solvers -s 0, 2, 5, 6, 11 (those
# train in test_optimality); one-class takes no bias at all.
R_REFUSED = [(f"-s {s} -B 1 -R", None) for s in (1, 3, 4, 7, 12, 13, 21)]


@pytest.mark.parametrize("options,solver_type", [
    ("-c 0", None), ("-e -1", None), ("-e 0", None), ("-s 0 -R", None),
    ("-s 0 -B 2 -R", None), ("-s 5 -R", None), *R_REFUSED, ("-s 21 -B 0", None),
    ("-s 4 -e 0", None), ("-s 21 -c 0", None), ("-s 11 -p -1", None), ("-s 9", 9)])
def test_bad_parameter_is_an_error(options, solver_type, binaries, data, tmp_path):
    """Our train rejects what upstream's check_parameter rejects, with
    'ERROR: ' and upstream's message on stderr, exit 1, no model."""
    shown = options if solver_type is None else ""
    message = upstream_check_parameter(shown, solver_type)
    r = ol.run([binaries[0], *options.split(), data("heart", "heart.all")], cwd=tmp_path)
    assert r.returncode == 1
    assert f"ERROR: {message}" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_cv_needs_two_folds(binaries, data, tmp_path):
    r = ol.run([binaries[0], "-v", "1", data("heart", "heart.all")], cwd=tmp_path)
    assert r.returncode == 1
    assert "n-fold cross validation: n must >= 2" in r.stdout + r.stderr
    assert TRAIN_USAGE in r.stdout


# ------------------------------------------------------------ missing files

def test_train_missing_input(binaries, tmp_path):
    r = ol.run([binaries[0], "no_such_file"], cwd=tmp_path)
    assert r.returncode == 1
    assert "can't open input file no_such_file" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_predict_missing_test_file(binaries, trained, tmp_path):
    model = trained(Case("heart", "heart.all", "heart.all", 1)).ours_model
    r = ol.run([binaries[1], "no_such_file", model, "out"], cwd=tmp_path)
    assert r.returncode == 1
    assert "can't open input file no_such_file" in r.stderr


def test_predict_missing_model_file(binaries, data, tmp_path):
    r = ol.run([binaries[1], data("heart", "heart.all"), "no_such_model", "out"], cwd=tmp_path)
    assert r.returncode == 1
    assert "can't open model file no_such_model" in r.stderr


def test_train_default_model_name_is_basename_in_cwd(binaries, data, tmp_path):
    r = ol.run([binaries[0], "-q", data("heart", "heart.all")], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["heart.all.model"]


# ------------------------------------------------------------- input format

BAD_INPUTS = {
    "label_not_a_number": (GOOD_LINES + "a 1:1\n", 3),
    "index_zero": (GOOD_LINES + "+1 0:1\n", 3),
    "negative_index": (GOOD_LINES + "+1 -3:1\n", 3),
    "descending_indices": (GOOD_LINES + "+1 2:1 1:1\n", 3),
    "duplicate_index": (GOOD_LINES + "+1 1:1 1:2\n", 3),
    "spaces_around_colon": (GOOD_LINES + "+1 1 : 2\n", 3),
    "value_not_a_number": (GOOD_LINES + "+1 1:abc\n", 3),
    "empty_value": (GOOD_LINES + "+1 1:\n", 3),
    "value_with_junk": (GOOD_LINES + "+1 1:1.0x\n", 3),
    "empty_line_inside": ("+1 1:1\n\n" + GOOD_LINES, 2),
    "blank_line_at_end": (GOOD_LINES + "\n", 3),
    "spaces_only_line": (GOOD_LINES + "   \n" + GOOD_LINES, 3),
    "colonless_token_then_more": (GOOD_LINES + "+1 foo 1:1\n", 3),
}


def wrong_format_at(line, stderr):
    """Upstream's one-line message; ours may add ': <reason>' (a deliberate
    difference: it says what is wrong)."""
    return re.fullmatch(f"Wrong input format at line {line}(: [^\n]+)?\n", stderr) is not None


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_train_rejects_bad_line(name, binaries, tmp_path):
    text, line = BAD_INPUTS[name]
    data_file = write(tmp_path / "bad.txt", text)
    r = ol.run([binaries[0], "-q", data_file, tmp_path / "bad.model"], cwd=tmp_path)
    assert r.returncode == 1
    assert wrong_format_at(line, r.stderr), r.stderr
    # No model file: neither the one asked for nor the default name.
    assert [p.name for p in tmp_path.iterdir()] == ["bad.txt"]


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_predict_rejects_bad_line(name, binaries, trained, tmp_path):
    model = trained(Case("heart", "heart.all", "heart.all", 1)).ours_model
    text, line = BAD_INPUTS[name]
    data_file = write(tmp_path / "bad.txt", text)
    r = ol.run([binaries[1], data_file, model, tmp_path / "out"], cwd=tmp_path)
    assert r.returncode == 1
    assert wrong_format_at(line, r.stderr), r.stderr
    assert not (tmp_path / "out").exists()


def test_empty_training_file_is_an_error(binaries, tmp_path):
    """A deliberate difference: upstream writes a model with nr_class 0."""
    data_file = write(tmp_path / "empty.txt", "")
    r = ol.run([binaries[0], "-q", data_file], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.strip() != ""
    assert [p.name for p in tmp_path.iterdir()] == ["empty.txt"]


# Accepted quirks: each variant must train exactly the model of CLEAN.
CLEAN = "+1 1:0.5 2:1\n-1 1:-0.5 3:0.25\n+1 2:0.75\n-1\n"
ACCEPTED = {
    "crlf_line_ends": CLEAN.replace("\n", "\r\n"),
    "no_final_newline": CLEAN[:-1],
    "trailing_comment_token": CLEAN.replace("2:0.75\n", "2:0.75 #comment\n"),
    "exponent_notation": CLEAN.replace("+1 1:0.5", "1e0 1:5e-1"),
    "tabs_between_tokens": CLEAN.replace("+1 2:0.75", "+1\t2:0.75"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_input_variants_train_the_same_model(name, binaries, tmp_path):
    clean = write(tmp_path / "clean.txt", CLEAN)
    variant = write(tmp_path / "variant.txt", ACCEPTED[name])
    for f in (clean, variant):
        r = ol.run([binaries[0], "-q", "-s", "2", f, f.with_suffix(".model")])
        assert r.returncode == 0, (name, r.stderr)
    assert variant.with_suffix(".model").read_bytes() == clean.with_suffix(".model").read_bytes()


def test_predict_ignores_features_beyond_the_model(binaries, trained, tmp_path):
    case = Case("heart", "heart.all", "heart.all", 1)
    t = trained(case)
    lines = t.test_path.read_text().splitlines()
    extended = write(tmp_path / "extended.txt", "".join(l + " 14:3 99:-7\n" for l in lines))
    outs = []
    for f in (t.test_path, extended):
        out = tmp_path / f"out{len(outs)}"
        r = ol.run([binaries[1], "-q", f, t.ours_model, out])
        assert r.returncode == 0, r.stderr
        outs.append(out.read_text())
    assert outs[0] == outs[1]


# ------------------------------------------- one-class nu (issue 18)

@pytest.mark.parametrize("nu", ["1e9", "2", "1.0000001", "0", "-0", "-1", "-1e300"])
def test_oneclass_nu_outside_0_1_is_an_error(nu, binaries, data, tmp_path):
    """Upstream 2.50 accepts any -n and then writes out of bounds (a crash
    or a corrupt model); we refuse nu outside (0, 1] in check_parameter,
    with or without -k, before anything is written."""
    for extra in ([], ["-k", "anne", "-g", "4", "-t", "3"], ["-v", "3"]):
        r = ol.run([binaries[0], "-s", "21", "-n", nu, *extra, data("heart", "heart.all"), "m"],
                   cwd=tmp_path)
        assert r.returncode == 1, (extra, r.stdout, r.stderr)
        assert "ERROR: nu <= 0 or nu > 1" in r.stderr
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("nu", ["1", "0.001", "1e-3"])
def test_oneclass_nu_in_0_1_trains(nu, binaries, data, tmp_path):
    r = ol.run([binaries[0], "-q", "-s", "21", "-n", nu, data("heart", "heart.all"), "m"],
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "m").exists()
