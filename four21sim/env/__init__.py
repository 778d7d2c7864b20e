"""Multi-agent and single-agent environments of 421 (docs/environment.md).

- :func:`env` (and :class:`raw_env`): the PettingZoo AEC environment, n players, every
  variant, legal-action masks, seeded, rewards at the end (−1 to the payer by default);
- :class:`SingleAgentEnv`: a Gymnasium environment for one learner against fixed
  opponents (any registered policy, or a plugged-in Python policy).

Both play the game of :class:`four21sim.advice.play.Game`: the rules kernel and the
engine's random stream. They need the ``env`` extra: ``pip install 'four21sim[env]'``.
"""

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("four21sim.env needs PettingZoo and Gymnasium: pip install 'four21sim[env]' "
                      f"(missing: {exc.name})") from exc

from .aec import REWARDS, env, raw_env
from .observation import BLOCKS, N_ACTIONS, observation_size
from .single import SingleAgentEnv

__all__ = ["env", "raw_env", "SingleAgentEnv", "REWARDS", "BLOCKS", "N_ACTIONS", "observation_size"]
