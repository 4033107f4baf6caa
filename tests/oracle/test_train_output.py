"""What train prints while it trains, against upstream's log for the same
setting: the same lines in the same order, up to the numbers in them and
the length of the progress runs (iteration counts differ with the random
order of the dual solvers). This covers each solver's final report
(Objective value, nSV, #nonzeros/#features, rho, Newton's iter lines) and
the warnings and switches at the iteration cap."""
import re

import pytest

from cases import DEFAULT_CASES, HEART, OTHER_DEFAULT_CASES, SWITCH_CASES
from oracle_lib import Case

NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
# The dual solvers -s 3 and 13 only warn at their cap.
CAP_WARNING_CASES = [Case(*HEART, 3, "-c 1000"), Case(*HEART, 13, "-c 100")]
# Multi-class -s 1 may switch in a different class on each side (random
# order), so its log is compared where it does not cap.
LOG_CASES = ([c for c in DEFAULT_CASES if c.dataset == "heart"] + OTHER_DEFAULT_CASES
    + SWITCH_CASES + CAP_WARNING_CASES)

SWITCHED_TO = {1: 2, 7: 0, 12: 11}
FASTER_WITH = {3: 2, 13: 11}


def log_shape(log):
    """The log's lines with every number replaced by '#' and runs of spaces
    by one (numbers are padded to a width), lines of progress marks '.' and
    '*' emptied (a run under 10 iterations prints none, leaving the empty
    line before 'optimization finished'), and repeated lines (Newton's iter
    lines, for instance) collapsed to one."""
    shape = []
    for line in log.split("\n"):
        line = "" if set(line) <= {".", "*"} else re.sub(" +", " ", NUMBER.sub("#", line))
        if not shape or shape[-1] != line:
            shape.append(line)
    return shape


@pytest.mark.parametrize("case", LOG_CASES, ids=str)
def test_training_log_has_upstreams_lines(case, trained):
    t = trained(case)
    assert log_shape(t.ours_log) == log_shape(t.up_log)


@pytest.mark.parametrize("case", SWITCH_CASES, ids=str)
def test_switch_to_primal_message(case, trained):
    """At the cap -s 1, 7 and 12 print upstream's two lines and rerun the
    primal Newton solver, which prints its init line next."""
    block = ("\nWARNING: reaching max number of iterations\n"
        f"Switching to use -s {SWITCHED_TO[case.solver]}\n\ninit f ")
    t = trained(case)
    assert block in t.up_log
    assert block in t.ours_log


@pytest.mark.parametrize("case", CAP_WARNING_CASES, ids=str)
def test_cap_warning_suggests_primal_solver(case, trained):
    block = ("\nWARNING: reaching max number of iterations\n"
        f"Using -s {FASTER_WITH[case.solver]} may be faster (also see FAQ)\n\n")
    t = trained(case)
    assert block in t.up_log
    assert t.ours_log.endswith(block)
