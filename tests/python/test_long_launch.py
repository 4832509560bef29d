"""An interpreter launch whose grid will take minutes says so within a quarter of a second, as a
kiln.LongLaunchWarning at the launch's line (issue 17: a launch absurdly large for the interpreter says so
up front); the run goes on (Ctrl-C stops it), unless a warning filter makes the warning an error."""
import signal
import time
import warnings

import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def mark(out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + (pid & 63), pid)


class Stop(Exception):
    pass


def test_a_grid_of_minutes_is_announced_and_the_run_goes_on():
    out = np.zeros(64, np.int32)

    def stop(signum, frame):
        raise Stop()

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 1.0)  # ends the run, as Ctrl-C would, after the warning
    try:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            with pytest.raises(Stop):
                mark[(2**31,)](out)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    [w] = [w for w in rec if w.category is kiln.LongLaunchWarning]
    assert str(w.message).startswith("kernel 'mark': the interpreter runs 2147483648 programs for this launch at about ")
    assert " programs/s, so it will take about " in str(w.message)
    assert w.filename == __file__


def test_as_an_error_the_warning_stops_the_launch_at_once():
    out = np.zeros(64, np.int32)
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.LongLaunchWarning)
        with pytest.raises(kiln.LongLaunchWarning, match="runs 2147483648 programs"):
            mark[(2**31,)](out)
    assert time.monotonic() - start < 5


def test_a_short_launch_says_nothing():
    out = np.zeros(64, np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.LongLaunchWarning)
        mark[(100000,)](out)
    assert out[63] == 99967
