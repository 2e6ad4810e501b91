"""Context that hooks add, kept apart from what they rewrite.

A hook run in our chain (`claude.hosted`) that only adds context — Claude Code's
`additionalContext`, plain stdout at UserPromptSubmit, feedback after a tool — leaves
the prompt's or the output's own text as it was and adds to it: before the prompt,
each piece in a <user-prompt-submit-hook> tag as Agentao renders hook context, in the
order the hooks ran; after the output, following a blank line. Hosts that take a
rewritten prompt or output (PicoClaw, the Python API) show the model the whole text;
an answer writer for a host that takes context but no rewrite (`policy hook claude`)
gets the context back with `prompt_context` / `result_context` and hands it on as
`additionalContext`, where a real rewrite gives None.

Before a tool there is no text to add to — a call's arguments are no place for words
to the model — so PreToolUse context travels apart from the call, on the decision
(`Decision.context`), and `policy hook claude` answers it as `additionalContext` beside
whatever verdict it gives (`claude.wire.with_pre_tool_context`).

Pure string work with no imports, so the one-event `policy hook` can use it cheaply.
"""

from __future__ import annotations

__all__ = ["CONTEXT_TAG", "after_blocks", "context_block", "prompt_context", "result_context"]

#: The tag Agentao puts each piece of hook context in, before the user's text.
CONTEXT_TAG = "user-prompt-submit-hook"


def context_block(text: str) -> str:
    """One piece of context as Agentao renders it."""
    return f"<{CONTEXT_TAG}>\n{text}\n</{CONTEXT_TAG}>"


def prompt_context(original: str, final: str) -> str | None:
    """The context hooks put before a prompt, when that is all that changed from
    `original` to `final` (a user_prompt `modify`); None when the prompt's own text
    was changed, or nothing was.

    Hooks here add context as Agentao renders it, each piece in a
    <user-prompt-submit-hook> tag before the user's text (`claude.hosted`); those
    pieces come back without their tags, one after the other. Any other text put
    before the prompt comes back as it is."""
    if final == original or not final.endswith(original):
        return None
    head = final[: len(final) - len(original)]
    if head.endswith("\n"):
        head = head[:-1]  # the line break between the context and the prompt
    elif original:
        return None  # the prompt's first line was extended, not preceded
    pieces = _split_blocks(head)
    text = "\n".join(pieces) if pieces is not None else head
    return text if text.strip() else None


def _split_blocks(text: str) -> list[str] | None:
    """The pieces of `text` when it is nothing but context blocks, else None."""
    opening, closing = f"<{CONTEXT_TAG}>\n", f"\n</{CONTEXT_TAG}>"
    pieces: list[str] = []
    rest = text
    while rest:
        if not rest.startswith(opening):
            return None
        end = rest.find(closing + "\n" + opening, len(opening))
        if end < 0:
            if not rest.endswith(closing):
                return None
            end = len(rest) - len(closing)
        pieces.append(rest[len(opening) : end])
        rest = rest[end + len(closing) :].removeprefix("\n")
    return pieces


def result_context(original: str, final: str) -> str | None:
    """What hooks added after a tool's output, when that is all that changed from
    `original` to `final` (an after_tool `modify`): their feedback and context, which
    hooks here append after a blank line (`claude.hosted`). None when the output
    itself was changed (a redaction, a replacement), or nothing was."""
    if final == original or not final.startswith(original):
        return None
    tail = final[len(original) :]
    if original and not tail.startswith("\n\n"):
        return None  # the output's last line was extended, not followed
    text = tail.strip("\n")
    return text if text.strip() else None


def after_blocks(text: str) -> int:
    """Where the context blocks at the start of `text` (with their line breaks) end."""
    opening, closing = f"<{CONTEXT_TAG}>\n", f"\n</{CONTEXT_TAG}>\n"
    at = 0
    while text.startswith(opening, at):
        end = text.find(closing, at + len(opening))
        if end < 0:
            break
        at = end + len(closing)
    return at
