"""Test-session settings shared by every test file."""

import os
import tempfile

# Solutions cached on disk (four21sim.exact.store) go to a folder of this session's own, inherited
# by the command lines the tests start: a stale or damaged cache of the user's can neither
# help nor break a test, and the suite leaves nothing behind in the user's cache.
_CACHE = tempfile.TemporaryDirectory(prefix="four21sim-test-cache-")
os.environ["FOUR21SIM_CACHE_DIR"] = _CACHE.name
