"""What a command may say on stderr however long its work takes: the waiting notices.

A command says when a wait lasts longer than ``four21sim._util.waiting.AFTER`` seconds: numba
compiling a kernel the first time (an empty numba cache), an exact solve (an empty solution
cache). Whether a notice appears thus depends on the caches and on how busy the machine is,
never on the command's correctness: a test that wants "nothing else on stderr" checks
``without_notices(stderr) == ""``, which holds with the notices and without them, and still
fails on any other line (a warning, a traceback, a second copy of a message).
"""

from __future__ import annotations

import re

# The notices' texts, as four21sim/_util/waiting.py (compiling), four21sim/cli/solve.py (solving) and
# four21sim/exact/nplayer.py (checking a disk-cache entry) word them: one line each, the command's name first,
# " ..." last.
NOTICE = re.compile(r"[a-z]+: (compiling the engine's kernels with numba \(|solving |checking the stored equilibrium "
                    r"|computing seat \d+'s exact best response ).* \.\.\.")


def without_notices(stderr: str) -> str:
    """``stderr`` with its waiting notices (whole lines) taken out; everything else kept as it was."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not NOTICE.fullmatch(line.rstrip("\n")))
