"""The public entry point: an Engine decides calls through the chain and logs each decision.

Every public method is one decision: it canonicalises the input, runs the plan
for its point (see `chain`), writes one decision-log line and tells observers.
A decision that cannot be logged is turned into a denial (no decision without a
log line). Sync methods need no event loop; `a`-prefixed twins are coroutines.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from policy import _lazy_dataclass
from policy import hosting as policy_hosting
from policy._invoke import Invoker, call_inline
from policy._logger import logger
from policy._observers import ObserverDispatcher
from policy.aliases import DEFAULT_ALIASES, AliasConflictError, AliasTable
from policy.approval_stage import ApprovalStage
from policy.audit import DecisionLog, capture_settings, new_decision_id, rotation_of
from policy.builtins.contract_sessions import ContractRegistry
from policy.builtins.respond_guard import RespondGuard
from policy.chain import (
    Chain,
    Normalizer,
    Outcome,
    Registration,
    Step,
    Timeouts,
    approvers_for,
    intercept_inline,
    intercept_plan,
    make_registration,
)
from policy.errors import (
    EngineClosedError,
    HardAborted,
    InputError,
    ReloadError,
    SettingsError,
    TurnAborted,
)
from policy.facts import FactsContext, forget_last_call, protected_paths
from policy.hooks import FailurePolicy, HookSource
from policy.identity import CallNormalizer, keep_identity, normalize_request
from policy.model import POINTS, Action, ApprovalGate, Decision, HookPoint, PointSpec, ToolCall
from policy.rejudge import Rejudge, mode_of

if TYPE_CHECKING:
    from policy.approvals.store import ApprovalStore
    from policy.builtins import BuiltinSpec
    from policy.builtins.approval import ApprovalGates
    from policy.hosting import HostedBuilder
    from policy.model.payloads import (
        ApprovalDecision,
        Event,
        LLMRequest,
        LLMResponse,
        Prompt,
        ToolResult,
    )
    from policy.packs import LoadedPacks
    from policy.settings import Settings

__all__ = ["Engine"]


log = logger("policy.engine")

#: The packs (name -> `revision@digest`) of the chain snapshot the decision being made
#: in this context started on: what its log line names, whatever a reload put in place
#: since (`Engine.reload_packs`).
_DECIDING_WITH: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "hookpolicy_deciding_with"
)

# Enum attribute lookups cost ~0.1 µs each; the hot path reads these instead.
_BEFORE_TOOL = HookPoint.BEFORE_TOOL
_AFTER_TOOL = HookPoint.AFTER_TOOL
_APPROVE_TOOL = HookPoint.APPROVE_TOOL
_PASSED = frozenset({Action.CONTINUE, Action.MODIFY})
_RESPOND = Action.RESPOND
_MODIFY = Action.MODIFY

ToolExecutor = Callable[[ToolCall], "ToolResult | str"]
AsyncToolExecutor = Callable[[ToolCall], "Awaitable[ToolResult | str] | ToolResult | str"]
#: What the tool cycle (`Engine._tool_cycle`) asks its driver to do next.
_APPROVE, _EXECUTE, _AFTER = "approve", "execute", "after"
_CycleStep = tuple[Any, ...]


def _warm_packs(hooks: Iterable[object]) -> tuple[int, int, int, int]:
    """`CompiledPack.warm` of each compiled pack among `hooks`, within one budget
    (`WARM_BUDGET` characters of CEL, `WARM_CONDITIONS` conditions): (programs,
    conditions, packs that failed to, the characters used). A
    pack whose program fails to build now is left as it was: the calls that need the
    program build it, and fail, as they would have."""
    from policy.packs.runtime import WARM_BUDGET, WARM_CONDITIONS, CompiledPack

    programs = conditions = failed = 0
    budget = [WARM_BUDGET, WARM_CONDITIONS]
    for hook in hooks:
        if isinstance(hook, CompiledPack):
            try:
                built = hook.warm(budget)
            except Exception:  # noqa: BLE001 - see above: no decision depends on it
                failed += 1
                continue
            programs += built[0]
            conditions += built[1]
    return programs, conditions, failed, WARM_BUDGET - budget[0]


def _denied_content(prefix: str, reason: str) -> str:
    """PicoClaw's wording of a denial, as the model sees it."""
    return f"{prefix}: {reason}" if reason else prefix


