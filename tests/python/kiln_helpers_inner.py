"""The second level of kiln_helpers.py's imports: a @jit helper and a constant of a third file."""
import kiln

INNER_BIAS = 100


@kiln.jit
def inner_scale(x):
    return x * 10
