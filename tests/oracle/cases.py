"""The training settings the oracle tests share. Each Case is trained once
per session by each side (the `trained` fixture), whichever tests use it.

heart is trained and tested on all its rows; a9a, dna and satimage on their
official train/test splits (dna has 3 classes, satimage 6: one-vs-rest, or
one Crammer-Singer model for -s 4). There is no regression dataset in
../shared/data (MANIFEST.tsv lists classification sets only), so the
regression solvers learn class labels as real targets, as upstream's own
examples do with heart_scale: +1/-1 for heart and a9a, 1..6 for satimage
(where the SVR epsilon -p matters at every instance)."""
from oracle_lib import Case

HEART = ("heart", "heart.all", "heart.all")
A9A = ("a9a", "a9a.train", "a9a.test")
DNA = ("dna", "dna.train", "dna.test")
SATIMAGE = ("satimage", "satimage.train", "satimage.test")

# ------------------------------------------------------------- -s 0 to 3

# Default options (C = 1, default -e): what users run.
DEFAULT_CASES = [Case(*d, s) for d in (HEART, A9A, DNA, SATIMAGE) for s in (0, 1, 2, 3)]
# The bias feature changes the model file (an extra w row) and the objective.
BIAS_CASES = [Case(*HEART, 0, "-B 1"), Case(*A9A, 1, "-B 1")]
# Tighter -e: the bounds become tight enough to catch a solver that
# converges to the wrong point. C is lowered for the dual solvers where
# upstream would otherwise stop at its 300-iteration cap (then -e implies
# nothing); each setting here converges in well under 300 passes upstream.
TIGHT_CASES = [
    Case(*HEART, 0, "-e 1e-6"),
    Case(*HEART, 1, "-e 0.001"),
    Case(*HEART, 2, "-e 1e-6"),
    Case(*HEART, 3, "-c 0.03 -e 0.003"),
    Case(*A9A, 0, "-e 1e-6"),
    Case(*A9A, 1, "-c 0.1 -e 0.0001"),
    Case(*A9A, 2, "-e 1e-6"),
    Case(*A9A, 3, "-c 0.01 -e 0.001"),
    Case(*DNA, 0, "-e 1e-6"),
    Case(*DNA, 1, "-c 0.1 -e 0.0001"),
    Case(*DNA, 2, "-e 1e-6"),
    Case(*DNA, 3, "-c 0.01 -e 0.001"),
    Case(*SATIMAGE, 0, "-e 1e-6"),
    Case(*SATIMAGE, 1, "-c 0.1 -e 0.0001"),
    Case(*SATIMAGE, 2, "-e 1e-6"),
    Case(*SATIMAGE, 3, "-c 0.01 -e 0.001"),
]

# ------------------------------------------------------------ -s 4 to 21

OTHER_DEFAULT_CASES = (
    [Case(*HEART, s) for s in (4, 5, 6, 7, 11, 12, 13, 21)]
    + [Case(*d, s) for d in (DNA, SATIMAGE) for s in (4, 5, 6, 7)]
    + [Case(*A9A, s) for s in (5, 6, 7, 11, 12, 13)]
    + [Case(*A9A, 21, "-n 0.1"), Case(*SATIMAGE, 11)])
OTHER_BIAS_CASES = [Case(*HEART, s, "-B 1") for s in (4, 5, 6, 7, 11, 12, 13)]
# Tolerances at which every solver converges well before its iteration cap
# on both sides (the -s 13 cap is reached at C = 1 on heart, hence -c 0.1).
OTHER_TIGHT_CASES = [
    Case(*HEART, 4, "-e 0.0001"),
    Case(*HEART, 5, "-e 0.0001"),
    Case(*HEART, 6, "-e 0.0001"),
    Case(*HEART, 7, "-e 0.0001"),
    Case(*HEART, 11, "-e 1e-8"),
    Case(*HEART, 12, "-e 0.0001"),
    Case(*HEART, 13, "-c 0.1 -e 0.0001"),
    Case(*HEART, 21, "-e 0.0001"),
    Case(*DNA, 4, "-e 0.001"),
    Case(*DNA, 5, "-e 0.001"),
    Case(*DNA, 6, "-e 0.001"),
    Case(*DNA, 7, "-e 0.001"),
    Case(*SATIMAGE, 4, "-e 0.001"),
    Case(*SATIMAGE, 5, "-e 0.001"),
    Case(*SATIMAGE, 6, "-e 0.001"),
    Case(*SATIMAGE, 7, "-e 0.001"),
    Case(*SATIMAGE, 11, "-e 1e-6"),
    Case(*SATIMAGE, 12, "-e 0.0001"),
    Case(*SATIMAGE, 13, "-c 0.1 -e 0.0001"),
    Case(*A9A, 6, "-e 0.001"),
    Case(*A9A, 7, "-e 0.001"),
    Case(*A9A, 11, "-e 1e-6"),
    Case(*A9A, 12, "-e 0.0001"),
    Case(*A9A, 13, "-c 0.1 -e 0.001"),
]
# Options beyond -s/-c/-e/-B, at tolerances tight enough to matter.
OPTION_CASES = [
    # -R: the bias weight leaves the regulariser (needs -B 1).
    *[Case(*HEART, s, "-B 1 -R -e 0.0001") for s in (0, 2, 5, 6, 11)],
    Case(*DNA, 0, "-B 1 -R -e 0.0001"),
    Case(*A9A, 6, "-B 1 -R -e 0.001"),
    # -p: the SVR epsilon.
    Case(*HEART, 11, "-p 0.5 -e 1e-8"),
    Case(*HEART, 12, "-p 0.5 -e 0.0001"),
    Case(*HEART, 13, "-c 0.1 -p 0.5 -e 0.0001"),
    Case(*SATIMAGE, 11, "-p 1 -e 1e-6"),
    # -n: the one-class nu.
    Case(*HEART, 21, "-n 0.1 -e 0.0001"),
    Case(*A9A, 21, "-n 0.1 -e 0.001"),
    Case(*DNA, 21, "-n 0.3 -e 0.001"),
    # -wi: two classes, one-vs-rest (class i: weight_i C against plain C)
    # and Crammer-Singer (per-class C).
    Case(*HEART, 6, "-w1 2 -w-1 0.5 -e 0.0001"),
    Case(*HEART, 7, "-w-1 3 -e 0.0001"),
    Case(*DNA, 4, "-w1 2 -w3 0.5 -e 0.001"),
    Case(*DNA, 5, "-w2 3 -c 0.5 -e 0.001"),
    Case(*DNA, 6, "-w1 0.5 -w2 2 -e 0.001"),
    Case(*SATIMAGE, 7, "-w3 4 -e 0.001"),
]
# Dual solvers that reach their iteration cap and switch to the primal
# Newton solver (-s 1 -> 2, 7 -> 0, 12 -> 11), on both sides.
SWITCH_CASES = [
    Case(*HEART, 1, "-c 10 -w1 2 -w-1 0.5"),
    Case(*HEART, 7, "-c 1000"),
    Case(*HEART, 12, "-c 1000"),
]

# Every solver type, as users run them: model files are exchanged both ways.
MODEL_CASES = DEFAULT_CASES + BIAS_CASES + OTHER_DEFAULT_CASES + OTHER_BIAS_CASES
