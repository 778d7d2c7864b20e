"""Keep/reroll policies: the registry of named policies (:mod:`.registry`), the tables the
engine reads (:mod:`.tables`, :mod:`.contexts`), one builder per habit (:mod:`.heuristics`)
exact solutions as tables (:mod:`.optimal`), and exact best responses to named
policies (:mod:`.against`)."""

from .against import against_names, best_response, evaluate_lineup
from .heuristics import median_hand
from .registry import (
                       ALIASES,
                       HABITS,
                       POLICY_NAMES,
                       REGISTRY,
                       TABLE_POLICIES,
                       PolicySpec,
                       canonical_name,
                       check_available,
                       compile_decider,
                       compile_policy,
                       evaluate,
                       policies_for,
                       policy_help,
                       resolve_policies,
)
from .tables import KEEP_DTYPE, Policy, check_policy, table_policy

__all__ = ["Policy", "PolicySpec", "REGISTRY", "POLICY_NAMES", "TABLE_POLICIES", "HABITS", "ALIASES", "KEEP_DTYPE",
           "canonical_name", "compile_policy", "compile_decider", "check_available", "resolve_policies", "table_policy",
           "check_policy",
           "evaluate", "policies_for", "policy_help", "median_hand", "best_response", "evaluate_lineup",
           "against_names"]