class Engine:
    """Hooks, packs and builtins in one chain, with the decision log.

    `Engine()` reads settings from the environment and `$POLICY_CONFIG`;
    `Engine(settings=Settings(...))` takes them as given. Close it (or use it
    as a context manager) to flush the log and stop its threads.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        audit_stream: IO[Any] | None = None,
        hosted: HostedBuilder | None = None,
        clock: Callable[[], float] | None = None,
        loaded: LoadedPacks | None = None,
        _sharing: Engine | None = None,
    ) -> None:
        """`loaded`: the packs already compiled (a service's last good set,
        policy.packs.last_good), in place of compiling those the settings name.
        `clock` is the time the packs and builtins decide in, in epoch seconds: CEL's
        `now`, rate-limit windows, contract expiry and runtime. None: the system clock.
        `policy replay` gives each logged call its record's time; with a clock, rate
        limits need a SQLite state store (limits' other stores read the system clock)."""
        if settings is None:
            from policy.settings import load_settings  # pydantic-settings: ≈ 110 ms

            settings = load_settings()
        self.settings = settings
        s = self.settings
        #: A hook's `allow` (`Decision.allowed_by`) reaches the decision: setting
        #: `claude_hooks_allow` (`ignore`: only our packs grant, as before).
        self._hooks_allow = s.claude_hooks_allow == "pass"
        self._timeouts = Timeouts(
            observer=s.observer_timeout_ms / 1000,
            interceptor=s.interceptor_timeout_ms / 1000,
            approval=s.approval_timeout_ms / 1000,
        )
        try:
            self._aliases = DEFAULT_ALIASES.extend(s.aliases)
        except AliasConflictError as exc:
            raise SettingsError(f"invalid settings:\n  aliases: {exc}") from None
        self._packs: dict[str, str] = {}
        self._chain = Chain()
        #: The chain's hooks that came from the packs (compiled packs and the builtins
        #: they configure): what `reload_packs` replaces.
        self._from_packs: list[str] = []
        self._builtin_context: Any = None
        self._reloading = threading.Lock()
        #: Set by `warm`: the packs a reload puts in place are warmed before they are.
        self._warmed = False
        pack_hooks: list[object] = []
        builtin_specs: list[BuiltinSpec] = []
        if s.packs:
            if loaded is None:
                from policy.packs import load_packs

                loaded = load_packs(
                    s.packs,
                    cel_engine=s.cel_engine,
                    aliases=self._aliases,
                    cache_dir=s.data_dir / "cache" / "packs" if s.pack_cache else None,
                )
            self._aliases = loaded.aliases
            self._packs = loaded.revisions
            pack_hooks = loaded.hooks
            builtin_specs = loaded.builtins
            for warning in loaded.warnings:
                log.warning("%s", warning)
        self._loaded = loaded if s.packs else None
        #: What a rewrite of a call keeps (policy.identity): handed to the chain, which
        #: applies it to every modify without calling back into the engine.
        self._normalize_call = CallNormalizer(self._aliases)
        self._canonical = self._normalize_call.canonical
        self._invoker = Invoker(s.hook_workers)
        self._observers = ObserverDispatcher(
            self._invoker, self._timeouts.observer, s.observer_queue_size
        )
        if audit_stream is None and s.audit_path is None:
            audit_stream = sys.stdout if s.audit_stream == "stdout" else sys.stderr
        capture_dir, capture_retention = capture_settings(
            s.audit_capture_dir,
            s.audit_capture_retention,
            capture_args=s.audit_capture_args,
            data_dir=s.data_dir,
        )
        #: Whether the log, the approval store and the contracts are this engine's own
        #: to close (not an engine `with_packs` made, which shares its maker's).
        self._owner = _sharing is None
        self._audit: DecisionLog
        if _sharing is not None:
            self._audit = _sharing._audit
        else:
            self._audit = DecisionLog(
                path=s.audit_path,
                stream=audit_stream,
                key=s.audit_key_bytes,
                workspace=s.workspace,
                capture_dir=capture_dir,
                capture_retention=capture_retention,
                rotation=rotation_of(s),
            )
        self._closed = False
        #: Contracts attached to sessions at run time (`contracts.attach(session, {...})`).
        self.contracts: ContractRegistry = (
            _sharing.contracts
            if _sharing is not None
            else ContractRegistry(clock=clock, state_uri=s.state_store_uri)
        )
        self._clock = clock
        #: The approval stage: the store, the gates, giving up (policy.approval_stage).
        self._approval: ApprovalStage = ApprovalStage(
            s,
            self._timeouts.approval,
            self._audit,
            lambda: self._packs,
            lambda: self._chain.snapshot,
            lender=_sharing._approval if _sharing is not None else None,
        )
        #: The packs and builtins judge a rewritten call or output again (policy.rejudge).
        self._rejudge = Rejudge(self._timeouts.interceptor, self._normalize_call, self._canonical)
        # respond_guard (DESIGN §6.5): flag every respond unless a pack says otherwise.
        self._respond_guard = RespondGuard(self._audit.write, self._gates_for, self._covered)
        #: What packs and builtins know that calls do not: the workspace, the
        #: policy's own files (policy.facts).
        self.facts_context = FactsContext(workspace=s.workspace or "", protected=protected_paths(s))
        ruled = [hook for hook in pack_hooks if getattr(hook, "has_rules", True)]
        self._locations: dict[str, str] = {
            rule: where
            for hook in pack_hooks
            for rule, where in getattr(hook, "locations", {}).items()
        }
        together = _read_together()  # (what the packs loaded here read, for their calls' keys)
        for hook in pack_hooks:
            hook.facts_context = self.facts_context  # type: ignore[attr-defined]
            hook.clock = clock  # type: ignore[attr-defined]
            hook.read_together = together  # type: ignore[attr-defined]
        for hook in ruled:  # a pack of builtins only joins no stage
            self._from_packs.append(self._add(hook, trusted=True))
        if builtin_specs:
            self._add_builtins(builtin_specs)
        self._chain.swap((), (), self._packs)  # (the snapshot names the packs it holds)
        named = self._hosted_names()
        if named:
            self._add_hosted(hosted or policy_hosting.builder)
        #: Why this engine enforces nothing ("" when packs, builtins or hosted hooks
        #: give it a policy); adapters refuse every call then (fail closed).
        self.no_policy = _no_policy(s, ruled, builtin_specs, named)

    @classmethod
    def from_paths(
        cls,
        paths: Iterable[str | PathLike[str]],
        settings: Settings | None = None,
        **kwargs: Any,
    ) -> Engine:
        """An engine with the rule packs at `paths` (files or directories)."""
        if settings is None:
            from policy.settings import load_settings

            settings = load_settings()
        base = settings
        merged = base.model_copy(update={"packs": [Path(p) for p in paths]})
        return cls(merged, **kwargs)

    # ------------------------------------------------------------ registration

    def register(
        self,
        hook: object,
        *,
        name: str | None = None,
        priority: int | None = None,
        failure_policy: FailurePolicy | None = None,
        inline: bool | None = None,
        timeout_ms: int | None = None,
        source: HookSource | None = None,
        replace: bool = False,
    ) -> str:
        """Add a code hook to the chain; returns its name.

        Keyword arguments override the hook's own attributes of the same name.
        A name already in the chain is an error unless `replace=True`, which
        closes the old hook (if it has `close()`) as PicoClaw does.
        """
        self._check_open()
        return self._add(
            hook,
            name=name,
            priority=priority,
            failure_policy=failure_policy,
            inline=inline,
            timeout_ms=timeout_ms,
            source=source,
            replace=replace,
        )

    def _add(
        self,
        hook: object,
        *,
        name: str | None = None,
        priority: int | None = None,
        failure_policy: FailurePolicy | None = None,
        inline: bool | None = None,
        timeout_ms: int | None = None,
        source: HookSource | None = None,
        replace: bool = False,
        trusted: bool = False,
    ) -> str:
        """`register`, plus `trusted` for the hooks our compilers built (see Registration)."""
        registration = self._registration(
            hook,
            name=name,
            priority=priority,
            failure_policy=failure_policy,
            inline=inline,
            timeout_ms=timeout_ms,
            source=source,
            trusted=trusted,
        )
        old = self._chain.add(registration, replace=replace)
        if old is not None and old.hook is not hook:
            _close_hook(old)
        return registration.name

    def _registration(
        self,
        hook: object,
        *,
        name: str | None = None,
        priority: int | None = None,
        failure_policy: FailurePolicy | None = None,
        inline: bool | None = None,
        timeout_ms: int | None = None,
        source: HookSource | None = None,
        trusted: bool = False,
    ) -> Registration:
        """`hook` as the chain holds it (not added yet)."""
        if trusted:
            mode_of(hook)  # how it is judged again is checked now, not at its first rewrite
        return make_registration(
            hook,
            name=name,
            priority=priority,
            failure_policy=failure_policy,
            default_failure_policy=self.settings.failure_policy,
            inline=inline,
            timeout_ms=timeout_ms,
            source=source,
            trusted=trusted,
        )

    def _add_builtins(self, specs: list[BuiltinSpec]) -> None:
        """Build and register the packs' builtins; a storage that cannot be reached
        (`limits_storage_uri`) stops the engine, as a bad pack does."""
        from policy.builtins import build

        context = self._builtins_context()
        for spec in specs:
            if spec.name == "respond_guard":
                try:
                    self._respond_guard.configure(spec)
                except SettingsError:
                    self.close()
                    raise
                continue
            if spec.name == "approval":
                continue  # a rule of its pack (packs.compile.approval_rule); gates wait below
            try:
                hook = build(spec, context)
            except Exception as exc:
                self.close()
                raise SettingsError(
                    f"builtin {spec.name!r} of pack {spec.pack!r} cannot start: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            self._from_packs.append(self._add(hook, trusted=True))

    def _builtins_context(self) -> Any:
        """What the packs' builtins are built with — one per engine, kept across
        reloads, so rate-limit counters (its limiters) and contract usage outlive a
        new revision of the packs that count them."""
        if self._builtin_context is None:
            from policy.builtins import BuiltinContext

            self._builtin_context = BuiltinContext(
                aliases=self._aliases,
                log=self._audit,
                contracts=self.contracts,
                limits_storage_uri=self.settings.state_store_uri,
                facts=self.facts_context,
                clock=self._clock,
            )
        return self._builtin_context

    # ------------------------------------------------------------ reloading

    def reload_packs(self) -> Mapping[str, str]:
        """Compile the packs the settings name again and put them in place of the
        current ones, in one step; the packs now enforced (name -> `revision@digest`).

        Decisions already under way finish on the set they started with, and their
        log lines name it. Packs whose files are those in place (the same revisions
        and digests) leave the set as it is. Anything that fails — a pack with
        errors (PackError, with its `file:line:col`), packs that change the tool
        aliases, a builtin that cannot start (ReloadError) — leaves the current set
        in place, untouched.
        Code hooks and hosted hooks stay; so do the builtins' counters."""
        self._check_open()
        s = self.settings
        with self._reloading:
            from policy.packs import load_packs

            loaded = load_packs(
                s.packs,
                cel_engine=s.cel_engine,
                aliases=DEFAULT_ALIASES.extend(s.aliases),
                cache_dir=s.data_dir / "cache" / "packs" if s.pack_cache else None,
            )
            if loaded.revisions == self._packs:
                return dict(self._packs)  # the same files: the set in place stays
            if loaded.aliases != self._aliases:
                raise ReloadError(
                    "the packs change the tool aliases, which the running hooks were "
                    "built with: restart the service to take them"
                )
            ruled = [hook for hook in loaded.hooks if getattr(hook, "has_rules", True)]
            if not (ruled or loaded.builtins or self._hosted_names()):
                raise ReloadError(f"the packs configure no rule and no builtin: {s.packs}")
            registrations, respond = self._registrations_for(loaded, ruled)
            if self._warmed:  # (the calls after the swap find them built)
                _warm_packs(ruled)
            taken = self._chain.swap(self._from_packs, registrations, loaded.revisions)
            self._from_packs = [r.name for r in registrations]
            self._loaded = loaded
            self._packs = dict(loaded.revisions)
            self._locations = {
                rule: where
                for hook in loaded.hooks
                for rule, where in getattr(hook, "locations", {}).items()
            }
            self._respond_guard.reconfigure(respond)
            self.no_policy = ""
            for old in taken:
                _close_hook(old)
            for warning in loaded.warnings:
                log.warning("%s", warning)
            return dict(self._packs)

    def _hosted_names(self) -> bool:
        s = self.settings
        return bool((s.hooks.enabled and s.hooks.processes) or s.claude_hooks)

    def _registrations_for(
        self, loaded: Any, ruled: list[object]
    ) -> tuple[list[Registration], Any]:
        """The chain entries of freshly compiled packs and their builtins, built but
        not added (ReloadError if one cannot be), and the respond guard's section."""
        from policy.builtins import build

        made: list[Registration] = []
        respond = None
        hooks: list[object] = list(ruled)
        together = _read_together()  # (a reload's packs read what they read, not the old ones)
        for hook in loaded.hooks:
            hook.facts_context = self.facts_context
            hook.clock = self._clock
            hook.read_together = together
        context = self._builtins_context()
        for spec in loaded.builtins:
            if spec.name == "respond_guard":
                if respond is not None:
                    raise ReloadError(
                        f"respond_guard is configured by packs {respond.pack!r} and "
                        f"{spec.pack!r}; configure it in one pack"
                    )
                respond = spec
                continue
            if spec.name == "approval":
                continue
            try:
                hooks.append(build(spec, context))
            except Exception as exc:
                raise ReloadError(
                    f"builtin {spec.name!r} of pack {spec.pack!r} cannot start: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
        for hook in hooks:
            try:
                made.append(self._registration(hook, trusted=True))
            except Exception as exc:
                raise ReloadError(f"{hook!r} cannot join the chain: {exc}") from exc
        return made, respond

    def _add_hosted(self, build: HostedBuilder | None) -> None:
        """Start the process hooks and command hooks the settings name, with the builder
        the host layer handed over (policy.hosting).

        They join as PROCESS hooks, after every in-process hook, as in PicoClaw. One
        that cannot start stops the engine: a hook the operator configured and that
        silently does not run would let through what it exists to stop — so does a
        setting that names hosted hooks when no builder was handed over.
        """
        if build is None:
            self.close()
            raise SettingsError(
                "invalid settings:\n  hooks.processes / claude_hooks: this engine was built "
                "without a builder for hosted hooks (pass hosted=policy.hosts.hosted.build_hosted)"
            )
        try:
            hosted = build(self.settings, self._aliases, self._timeouts)
        except BaseException:
            self.close()
            raise
        for index, hook in enumerate(hosted):
            try:
                self._add(hook, source=HookSource.PROCESS)
            except BaseException:
                for started in hosted[index:]:  # the registered ones close with the engine
                    _close_object(started)
                self.close()
                raise

    def unregister(self, name: str) -> bool:
        """Remove a hook (closing it if it has `close()`); False if none had that name."""
        old = self._chain.remove(name)
        if old is None:
            return False
        _close_hook(old)
        return True

    @property
    def hooks(self) -> tuple[object, ...]:
        """Every hook in the chain, in registration order (what `policy.state` asks
        about what they must remember between calls)."""
        return tuple(registration.hook for registration in self._chain.snapshot.ordered)

    def registrations_at(
        self, point: HookPoint | str
    ) -> tuple[tuple[Registration, Any, bool], ...]:
        """The chain at `point` as it runs: (registration, the method called, whether it
        is a coroutine), in order — for tools that walk it (`policy eval --explain`)."""
        return tuple(self._chain.snapshot.at[HookPoint(point)])

    def chain_order(self, point: HookPoint | str) -> tuple[str, ...]:
        """Names of the hooks that run at `point`, in the order they run."""
        return tuple(reg.name for reg, _, _ in self._chain.snapshot.at[HookPoint(point)])

    @property
    def aliases(self) -> AliasTable:
        return self._aliases

    @property
    def audit_head(self) -> str:
        """Hash of the last decision-log line (to anchor the log elsewhere)."""
        return self._audit.head

    @property
    def observer_stats(self) -> Mapping[str, int]:
        return {"dropped": self._observers.dropped, "failures": self._observers.failures}

    # ----------------------------------------------------------------- helpers

    def _check_open(self) -> None:
        if self._closed:
            raise EngineClosedError("this engine was closed")

    def _emit_decision(
        self, point: HookPoint, decision: Decision | ApprovalDecision, call: ToolCall | None
    ) -> None:
        entries = self._chain.snapshot.at[HookPoint.EVENT]
        if entries:
            from policy.model.payloads import Event

            self._observers.emit(
                entries,
                Event(kind="policy.decision", point=point, call=call, decision=decision),
            )

    def _logged(
        self,
        point: HookPoint,
        decision: Decision,
        subject: ToolCall | LLMRequest | LLMResponse | Prompt,
        start: int,
        result: ToolResult | None = None,
        *,
        asked: tuple[Any, ...],
    ) -> Decision:
        """Log `decision` (the capture, when on, keeps `asked`: the point's parts as
        the host asked them); a decision that cannot be logged fails closed."""
        try:
            self._audit.decision(
                point,
                decision,
                subject=subject,
                result=result,
                latency_ns=time.perf_counter_ns() - start,
                packs=_DECIDING_WITH.get(self._packs),
                asked=asked,
            )
        except Exception as exc:  # noqa: BLE001 - whatever stops the log line denies
            log.error("decision not logged, failing closed: %s", exc)  # noqa: TRY400
            decision = decision.replace(
                action=POINTS[point].fail_action,
                reason=f"decision log unavailable: {exc}",
                failure="audit",
                needs_approval=False,
                allowed_by=None,
            )
            if self._audit.capturing:
                # The capture failed, or the log did: the refusal goes to the log without
                # the capture, so an auditor sees it. (The call is refused either way; a
                # log that cannot be written at all is the operational log's to report.)
                with contextlib.suppress(Exception):
                    self._audit.decision(
                        point,
                        decision,
                        subject=subject,
                        result=result,
                        latency_ns=time.perf_counter_ns() - start,
                        packs=_DECIDING_WITH.get(self._packs),
                        asked=None,
                    )
        self._emit_decision(point, decision, subject if isinstance(subject, ToolCall) else None)
        return decision

    # -------------------------------------------------------------- tool calls

    def _start(
        self,
        point: HookPoint,
        payload: Any,
        context: tuple[Any, ...],
        normalize: Normalizer | None,
        call: ToolCall | None,
    ) -> Decision | Generator[Step, Outcome, Decision]:
        """The decision itself when every hook at `point` is inline (they run on the
        caller's thread in both APIs), else the plan for a driver to run."""
        snapshot = self._chain.snapshot
        _DECIDING_WITH.set(snapshot.revisions)
        timeout = self._timeouts.interceptor
        decision_id = new_decision_id()
        if snapshot.inline_only[point]:
            return intercept_inline(
                snapshot,
                point,
                payload,
                context,
                timeout,
                normalize,
                decision_id,
                call,
                call_inline,
            )
        return intercept_plan(
            snapshot,
            point,
            payload,
            context,
            timeout,
            normalize,
            decision_id=decision_id,
            call=call,
        )

    def _intercept(
        self,
        point: HookPoint,
        payload: Any,
        context: tuple[Any, ...],
        normalize: Normalizer | None,
        call: ToolCall | None = None,
    ) -> Decision:
        started = self._start(point, payload, context, normalize, call)
        if isinstance(started, Decision):
            return started
        return self._invoker.drive(started)

    async def _aintercept(
        self,
        point: HookPoint,
        payload: Any,
        context: tuple[Any, ...],
        normalize: Normalizer | None,
        call: ToolCall | None = None,
    ) -> Decision:
        started = self._start(point, payload, context, normalize, call)
        if isinstance(started, Decision):
            return started
        return await self._invoker.adrive(started)

    # The sync and async APIs differ only in how the chain runs (`_intercept` or
    # `_aintercept`); what follows the chain's decision is written once, below.

    def _settle_before_tool(self, decision: Decision, asked: ToolCall) -> Decision:
        """The chain's before_tool decision, completed: a call rewritten after the
        packs and builtins judged it is judged again (policy.rejudge), an approver in the
        chain that covers the final call asks for approval too, and a respond goes to
        the respond guard (which records it, and may refuse it or hold it for a person).
        `asked` is the call as the host asked it."""
        snapshot = self._chain.snapshot
        if decision.action is _MODIFY:
            decision = self._rejudge.call(decision, asked, snapshot)
        if (
            snapshot.at[_APPROVE_TOOL]
            and decision.action in _PASSED
            and not decision.needs_approval
        ):
            final_call = decision.call
            assert final_call is not None
            if approvers_for(snapshot, final_call):
                decision = decision.replace(needs_approval=True)
        if decision.action is _RESPOND:
            decision = self._respond_guard.judge(decision)
        if decision.allowed_by is not None and (
            not self._hooks_allow or decision.needs_approval or decision.action not in _PASSED
        ):
            # A hook's `allow` is passed on only for a call that goes ahead unasked:
            # never past an approval, a re-judgment's ask or a refusal (deny > ask > allow).
            decision = decision.replace(allowed_by=None)
        return decision

    def _conclude_before_tool(self, decision: Decision, call: ToolCall, start: int) -> Decision:
        """Everything after the chain decided before_tool, for both APIs: settled
        (`_settle_before_tool`), then logged and told to observers."""
        decision = self._settle_before_tool(decision, call)
        return self._logged(_BEFORE_TOOL, decision, decision.call or call, start, asked=(call,))

    def _covered(self, call: ToolCall) -> bool:
        """Whether an approver in the chain covers `call` (the respond guard asks)."""
        return bool(approvers_for(self._chain.snapshot, call))

    def _asked(self, call: ToolCall) -> ToolCall:
        """`call` as a decision judges it (canonical), with nothing kept of the last
        call this thread judged: every public method that judges a call is one
        decision, which reads the disk as it is now (policy.facts.forget_last_call)."""
        forget_last_call()
        return self._canonical(call)

    def _decide_before_tool(self, call: ToolCall) -> Decision:
        """The decision alone, without the log line (benchmarks measure this part)."""
        decision = self._intercept(_BEFORE_TOOL, self._asked(call), (), self._normalize_call)
        return self._settle_before_tool(decision, call)

    def before_tool(self, call: ToolCall) -> Decision:
        """Run the before_tool interceptors over `call`.

        `decision.call` is the call to execute; `decision.needs_approval` says
        whether `approve_tool` must run first; `respond` carries the result.
        """
        start = time.perf_counter_ns()
        self._check_open()
        decision = self._intercept(_BEFORE_TOOL, self._asked(call), (), self._normalize_call)
        return self._conclude_before_tool(decision, call, start)

    async def abefore_tool(self, call: ToolCall) -> Decision:
        start = time.perf_counter_ns()
        self._check_open()
        decision = await self._aintercept(
            _BEFORE_TOOL, self._asked(call), (), self._normalize_call
        )
        return self._conclude_before_tool(decision, call, start)

    def gates_for(self, call: ToolCall) -> tuple[ApprovalGate, ...] | Decision:
        """The gates the packs put on `call` (or the packs' refusal of it), judged now:
        what `approve_tool` asks when it is given no `gates`. For a caller that wants the
        judging — the packs' CPU — apart from the waiting (`policy serve`)."""
        return self._gates_for(self._asked(call))

    def _gates_for(self, call: ToolCall) -> tuple[ApprovalGate, ...] | Decision:
        return self._approval.gates_for(call)

    @property
    def gate_stage(self) -> ApprovalGates:
        """The approval stage for gates (policy.builtins.approval), made on first use."""
        return self._approval.gates

    def abandon_approvals(self, reason: str, call: ToolCall | None = None) -> int:
        """Give up on every call waiting for a person in this process, now: expire their
        requests in the store (a late approve is refused: already expired) and log each
        denial. For whoever stops waiting from outside the call — a hook's watchdog,
        the host closing the pipe, a signal ending the process; with `call`, only the
        waits for that call (`policy serve`, whose client hung up). The count expired.
        Without `call` the process is ending: no call is asked about from then on."""
        return self._approval.abandon(reason, None if call is None else self._canonical(call))

    def _conclude_approval(
        self, call: ToolCall, answer: ApprovalDecision, start: int
    ) -> ApprovalDecision:
        """Everything after the approval plan answered, for both APIs: an approver the
        chain stopped waiting for withdraws what it asked, then the answer is logged
        (or, unlogged, turned into a denial) and told to observers."""
        self._approval.withdraw(call, answer)
        elapsed = time.perf_counter_ns() - start
        answer = _lazy_dataclass.replace(
            answer, waited_ms=elapsed / 1e6, decision_id=new_decision_id()
        )
        try:
            self._audit.approval(call, answer, latency_ns=elapsed, packs=self._packs)
        except Exception as exc:  # noqa: BLE001 - whatever stops the log line denies
            log.error("approval not logged, failing closed: %s", exc)  # noqa: TRY400
            answer = _lazy_dataclass.replace(
                answer, approved=False, reason=f"decision log unavailable: {exc}"
            )
            if self._audit.capturing:  # as in `_logged`: the refusal, without the capture
                with contextlib.suppress(Exception):
                    self._audit.approval(
                        call, answer, latency_ns=elapsed, packs=self._packs, capture=False
                    )
        self._emit_decision(HookPoint.APPROVE_TOOL, answer, call)
        return answer

    def approve_tool(
        self,
        call: ToolCall,
        *,
        timeout: float | None = None,
        required: bool = True,
        gates: tuple[ApprovalGate, ...] | None = None,
        defer: bool = False,
    ) -> ApprovalDecision:
        """Ask the approvers that cover `call`, then the people its gates name; the
        first denial wins.

        Call it when `before_tool` said `needs_approval`, passing that decision's
        `gates` (without them the packs are asked again which gates cover `call`).
        `timeout` (seconds) caps every approver's budget for this call. `defer`
        files the gates' requests and denies at once, naming them, instead of
        waiting: the same call retried once a person approved runs. With no
        covering approver and no gate the call is denied, since nobody can
        approve it — unless `required=False`, for hosts that ask about every call
        (PicoClaw's loop): then it is approved, as PicoClaw approves when no
        approver is registered.
        """
        start = time.perf_counter_ns()
        self._check_open()
        call = self._asked(call)
        plan = self._approval.plan(call, timeout, required, gates, defer)
        answer = self._invoker.drive(plan, waiting=True)
        return self._conclude_approval(call, answer, start)

    async def aapprove_tool(
        self,
        call: ToolCall,
        *,
        timeout: float | None = None,
        required: bool = True,
        gates: tuple[ApprovalGate, ...] | None = None,
        defer: bool = False,
    ) -> ApprovalDecision:
        start = time.perf_counter_ns()
        self._check_open()
        call = self._asked(call)
        plan = self._approval.plan(call, timeout, required, gates, defer)
        answer = await self._invoker.adrive(plan, waiting=True)
        return self._conclude_approval(call, answer, start)

    def after_tool(self, call: ToolCall, result: ToolResult) -> Decision:
        """Run the after_tool interceptors; `decision.result` is what the model sees."""
        start = time.perf_counter_ns()
        self._check_open()
        asked = (call, result)
        call = self._asked(call)
        decision = self._intercept(HookPoint.AFTER_TOOL, result, (call,), None, call)
        if decision.action is _MODIFY:
            decision = self._rejudge.result(decision, call, self._chain.snapshot)
        return self._logged(
            HookPoint.AFTER_TOOL, decision, call, start, decision.result, asked=asked
        )

    async def aafter_tool(self, call: ToolCall, result: ToolResult) -> Decision:
        start = time.perf_counter_ns()
        self._check_open()
        asked = (call, result)
        call = self._asked(call)
        decision = await self._aintercept(HookPoint.AFTER_TOOL, result, (call,), None, call)
        if decision.action is _MODIFY:
            decision = self._rejudge.result(decision, call, self._chain.snapshot)
        return self._logged(
            HookPoint.AFTER_TOOL, decision, call, start, decision.result, asked=asked
        )

    # ------------------------------------------------------------ full cycle

    def _pre_execute(self, decision: Decision) -> ToolResult | None:
        """What run_tool returns without executing (or raises), or None to execute."""
        from policy.model.payloads import ToolResult

        call = decision.call
        assert call is not None
        if decision.action is Action.RESPOND:
            assert decision.result is not None
            return decision.result
        if decision.action is Action.DENY_TOOL:
            content = _denied_content("Tool execution denied by hook", decision.reason)
            self._emit_tool_event("agent.tool.exec_skipped", call, reason=content)
            return ToolResult(for_llm=content, is_error=True)
        if decision.action is Action.ABORT_TURN:
            raise TurnAborted(decision)
        if decision.action is Action.HARD_ABORT:
            raise HardAborted(decision)
        return None

    def _approval_denied(self, call: ToolCall, answer: ApprovalDecision) -> ToolResult:
        from policy.model.payloads import ToolResult

        content = _denied_content("Tool execution denied by approval hook", answer.reason)
        self._emit_tool_event("agent.tool.exec_skipped", call, reason=content)
        return ToolResult(for_llm=content, is_error=True)

    def _finish_after(self, decision: Decision) -> ToolResult:
        if decision.action is Action.ABORT_TURN:
            raise TurnAborted(decision)
        if decision.action is Action.HARD_ABORT:
            raise HardAborted(decision)
        assert decision.result is not None
        return decision.result

    def _tool_cycle(
        self, call: ToolCall, decision: Decision
    ) -> Generator[_CycleStep, Any, ToolResult]:
        """run_tool after before_tool decided, written once for both APIs.

        A plan, as the chain's are: it yields what its driver must do — ask for an
        approval (`_APPROVE`, call, gates), run the executor (`_EXECUTE`, call), run
        after_tool (`_AFTER`, call, result) — and receives the answer, so `run_tool`
        and `arun_tool` differ only in how they do those three things.
        """
        if decision.action is _RESPOND and decision.needs_approval:
            held = decision.call or call
            answer = yield (_APPROVE, held, decision.gates)
            if not answer.approved:
                return self._approval_denied(held, answer)
        early = self._pre_execute(decision)
        if early is not None:
            return early
        call = decision.call or call
        if decision.needs_approval:
            answer = yield (_APPROVE, call, decision.gates)
            if not answer.approved:
                return self._approval_denied(call, answer)
        self._emit_tool_event("agent.tool.exec_start", call)
        started = time.perf_counter()
        output = yield (_EXECUTE, call)
        result = _as_result(output, time.perf_counter() - started)
        self._emit_tool_event("agent.tool.exec_end", call, result=result)
        return self._finish_after((yield (_AFTER, call, result)))

    def run_tool(self, call: ToolCall, executor: ToolExecutor) -> ToolResult:
        """before_tool -> approval (when needed) -> executor -> after_tool.

        A denial comes back as an `is_error` result with its reason (PicoClaw's
        wording); `abort_turn` and `hard_abort` raise TurnAborted / HardAborted.
        An executor that raises gives an error result, and after_tool still runs.
        """
        cycle = self._tool_cycle(call, self.before_tool(call))
        reply: Any = None
        while True:
            try:
                step = cycle.send(reply)
            except StopIteration as done:
                result: ToolResult = done.value
                return result
            if step[0] is _APPROVE:
                reply = self.approve_tool(step[1], gates=step[2])
            elif step[0] is _EXECUTE:
                try:
                    reply = executor(step[1])
                except Exception as exc:  # noqa: BLE001 - a failing tool is an error result (PicoClaw)
                    reply = exc
            else:
                reply = self.after_tool(step[1], step[2])

    async def arun_tool(self, call: ToolCall, executor: AsyncToolExecutor) -> ToolResult:
        """The async twin of `run_tool`; `executor` may be sync or async."""
        cycle = self._tool_cycle(call, await self.abefore_tool(call))
        reply: Any = None
        while True:
            try:
                step = cycle.send(reply)
            except StopIteration as done:
                result: ToolResult = done.value
                return result
            if step[0] is _APPROVE:
                reply = await self.aapprove_tool(step[1], gates=step[2])
            elif step[0] is _EXECUTE:
                try:
                    reply = executor(step[1])
                    if _is_awaitable(reply):
                        reply = await reply
                except Exception as exc:  # noqa: BLE001 - a failing tool is an error result (PicoClaw)
                    reply = exc
            else:
                reply = await self.aafter_tool(step[1], step[2])

    def _emit_tool_event(
        self, kind: str, call: ToolCall, *, result: ToolResult | None = None, reason: str = ""
    ) -> None:
        entries = self._chain.snapshot.at[HookPoint.EVENT]
        if entries:
            from policy.model.payloads import Event

            payload = {"tool": call.tool, "reason": reason} if reason else {"tool": call.tool}
            self._observers.emit(
                entries, Event(kind=kind, payload=payload, call=call, result=result)
            )

    # ---------------------------------------------------------- LLM and prompt

    def _llm_normalizer(self, point: HookPoint) -> Normalizer:
        return normalize_request if point is HookPoint.BEFORE_LLM else keep_identity

    def before_llm(self, request: LLMRequest) -> Decision:
        """Run before_llm interceptors; `decision.request` is what goes to the model."""
        return self._around(HookPoint.BEFORE_LLM, request, "request")

    def after_llm(self, response: LLMResponse) -> Decision:
        """Run after_llm interceptors; `decision.response` is what the agent sees."""
        return self._around(HookPoint.AFTER_LLM, response, "response")

    def user_prompt(self, prompt: Prompt) -> Decision:
        """Run user_prompt interceptors; `decision.prompt` is what the agent sees."""
        return self._around(HookPoint.USER_PROMPT, prompt, "prompt")

    async def abefore_llm(self, request: LLMRequest) -> Decision:
        return await self._aaround(HookPoint.BEFORE_LLM, request, "request")

    async def aafter_llm(self, response: LLMResponse) -> Decision:
        return await self._aaround(HookPoint.AFTER_LLM, response, "response")

    async def auser_prompt(self, prompt: Prompt) -> Decision:
        return await self._aaround(HookPoint.USER_PROMPT, prompt, "prompt")

    def _around(self, point: HookPoint, payload: Any, field: str) -> Decision:
        start = time.perf_counter_ns()
        self._check_open()
        normalize = self._llm_normalizer(point)
        decision = self._intercept(point, payload, (), normalize)
        return self._logged(point, decision, getattr(decision, field), start, asked=(payload,))

    async def _aaround(self, point: HookPoint, payload: Any, field: str) -> Decision:
        start = time.perf_counter_ns()
        self._check_open()
        normalize = self._llm_normalizer(point)
        decision = await self._aintercept(point, payload, (), normalize)
        return self._logged(point, decision, getattr(decision, field), start, asked=(payload,))

    # ------------------------------------------------------------------ events

    def emit(self, event: Event) -> None:
        """Hand a host runtime event to the observers (never blocks, never raises)."""
        entries = self._chain.snapshot.at[HookPoint.EVENT]
        self._observers.emit(entries, event)

    # -------------------------------------------------------------- any point

    def decide_at(
        self, point: HookPoint | str, *parts: Any, **options: Any
    ) -> Decision | ApprovalDecision | None:
        """The decision at `point` about `parts` — what `POINTS[point].parts` names, in
        that order: `decide_at("after_tool", call, result)` is `after_tool(call, result)`.

        The one path every caller that is handed a point by name takes (the CLI, the
        service, pack tests, the remote client), so a new point in `policy.model.POINTS`
        needs no new branch there. `options` go to the point's method (`approve_tool`'s
        `timeout=`...). Answers an ApprovalDecision at approve_tool, None at event (the
        observers were told), a Decision elsewhere.
        """
        spec = _spec(point, parts)
        if spec.point is HookPoint.EVENT:
            self.emit(*parts)
            return None
        decide = getattr(self, spec.method, None)
        if decide is None:  # a point with no method of its own: the chain decides alone
            return self._around(spec.point, parts[0], spec.field or "")
        answer: Decision | ApprovalDecision = decide(*parts, **options)
        return answer

    async def adecide_at(
        self, point: HookPoint | str, *parts: Any, **options: Any
    ) -> Decision | ApprovalDecision | None:
        """`decide_at` for coroutines: the chain's hooks run as in `abefore_tool`."""
        spec = _spec(point, parts)
        if spec.point is HookPoint.EVENT:
            self.emit(*parts)
            return None
        decide = getattr(self, "a" + spec.method, None)
        if decide is None:
            return await self._aaround(spec.point, parts[0], spec.field or "")
        answer: Decision | ApprovalDecision = await decide(*parts, **options)
        return answer

    # --------------------------------------------------------------- lifecycle

    def warm(self) -> dict[str, int]:
        """Build now what deciding builds on first need: every pack's programs for the
        tools its rules name and the tools the alias table knows, with all their
        conditions, and the call analysis's patterns; the packs a reload puts in place
        are warmed before they are. For a process that decides many calls — the
        service, its deciding processes, the long-running hooks — whose first calls of
        each kind would otherwise pay for it; never a one-event hook, whose start is
        its user's wait. Within a budget of CEL compiled (`WARM_BUDGET` characters,
        `WARM_CONDITIONS` conditions, for this engine's packs together: a program past
        it is its first call's to build).
        What was built — programs made or visited, conditions whose fast form it built
        (a program builds the exact forms of those without a guard when made, and each
        condition's exact form at its first evaluation), the characters of CEL charged,
        patterns compiled — and the milliseconds it took."""
        self._check_open()
        start = time.perf_counter_ns()
        self._warmed = True
        programs, conditions, failed, compiled = _warm_packs(self.hooks)
        from policy.analysis.warm import warm as warm_analysis

        patterns = warm_analysis()
        return {
            "programs": programs,
            "conditions": conditions,
            "cel_chars": compiled,
            "patterns": patterns,
            "packs_failed": failed,
            "ms": (time.perf_counter_ns() - start) // 1_000_000,
        }

    def close(self) -> None:
        """Deliver queued events, stop threads, close hooks and the log. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.abandon_approvals("the engine closed while the call waited")
        self._observers.close()
        for registration in self._chain.clear():
            _close_hook(registration)
        self._invoker.close()
        store = self._approval.opened
        if store is not None:
            store.close()
        if self._owner:
            self._audit.close()

    def with_packs(
        self, packs: Iterable[str | PathLike[str]], *, loaded: LoadedPacks | None = None
    ) -> Engine:
        """An engine deciding with the rule packs at `packs` (`loaded`: them compiled
        already), which shares this one's decision log, approval store and attached
        contracts: `policy serve`'s policy per team (`service.policies`). Close it
        before this one."""
        changed = self.settings.model_copy(update={"packs": [Path(p) for p in packs]})
        return Engine(
            changed,
            hosted=policy_hosting.builder,
            clock=self._clock,
            loaded=loaded,
            _sharing=self,
        )

    def note(self, kind: str, fields: Mapping[str, Any]) -> None:
        """Append a record that is not a decision (a warning an operator must see) to
        the decision log, in its hash chain."""
        self._audit.write(kind, dict(fields))

    @property
    def respond_bypasses(self) -> int:
        """Responds the guard has seen (the metric of `mode: flag`)."""
        return self._respond_guard.bypasses

    @property
    def packs(self) -> Mapping[str, str]:
        """The rule packs loaded: name → `revision@digest` (the first 12 hex digits of
        the file's SHA-256), as the decision log records them."""
        return dict(self._packs)

    @property
    def loaded_packs(self) -> LoadedPacks | None:
        """The compiled packs in place (None without packs): what a service keeps as
        its last good set (policy.packs.last_good)."""
        return self._loaded

    @property
    def rule_locations(self) -> Mapping[str, str]:
        """`pack/rule-id` (and each configured builtin's id) -> `file:line` where it is
        written, for every pack loaded — those of builtins only too, which join no
        stage of the chain."""
        return dict(self._locations)

    @property
    def approvals(self) -> ApprovalStore:
        """The approval store named by `approvals_store` (SQLite under data_dir by
        default), opened on first use: where approval requests wait and decisions land."""
        return self._approval.store

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _spec(point: HookPoint | str, parts: tuple[Any, ...]) -> PointSpec:
    """The row of `point`, with `parts` checked against it (InputError names both)."""
    try:
        spec = POINTS[HookPoint(point)]
    except ValueError:
        known = ", ".join(POINTS)
        raise InputError(f"unknown hook point {point!r} (known: {known})") from None
    if len(parts) != len(spec.parts):
        raise InputError(
            f"{spec.point.value} decides about {', '.join(spec.parts)}: "
            f"{len(spec.parts)} argument(s), not {len(parts)}"
        )
    return spec


def _no_policy(
    settings: Settings, ruled: list[object], builtins: list[BuiltinSpec], hosted: bool
) -> str:
    """ "" when the engine has something to enforce, else why it has not."""
    if ruled or builtins or hosted:
        return ""
    if not settings.packs:
        return "no rule packs are configured (give --packs, or `packs` in the settings)"
    named = ", ".join(str(p) for p in settings.packs)
    return f"the packs at {named} configure no rule and no builtin"


def _as_result(output: Any, duration: float) -> ToolResult:
    from policy.model.payloads import ToolResult

    if isinstance(output, ToolResult):
        return output if output.duration else output.replace(duration=duration)
    if isinstance(output, str):
        return ToolResult(for_llm=output, duration=duration)
    if isinstance(output, BaseException):
        text = str(output)
        name = type(output).__name__
        return ToolResult(
            for_llm=f"Tool execution failed: {name}: {text}"
            if text
            else f"Tool execution failed: {name}",
            is_error=True,
            duration=duration,
        )
    return ToolResult(
        for_llm=f"Tool execution failed: executor returned {type(output).__name__}, "
        "expected ToolResult or str",
        is_error=True,
        duration=duration,
    )


def _close_hook(registration: Registration) -> None:
    _close_object(registration.hook, registration.name)


def _close_object(hook: object, name: str | None = None) -> None:
    close = getattr(hook, "close", None)
    if callable(close):
        try:
            close()
        except Exception:
            log.warning("closing hook %r failed", name or hook, exc_info=True)


def _is_awaitable(value: object) -> bool:
    """`inspect.isawaitable`, imported here: only the async API asks, and a one-event
    hook does not load `inspect` (decision 0029)."""
    import inspect

    return inspect.isawaitable(value)


def _read_together() -> Any:
    """A table of what the packs loaded together read (`policy.packs.recall`): their
    calls' keys are made of their own inputs, not of packs loaded elsewhere or before a
    reload. Imported here: an engine without packs never loads the packs' runtime."""
    from policy.packs.recall import ReadTogether

    return ReadTogether()
