"""train -C -k auto (issue 28): a kernel, t, psi, S and C chosen by staged searches.

What is checked against independent expectations: every candidate line has
the issue's fields; the Best line is the candidate that the choice rule
(recomputed here from the printed lines: the cheapest of those within 0.5
points of the top score; the standard-error half is checked in
tests/unit/test_lik_auto.c, where the folds are known) would take; the
printed train command reproduces the model -W 1 writes, byte for byte;
options the user gives appear in every kernel line; -k auto without -C or
with another solver is refused; a tiny budget still gives a valid best and
says what it skipped; -m 1 and -m 2 choose the same; stage 2 tries the
raw-feature weights 0.3 and 1, and a given -a fixes every kernel's w."""
import re
import shlex

import pytest

import oracle_lib as ol

ROW = re.compile(r"^kernel = (\w+)  t = (\d+)  psi = (\d+)  S = (\d+)  w = (\S+)  C = (\S+)  "
                 r"CV accuracy = (\d+\.\d\d)%  \((\d+) rows, \d+\.\d s\)$")
BEST = re.compile(r"^Best kernel = (\w+)  t = (\d+)  psi = (\d+)  S = (\d+)  w = (\S+)  C = (\S+)  "
                  r"CV accuracy = (\d+\.\d\d)%  \((\d+) rows, (\d+) columns\)$")
COMMAND = re.compile(r"^best model: (train .*)$")


def auto(binaries, options, data_file, cwd, model=None, ok=True):
    args = [binaries[0], "-C", "-k", "auto"] + options.split() + [data_file]
    if model is not None:
        args.append(model)
    r = ol.run(args, cwd=cwd)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def parsed(stdout):
    lines = stdout.rstrip("\n").split("\n")
    rows = [ROW.match(line).groups() for line in lines if line.startswith("kernel = ")]
    best = BEST.match(next(line for line in lines if line.startswith("Best kernel"))).groups()
    command = next(COMMAND.match(line).group(1) for line in lines if COMMAND.match(line))
    return lines, rows, best, command


def columns(row, d):
    kernel, t, psi = row[0], int(row[1]), int(row[2])
    return {"linear": d, "acos": 2 * t}.get(kernel, t * psi)


