"""Comparing what a snippet emitted in upstream's environment and in ours."""
import math
import re

NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?")


def numbers_close(a, b, rel, abs_):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def assert_close(upstream, ours, rel=1e-9, abs_=1e-12, path="result"):
    """Same structure, same strings and ints-as-labels, floats within rel/abs."""
    if isinstance(upstream, dict):
        assert isinstance(ours, dict), "%s: upstream %r, ours %r" % (path, upstream, ours)
        assert sorted(upstream) == sorted(ours), "%s: keys %s != %s" % (path, sorted(upstream), sorted(ours))
        for key in upstream:
            assert_close(upstream[key], ours[key], rel, abs_, "%s[%r]" % (path, key))
    elif isinstance(upstream, list):
        assert isinstance(ours, list) and len(upstream) == len(ours), \
            "%s: upstream %r, ours %r" % (path, upstream, ours)
        for i, (u, o) in enumerate(zip(upstream, ours)):
            assert_close(u, o, rel, abs_, "%s[%d]" % (path, i))
    elif isinstance(upstream, bool) or upstream is None:
        assert upstream == ours, "%s: upstream %r, ours %r" % (path, upstream, ours)
    elif isinstance(upstream, (int, float)) and not isinstance(ours, bool) and isinstance(ours, (int, float)):
        assert numbers_close(upstream, ours, rel, abs_), "%s: upstream %r, ours %r" % (path, upstream, ours)
    else:
        assert upstream == ours, "%s: upstream %r, ours %r" % (path, upstream, ours)


def shape_of_text(text):
    """The text with every number replaced by #: the format, without the values."""
    return NUMBER.sub("#", text)
