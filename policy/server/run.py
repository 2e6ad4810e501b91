"""Start the service: load the engine once, bind the Unix socket (and HTTP when asked),
serve until SIGTERM/SIGINT, then close the engine and remove the socket.

The socket is created with mode 0600 by default (owner only) under a umask, so no
other user can reach it even for the instant before `chmod`; `socket_mode` widens it
for a group of agents. A socket file left by a service that died is replaced; one a
live service still answers on is not (two services must not share a path).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import sys
import threading
from pathlib import Path
from typing import Any

import uvicorn

from policy.server.peer import ConnectionLimits

__all__ = ["ServeError", "bind_http", "bind_unix", "serve"]


class ServeError(Exception):
    """The service cannot start (a socket it cannot bind, a policy it cannot load)."""


def bind_unix(path: Path, mode: int = 0o600, group: str | None = None) -> socket.socket:
    """A listening Unix socket at `path`, readable and writable per `mode` only (and
    owned by `group`, when given: the approvers' socket)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise ServeError(f"{path} exists and is not a socket: not replacing it")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()  # left by a service that is gone
        else:
            raise ServeError(f"another service is listening on {path}")
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o777 & ~mode)
    try:
        sock.bind(str(path))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {path}: {exc.strerror or exc}") from None
    finally:
        os.umask(old)
    if group is not None:
        import grp

        try:
            gid = int(group) if group.isdigit() else grp.getgrnam(group).gr_gid
            os.chown(path, -1, gid)
        except (KeyError, OSError) as exc:
            sock.close()
            path.unlink(missing_ok=True)
            raise ServeError(f"cannot give {path} to group {group!r}: {exc}") from None
    os.chmod(path, mode)
    sock.listen(1024)
    sock.setblocking(False)
    return sock


def bind_http(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(1024)
    sock.setblocking(False)
    return sock


#: Connections served at once; more get a 503 rather than take the last descriptors.
_MAX_CONNECTIONS = 2048
#: Of those, at most this many over TCP: the rest is the Unix sockets' alone.
_MAX_TCP = 1024
#: Descriptors kept for everything but connections (sockets, stores, the log, imports).
_SPARE_FILES = 64
#: The first file descriptor systemd passes (sd_listen_fds).
_LISTEN_FDS_START = 3


def _inherited_sockets() -> list[socket.socket]:
    """The listening sockets systemd passed (`LISTEN_FDS`, for this pid), if any."""
    if os.environ.get("LISTEN_PID") != str(os.getpid()):
        return []
    count = int(os.environ.get("LISTEN_FDS", "0") or 0)
    for name in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        os.environ.pop(name, None)  # not for our children
    found = []
    for fd in range(_LISTEN_FDS_START, _LISTEN_FDS_START + count):
        sock = socket.socket(fileno=fd)
        sock.setblocking(False)
        found.append(sock)
    return found


def _address(sock: socket.socket) -> str:
    if sock.family == socket.AF_UNIX:
        return f"unix:{sock.getsockname()}"
    host, port = sock.getsockname()[:2]
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}"


