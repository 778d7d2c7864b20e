"""What a numba parallel loop costs to compile: ``python experiments/prange_compile.py [--lines N]``.

Question: why does the package share its batches among Python threads (``four21sim/_util/threads.py``)
instead of numba's ``parallel=True``? A synthetic kernel of ``N`` lines of arithmetic is compiled
alone, then called from a serial loop and from a ``prange`` loop (each compiled after it, in one
process, with no disk cache): if the ``prange`` loop took about the time of the serial one, a
parallel loop around a large kernel would cost nothing more to compile.

Measured on 2026-12-07 (2 cores, numba 0.68.1, ``--lines 300``): the kernel 18.2 s, the serial loop
4.2 s, the ``prange`` loop 61.1 s: the parallel region compiles what it calls again. Prints the three
times, in seconds of wall clock.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=300, help="lines of arithmetic in the kernel (default 300)")
    args = p.parse_args()
    body = "\n".join(f"        s += np.sin(a[(b + {i}) % a.shape[0]]) * {i}.5 + np.cos(s) * a[{i} % a.shape[0]]"
                     for i in range(args.lines))
    src = f"""
def inner(a, b):
    s = 0.0
    for k in range(3):
{body}
    return s


def serial(a, out):
    for b in range(out.shape[0]):
        out[b] = inner(a, b)


def parallel(a, out):
    for b in numba.prange(out.shape[0]):
        out[b] = inner(a, b)
"""
    space = {"np": np, "numba": numba}
    exec(compile(src, "<synthetic kernel>", "exec"), space)  # the kernel's text is this script's own
    inner = numba.njit(space["inner"])
    space["inner"] = inner
    serial = numba.njit(space["serial"])
    parallel = numba.njit(parallel=True)(space["parallel"])
    a = np.ones(3)
    for name, call in (("kernel", lambda: inner(a, 0)), ("serial loop", lambda: serial(a, np.zeros(4))),
                       ("prange loop", lambda: parallel(a, np.zeros(4)))):
        t = time.perf_counter()
        call()
        print(f"{name:12s} {time.perf_counter() - t:6.1f} s to compile")


if __name__ == "__main__":
    main()
