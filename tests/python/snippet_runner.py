"""Runs one test snippet and writes what it emitted as JSON.

The same snippet runs twice: in the oracle's environment (liblinear-official
2.50), as `ORACLE_PYTHON snippet_runner.py SNIPPET RESULT` in a subprocess,
and in ours, in the test's own process (run_snippet below). A snippet sees
DATA (dataset name -> decompressed file), TMP (a scratch folder), emit(key,
value) and attempt(key, function): attempt records the result, or the
exception's type name and message.

Only the standard library, numpy and the snippet's imports are used here:
this file is imported by neither package.
"""
import json
import math
import sys


def jsonable(value):
    """value as JSON data: tuples and numpy arrays become lists, NaN and inf strings."""
    try:
        import numpy as np
        if isinstance(value, np.ndarray):
            value = value.tolist()
        elif isinstance(value, np.generic):
            value = value.item()
    except ImportError:
        pass
    if isinstance(value, float):
        if math.isnan(value):
            return 'nan'
        if math.isinf(value):
            return 'inf' if value > 0 else '-inf'
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return repr(type(value).__name__)


def run_snippet(code, data, tmp):
    """Executes code; returns {key: JSON value} of what it emitted."""
    results = {}

    def emit(key, value):
        if key in results:
            raise KeyError('emitted twice: ' + key)
        results[key] = jsonable(value)

    def attempt(key, function):
        try:
            value = function()
        except Exception as error:  # the exception is the result being compared
            emit(key, {'raised': type(error).__name__, 'message': str(error)})
            return None
        emit(key, {'returned': jsonable(value)})
        return value

    namespace = {'DATA': data, 'TMP': tmp, 'emit': emit, 'attempt': attempt, '__name__': '__snippet__'}
    exec(compile(code, '<snippet>', 'exec'), namespace)
    sys.stdout.flush()
    return results


if __name__ == '__main__':
    snippet_path, result_path, data_json, tmp = sys.argv[1:5]
    with open(snippet_path) as handle:
        code = handle.read()
    results = run_snippet(code, json.loads(data_json), tmp)
    with open(result_path, 'w') as handle:
        json.dump(results, handle)
