"""`policy replay`: logged decisions decided again against other packs (run.py), from
the records the decision log and its capture keep (records.py)."""

from policy.replay.run import Change, Example, Report, replay

__all__ = ["Change", "Example", "Report", "replay"]
