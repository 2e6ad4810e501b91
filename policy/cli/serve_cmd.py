"""`policy serve`: the service (policy.server), started from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from policy.cli._output import error
from policy.errors import PolicyError


def _say_listening(addresses: list[str]) -> None:
    sys.stderr.write("policy serve: listening on " + ", ".join(addresses) + "\n")


def run(args: argparse.Namespace) -> int:
    from policy.hosts._hook_process import read_settings, with_packs
    from policy.server.logs import configure
    from policy.server.run import ServeError, serve
    from policy.service_settings import default_socket, is_loopback, parse_listen

    json_lines = {"auto": None, "json": True, "console": False}[args.log_format]
    if json_lines is None:
        json_lines = not sys.stderr.isatty()
    configure(json_lines=json_lines)
    try:
        settings = with_packs(read_settings(args.config), args.packs)
        if args.config:
            # the service's own settings file is part of its policy, as $POLICY_CONFIG is
            settings = settings.model_copy(
                update={"protected_paths": [*settings.protected_paths, Path(args.config)]}
            )
        service = settings.service
        socket_path = Path(
            args.socket
            or (service.socket if service is not None and service.socket else None)
            or default_socket(settings.data_dir)
        )
        http_text = args.http or (service.http if service is not None else None)
        http = None
        if http_text is not None:
            http = parse_listen(http_text)
            remote = service is not None and service.allow_remote_http
            if args.http and not remote and not is_loopback(http[0]):
                error(
                    f"--http {args.http} is not a loopback address; set service.allow_remote_http"
                    " in the settings to serve decisions beyond this machine"
                )
                return 2
        mode = int(args.socket_mode, 8) if args.socket_mode else 0o600
        approvers = args.approver_socket or (
            service.approver_socket if service is not None else None
        )
        return serve(
            settings,
            socket_path=socket_path,
            http=http,
            socket_mode=mode,
            approver_socket=Path(approvers) if approvers else None,
            watch=args.watch or (service is not None and service.watch),
            # With JSON lines every stderr line is JSON: the `listening` event (with its
            # addresses) is the ready line. A person at a terminal gets a plain one too.
            ready=None if json_lines else _say_listening,
        )
    except (PolicyError, ServeError, ValueError) as exc:
        error(str(exc))
        return 2