def _more_files() -> int:
    """As many file descriptors as the hard limit allows (each connection holds one);
    how many that is."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def connection_limits(files: int) -> ConnectionLimits:
    """The caps for a process that may open `files` descriptors: never more connections
    than descriptors to hold them (an `accept` that fails for want of one stops the
    whole listener for a second, the Unix socket's too), half of them at most over TCP,
    and a quarter of the Unix sockets' share per uid."""
    total = max(16, min(_MAX_CONNECTIONS, files - _SPARE_FILES))
    tcp = min(_MAX_TCP, total // 2)
    return ConnectionLimits(
        total=total, tcp=tcp, per_tcp_peer=max(1, tcp // 4), per_uid=max(1, (total - tcp) // 4)
    )


#: Seconds a stop (SIGTERM, `max_requests`) gives the requests in flight to finish.
_GRACEFUL_SECONDS = 10


class _Server(uvicorn.Server):
    """uvicorn's server, which gives up every wait for approvers the moment it starts to
    stop: a hook waiting for a person must not hold the stop (and with it the restart
    every other agent waits for) until its deadline. Each wait is answered with a
    denial, its request expired."""

    def __init__(
        self,
        config: uvicorn.Config,
        router: Any,
        log: Any,
        max_memory_mb: int | None = None,
        closing: list[Any] | None = None,
        deciders: Any = None,
    ) -> None:
        super().__init__(config)
        self._router = router
        self._log = log
        self._closing = closing if closing is not None else []
        self._deciders = deciders
        self._max_memory = max_memory_mb * (1 << 20) if max_memory_mb is not None else None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        if self._deciders is not None:  # (started before the loop; asked on it)
            await self._deciders.attach()
        await super().startup(sockets)

    async def on_tick(self, counter: int) -> bool:
        """uvicorn's check every 0.1 s (max_requests and the like), and once a second
        the memory cap: past it the service stops, as at `max_requests`, for its
        supervisor to start it again."""
        if await super().on_tick(counter):
            return True
        if self._max_memory is not None and counter % 10 == 0:
            resident = _resident_bytes()
            if resident > self._max_memory:
                self._log.warning(
                    "memory cap reached: stopping for a restart",
                    resident_mb=resident >> 20,
                    cap_mb=self._max_memory >> 20,
                )
                return True
        return False

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        import anyio

        for close in self._closing:  # (live pages would hold the graceful stop)
            close()
        abandoned = await anyio.to_thread.run_sync(
            _abandon_all, self._router, "policy serve is stopping"
        )
        self._log.info("stopping", abandoned_approvals=abandoned)
        await super().shutdown(sockets)
        if self._deciders is not None:  # (after the calls in flight are answered)
            await self._deciders.aclose()


def _resident_bytes() -> int:
    """This process's resident memory (Linux: /proc/self/statm)."""
    with open("/proc/self/statm", "rb") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


class _StopOnSignal:
    """The SIGTERM/SIGINT handler, put in before the service binds or says it is
    listening, so a stop asked for at any moment from then on is a graceful one: it
    asks the server to stop (at once if it is already serving, as soon as it has started
    otherwise) and returns. uvicorn puts in its own handler while it serves, and raises
    the signal again after its graceful stop; this handler takes it then, so the run
    returns and the cleanup after it happens (socket removed, waits expired, engine
    closed) instead of the process dying on the signal. It never raises: an exception
    from a signal handler surfaces wherever the main thread happens to be, and inside
    the import system's weakref callbacks it is printed and dropped, the stop lost with
    it."""

    def __init__(self) -> None:
        self.signalled = False
        self._server: uvicorn.Server | None = None

    def __call__(self, _signum: int, _frame: object) -> None:
        self.signalled = True
        if self._server is not None:
            self._server.should_exit = True

    def serving(self, server: uvicorn.Server) -> None:
        self._server = server
        if self.signalled:
            server.should_exit = True


def _engine_and_reloader(settings: Any, stream: Any, log: Any) -> tuple[Any, Any, Any]:
    """The engines — the service's own and one per `service.policies` team — each on
    its packs on disk or, when they fail to compile and the settings allow it (not
    `service.strict_start`), on the last good set they compiled to, the service then
    degraded; the router that picks one per call; and the reloader that keeps the last
    good sets from now on."""
    from policy.engine import Engine
    from policy.hosts.hosted import build_hosted
    from policy.packs import last_good
    from policy.server.policies import PolicyRouter
    from policy.server.reload import PackReloader

    cache_dir = settings.data_dir / "cache" / "packs"
    service = settings.service
    teams_given = list(service.policies) if service is not None else []
    # Every engine protects every set's packs (no team's agent writes another's) and
    # what the service itself runs on: its secrets and the programs it runs.
    own = _service_files(settings) + [p for team in teams_given for p in team.packs]
    if own:
        settings = settings.model_copy(
            update={"protected_paths": [*settings.protected_paths, *own]}
        )

    def keep(engine: Any) -> None:
        packs = list(engine.settings.packs)
        last_good.keep(packs, engine.settings.cel_engine, cache_dir, engine.loaded_packs)

    errors: list[str] = []

    def made(build: Any, packs: list[Any], team: str) -> Any:
        engine = compiled(build, packs, team)
        # (the service decides many calls: its first ones should not build programs
        # and patterns — docs/performance.md)
        log.info("warmed", policy=team or None, **engine.warm())
        return engine

    def compiled(build: Any, packs: list[Any], team: str) -> Any:
        from policy.packs.diagnostics import PackError

        try:
            return build(None)
        except PackError as exc:
            if service is not None and service.strict_start:
                raise
            aliases = _aliases_of(settings)
            recalled = last_good.recall(packs, settings.cel_engine, cache_dir, aliases)
            if recalled is None:
                raise ServeError(
                    f"{exc}\nand there is no last good set of these packs to serve instead "
                    "(none compiled by this version of hookpolicy: docs/service.md"
                    "#hot-reload-keeping-the-last-good-set)"
                ) from None
            error = f"policy {team}: {exc}" if team else str(exc)
            errors.append(error)
            engine = build(recalled)
            log.error(  # noqa: TRY400 - the error is the pack's, its diagnostics are the message
                "the packs on disk fail to compile: serving their last good set, degraded",
                policy=team or None,
                error=str(exc),
                packs=dict(engine.packs),
            )
            engine.note(
                "packs_start_degraded",
                {"policy": team, "error": str(exc)[:4096], "packs": dict(engine.packs)},
            )
            return engine

    default = made(
        lambda loaded: Engine(settings, audit_stream=stream, hosted=build_hosted, loaded=loaded),
        list(settings.packs),
        "",
    )
    teams = []
    try:
        for policy in teams_given:
            packs = _team_packs(settings, policy)
            engine = made(
                lambda loaded, p=packs: default.with_packs(p, loaded=loaded),
                packs,
                policy.name,
            )
            try:
                teams.append(PolicyRouter.resolve(policy, engine))
            except ValueError as exc:
                engine.close()
                raise ServeError(f"service.policies {policy.name!r}: {exc}") from None
    except BaseException:
        for team in teams:
            team.engine.close()
        default.close()
        raise
    router = PolicyRouter(default, teams)
    reloader = PackReloader(
        default, log, keep=keep, error="\n".join(errors), engines=router.engines
    )
    reloader.kept_at_start()
    return default, router, reloader


def _deciders(settings: Any, router: Any, log: Any) -> Any:
    """The deciding processes `service.deciders` asks for, started and ready (None for
    none); ServeError when the settings cannot have them or one does not start."""
    service = settings.service
    size = service.deciders if service is not None else 0
    if not size:
        return None
    memory = [
        name
        for name, uri in (
            ("limits_storage_uri", settings.state_store_uri),
            ("approvals_store", settings.approvals_store_uri),
        )
        if uri.startswith("memory:")
    ]
    if memory:
        raise ServeError(
            f"service.deciders: {', '.join(memory)} is memory://, which each deciding "
            "process would keep apart (a budget counted once per process): use the "
            "SQLite default or Redis, or set service.deciders: 0"
        )
    if settings.audit_path is None:
        raise ServeError(
            "service.deciders: the decision log must be a file (audit_path), which every "
            "deciding process appends to in one hash chain; a stream cannot hold several"
        )
    from policy.server.deciders import DeciderPool

    pool = DeciderPool(size, router.engines, log)
    try:
        pool.start()
    except (OSError, RuntimeError, EOFError, ValueError) as exc:
        raise ServeError(f"service.deciders: {exc}") from None
    log.info("deciding processes ready", pids=pool.pids())
    return pool


def _service_files(settings: Any) -> list[Path]:
    """The files `policy serve` depends on beyond its packs and settings: the inbox's
    session key, the webhooks' secrets, the notification commands' programs. Whoever
    writes one forges sessions, signatures, or runs code as the service."""
    import shutil

    service = settings.service
    if service is None:
        return []
    found: list[Path] = []
    if service.session_secret_file is not None:
        found.append(Path(service.session_secret_file))
    for sink in service.notify:
        if sink.secret_file is not None:
            found.append(Path(sink.secret_file))
        if sink.command:
            program = shutil.which(sink.command[0]) or sink.command[0]
            found.append(Path(program))
            found.extend(Path(a) for a in sink.command[1:] if a.startswith("/"))
    return found


def _team_packs(settings: Any, policy: Any) -> list[Any]:
    """A team's packs: the service's own first (the baseline), unless `extends: false`."""
    own = list(policy.packs)
    if not policy.extends:
        return own
    return [*settings.packs, *(p for p in own if p not in settings.packs)]


def every_pack(settings: Any) -> list[Path]:
    """The packs of the service and of every team (what is watched and checked)."""
    found = [Path(p) for p in settings.packs]
    service = settings.service
    for policy in service.policies if service is not None else []:
        found.extend(Path(p) for p in policy.packs if Path(p) not in found)
    return found


def _aliases_of(settings: Any) -> Any:
    from policy.aliases import DEFAULT_ALIASES

    return DEFAULT_ALIASES.extend(settings.aliases)


def _close_all(router: Any) -> None:
    """Close the teams' engines, then the service's own (whose log they share)."""
    for team in router.teams:
        team.engine.close()
    router.default.close()


def _abandon_all(router: Any, reason: str) -> int:
    return sum(engine.abandon_approvals(reason) for _name, engine in router.engines())


def _notifier(settings: Any, engine: Any, log: Any) -> Any:
    """The approvers' notifications (`service.notify`), told by the approval store."""
    service = settings.service
    if service is None or not service.notify:
        return None
    from policy.server.notify import Notifier

    try:
        notifier = Notifier(service.notify, service.public_url, log)
    except (OSError, ValueError) as exc:
        raise ServeError(f"service.notify: {exc}") from None
    engine.approvals.listen(notifier.tell)
    return notifier


def _reload_on(reloader: Any) -> Any:
    """A SIGHUP handler: the reload runs on a thread of its own (compiling takes long,
    and the signal interrupts the event loop's thread)."""

    def hangup(_signum: int, _frame: object) -> None:
        threading.Thread(
            target=reloader.reload, args=("SIGHUP",), name="hookpolicy-reload", daemon=True
        ).start()

    return hangup


def serve(
    settings: Any,
    *,
    socket_path: Path,
    http: tuple[str, int] | None,
    socket_mode: int = 0o600,
    approver_socket: Path | None = None,
    ready: Any = None,
    watch: bool = False,
) -> int:
    """Run the service until a signal stops it; the exit status.

    `ready(addresses)` is called once both sockets listen (the CLI prints where).
    SIGHUP, `POST /v1/packs/reload` and, with `watch`, a change to a pack file reload
    the packs (policy.server.reload)."""
    if not hasattr(socket, "SO_PEERCRED"):
        # The service decides for the uid the kernel names; without SO_PEERCRED (macOS,
        # the BSDs) it could not tell one agent from another. docs/service.md.
        raise ServeError(
            "policy serve needs Linux's SO_PEERCRED to know who calls its socket; on this "
            "platform run the hooks in process (policy hook ... without --server)"
        )
    from policy.hosts._hook_process import NoPolicyError
    from policy.server.app import create_app
    from policy.server.logs import get_logger
    from policy.server.peer import PeerCredentials, configure_limits

    log = get_logger()
    # Without a decision-log file the decision log is stdout (DESIGN §6); the
    # operational log is stderr.
    stream = sys.stdout if settings.audit_path is None else None
    engine, router, reloader = _engine_and_reloader(settings, stream, log)
    if engine.no_policy:
        _close_all(router)
        raise NoPolicyError(f"no policy to enforce: {engine.no_policy}")
    try:
        notifier = _notifier(settings, engine, log)
    except Exception:
        _close_all(router)
        raise
    try:
        deciders = _deciders(settings, router, log)
    except BaseException:
        if notifier is not None:
            notifier.close()
        _close_all(router)
        raise
    if deciders is not None:
        reloader.changed = deciders.changed
    sockets: list[socket.socket] = []
    inherited = _inherited_sockets()
    owned: list[Path] = []
    service = settings.service
    watching = threading.Event()
    # SIGHUP, what an operator tries first after editing a pack, reloads the packs (its
    # default would kill the service, leaving its socket and its waits behind).
    hangup = signal.signal(signal.SIGHUP, _reload_on(reloader))
    stop = _StopOnSignal()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if inherited:
            # systemd socket activation: the sockets outlive this process, so a restart
            # leaves no moment where the path or the port is free for somebody else.
            sockets = inherited
            addresses = [_address(sock) for sock in sockets]
        else:
            sockets.append(bind_unix(socket_path, socket_mode))
            owned.append(socket_path)
            addresses = [f"unix:{socket_path}"]
            if approver_socket is not None:
                mode = int(service.approver_socket_mode, 8) if service is not None else 0o660
                group = service.approver_socket_group if service is not None else None
                sockets.append(bind_unix(approver_socket, mode, group))
                owned.append(approver_socket)
                addresses.append(f"unix:{approver_socket}")
            if http is not None:
                sockets.append(bind_http(*http))
                addresses.append(_address(sockets[-1]))
        limits = connection_limits(_more_files())
        configure_limits(limits, log)
        if approver_socket is None and inherited and service is not None:
            approver_socket = service.approver_socket  # one of the sockets systemd passed
        app = create_app(
            engine,
            settings,
            approver_socket=f"unix:{approver_socket}" if approver_socket is not None else None,
            reloader=reloader,
            router=router,
        )
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            lifespan="off",
            timeout_keep_alive=5,
            server_header=False,
            date_header=False,
            # Who calls is the kernel's word (PeerCredentials) or a token's, never a
            # header: uvicorn would rewrite a loopback client's address from
            # X-Forwarded-For (its default trusts 127.0.0.1), making a TCP caller look
            # like any Unix-socket uid. A trusted proxy is the service's own setting.
            proxy_headers=False,
            limit_max_requests=settings.service.max_requests if settings.service else None,
            # A backstop only: PeerCredentials refuses past `limits`, with a JSON 503.
            limit_concurrency=limits.total + _SPARE_FILES,
            http=PeerCredentials,
            # In-flight decisions finish; nothing waits for a person past the stop (the
            # waits are abandoned as shutdown starts, below).
            timeout_graceful_shutdown=_GRACEFUL_SECONDS,
        )
        app.state.service.deciders = deciders
        server = _Server(
            config,
            router,
            log,
            settings.service.max_memory_mb if settings.service else None,
            closing=app.state.service.closing,
            deciders=deciders,
        )
        log.info(
            "listening",
            addresses=addresses,
            packs=sorted(engine.packs),
            degraded=reloader.error or None,
            connections={"total": limits.total, "tcp": limits.tcp, "per_uid": limits.per_uid},
        )
        watched = every_pack(settings)
        if watch and watched:
            from policy.server.reload import foreign_writers, watch_packs

            writable = foreign_writers(watched)
            if writable:
                log.warning(
                    "watched packs are writable by another user than the service's: "
                    "whoever can write them changes what it enforces",
                    paths=writable[:20],
                )
            if not watch_packs(watched, reloader.reload, watching, log):
                log.warning("the pack watches are not in place yet: a change may be missed")
        if ready is not None:
            ready(addresses)
        stop.serving(server)  # (a signal before now stops it as soon as it has started)
        server.run(sockets=sockets)
    finally:
        # The stop handler stays until the cleanup is done (a second SIGTERM, or a
        # SIGHUP, in the middle of it would otherwise end the process with its socket
        # and its waits left behind; a reload now would swap an engine being closed).
        signal.signal(signal.SIGHUP, stop)
        try:
            watching.set()
            if deciders is not None:
                deciders.close()
            if notifier is not None:
                notifier.close()
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.close()
            for path in owned:
                with contextlib.suppress(OSError):
                    if path.is_socket():
                        path.unlink()
            abandoned = _abandon_all(router, "policy serve stopped")
            _close_all(router)
            log.info("stopped", abandoned_approvals=abandoned)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            signal.signal(signal.SIGHUP, hangup)
    return 0