def command_reproduces(binaries, tmp_path, words, model):
    """The model -W 1 wrote (model, model.ik for a kernel) set aside, the printed command run
    again: the same bytes. A plain choice has no .ik either time."""
    for name in (model, model + ".ik"):
        if (tmp_path / name).exists():
            (tmp_path / name).rename(tmp_path / (name + ".auto"))
    rerun = ol.run([binaries[0]] + words[1:], cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    for name in (model, model + ".ik"):
        assert (tmp_path / name).exists() == (tmp_path / (name + ".auto")).exists(), name
        if (tmp_path / name).exists():
            assert (tmp_path / name).read_bytes() == (tmp_path / (name + ".auto")).read_bytes(), name


def small_dna(data, tmp_path, rows=400):
    """dna's first rows: three classes, 180 binary features, seconds to search."""
    with open(data("dna", "dna.train")) as f:
        head = [next(f) for _ in range(rows)]
    path = tmp_path / "dna400"
    path.write_text("".join(head))
    return str(path)


def test_heart_lines_choice_and_command_reproduce_the_model(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    r = auto(binaries, "-W 1", heart, tmp_path, "m")
    lines, rows, best, command = parsed(r.stdout)
    kinds = [g[0] for g in rows]
    # stage 1: plain linear first, then every kernel of the build at t = 100
    assert kinds[:5] == ["linear", "anne", "iforest", "minmax", "acos"]
    assert all(g[1] == "100" for g in rows[1:5])
    # heart has negative values: minmax runs with -S 2
    assert rows[3][3] == "2"
    # w: 0 in stage 1; stage 2 adds w = 0.3 and 1 for the best two kernels at t = 100, their psi
    assert all(g[4] == "0" for g in rows[:5])
    assert {g[4] for g in rows} <= {"0", "0.3", "1"}
    ranked = sorted(rows[1:5], key=lambda g: -float(g[6]))
    for g in ranked[:2]:
        for w in ("0.3", "1"):
            assert [h[:4] for h in rows[5:] if h[4] == w and h[0] == g[0]] == [g[:4]], (g, w)
    # heart has 270 rows (below the subsample): every line on all rows
    assert all(g[7] == "270" for g in rows)
    # the Best line is one of the candidates, within 0.5 points of the top score, and no
    # candidate within 0.5 points of the top and the best's noise band has fewer columns
    # than it unless it scored below the best's standard error (checked in the unit test)
    assert best[:7] in [g[:7] for g in rows]
    top = max(float(g[6]) for g in rows)
    assert float(best[6]) >= top - 0.5
    assert int(best[8]) == columns(best, 13)
    assert not any("raw-feature weight" in line for line in lines)
    assert lines[-1] == "written: m"
    words = shlex.split(command)
    assert words[-2:] == [str(heart), "m"]
    command_reproduces(binaries, tmp_path, words, "m")


def test_dna_subsample_larger_t_and_reproduced_command(data, binaries, tmp_path):
    dna = small_dna(data, tmp_path)
    r = auto(binaries, "-W 1 -m 2", dna, tmp_path, "dm")
    lines, rows, best, command = parsed(r.stdout)
    # dna's first 400 rows: a raw-feature weight wins (the issue saw dna gain with w = 0.3), so
    # the command below, which reproduces the model, carries -a
    assert best[4] in ("0.3", "1")
    words = shlex.split(command)
    assert words[words.index("-a") + 1] == best[4]
    # the same choice and lines on one thread (w's scaled C walks included)
    one = auto(binaries, "-m 1", dna, tmp_path)
    strip = lambda text: re.sub(r", \d+\.\d s\)", ")", text).split("best model:")[0]
    assert strip(one.stdout) == strip(r.stdout.split("\nwritten:")[0])
    # stage 2 tries the best two kernels of stage 1 at t = 300, at their psi, and at t = 1000
    # only when t = 300 scored above t = 100 (by more than t = 100's standard error, which
    # the lines do not show: tests/unit/test_lik_auto.c checks that half with the folds)
    stage_one = [g for g in rows[1:5]]
    ranked = sorted(stage_one, key=lambda g: -float(g[6]))	# stable: ties keep their order
    for g in ranked[:2]:
        at = {t: [h for h in rows[5:] if h[0] == g[0] and h[1] == t and h[2] == g[2]]
              for t in ("300", "1000")}
        assert len(at["300"]) == 1, g
        assert len(at["1000"]) <= 1
        if float(at["300"][0][6]) <= float(g[6]):
            assert at["1000"] == [], (g, at)
    words = shlex.split(command)
    command_reproduces(binaries, tmp_path, words, "dm")


def test_given_options_fix_the_grid(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    r = auto(binaries, "-t 300 -s 0", heart, tmp_path)
    lines, rows, best, command = parsed(r.stdout)
    assert all(g[1] == "300" for g in rows if g[0] != "linear")
    assert len([g for g in rows if g[0] != "linear"]) >= 3
    words = shlex.split(command)
    assert words[1:3] == ["-s", "0"]
    if best[0] != "linear":
        assert words[words.index("-t") + 1] == "300"


def test_bias_and_seed_pass_to_the_command_which_reproduces_the_model(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    r = auto(binaries, "-t 50 -B 1 -r 3 -W 1", heart, tmp_path, "bm")
    lines, rows, best, command = parsed(r.stdout)
    words = shlex.split(command)
    assert words[words.index("-B") + 1] == "1" and words[words.index("-r") + 1] == "3"
    command_reproduces(binaries, tmp_path, words, "bm")


@pytest.mark.parametrize("options,message", [
    ("-k auto", "-k auto needs -C"),
    ("-C -s 11 -k auto", "-s 2 (the default) or -s 0 only"),
    ("-C -s 1 -k auto", "-s 2 (the default) or -s 0 only"),
    ("-C -k auto -E 1", "-E 1 cannot be used with -k auto"),
])
def test_refused(options, message, data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    r = ol.run([binaries[0]] + options.split() + [heart, "m"], cwd=tmp_path)
    assert r.returncode == 1
    assert message in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_tiny_budget_stops_with_a_valid_best_and_says_what_it_skipped(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    r = auto(binaries, "-T 0 -W 1", heart, tmp_path, "m")
    lines, rows, best, command = parsed(r.stdout)
    assert [g[0] for g in rows] == ["linear"]
    assert best[0] == "linear"
    note = next(line for line in lines if line.startswith("note: the time budget stopped"))
    for kernel in ("anne", "iforest", "minmax", "acos"):
        assert f"stage 1 {kernel}" in note
    # the model it wrote is the plain one that its command trains
    assert (tmp_path / "m").exists() and not (tmp_path / "m.ik").exists()
    assert "-k" not in shlex.split(command)


def test_same_choice_at_one_and_two_threads(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    outs = []
    for m in ("1", "2"):
        r = auto(binaries, f"-m {m}", heart, tmp_path)
        # everything but the seconds and the -m in the printed command
        text = re.sub(r", \d+\.\d s\)", ")", r.stdout).replace(f"-m {m} ", "")
        outs.append(text)
    assert outs[0] == outs[1]


def test_given_weight_fixes_every_kernel_candidate_and_the_command_carries_it(data, binaries, tmp_path):
    heart = data("heart", "heart.all")
    r = auto(binaries, "-a 0.3 -W 1", heart, tmp_path, "am")
    lines, rows, best, command = parsed(r.stdout)
    assert all(g[4] == ("0" if g[0] == "linear" else "0.3") for g in rows)
    words = shlex.split(command)
    if best[0] == "linear":
        assert "-a" not in words	# plain linear refuses -a
    else:
        assert words[words.index("-a") + 1] == "0.3"
        assert int(best[8]) == columns(best, 13) + 13	# the raw features' 13 columns
    command_reproduces(binaries, tmp_path, words, "am")


@pytest.mark.parametrize("w", [0.0, 0.3, 1.0, 3.0])
def test_raw_features_scale_where_the_kernel_c_walk_starts(w, data, binaries, tmp_path):
    """-C -k (and so -k auto's walks): with raw features the rows' squared norms are 1 + w^2
    ||x'||^2, not 1, so the walk's first C, 2^-6 for norm-1 rows, is divided by their mean
    rounded to a power of two. Recomputed here from heart's values (-S 1 for anne: each
    feature divided by its max |x| over the rows)."""
    import math
    heart = data("heart", "heart.all")
    rows = []
    with open(heart) as f:
        for line in f:
            rows.append({int(k): float(v) for k, v in (p.split(":") for p in line.split()[1:])})
    top = {}
    for r in rows:
        for k, v in r.items():
            top[k] = max(top.get(k, 0.0), abs(v))
    mean = sum(1 + sum((w * v / (top[k] or 1.0)) ** 2 for k, v in r.items()) for r in rows) / len(rows)
    unit = round(math.log2(mean)) if w > 0 else 0
    options = ["-C", "-k", "anne", "-g", "16", "-V", "1"] + (["-a", str(w)] if w > 0 else [])
    r = ol.run([binaries[0]] + options + [heart], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    first = next(line for line in r.stdout.split("\n") if line.startswith("log2c="))
    assert float(first.split()[1]) == -6 - unit, (first, mean)
