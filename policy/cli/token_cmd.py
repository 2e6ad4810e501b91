"""`policy token NAME --role ROLE`: a new bearer token, and the settings lines that admit it.

The token is printed once, on stdout, for the person it is for; the settings keep only
its SHA-256, so a copy of the service's settings file lets nobody in.
"""

from __future__ import annotations

import argparse
import secrets
import sys

import orjson

from policy.service_settings import token_digest


def run(args: argparse.Namespace) -> int:
    token = "hp_" + secrets.token_urlsafe(32)
    identity: dict[str, object] = {
        "name": args.name,
        "token_sha256": token_digest(token),
        "roles": sorted(set(args.role)),
    }
    if args.approver_name:
        identity["approver_names"] = args.approver_name
    if args.sender:
        identity["senders"] = args.sender
    sys.stdout.write(f"{token}\n")
    sys.stderr.write(
        "# give the token above to its holder only; add this under service.identities in "
        "the settings of policy serve:\n"
        f"  - {orjson.dumps(identity).decode()}\n"
    )
    return 0
