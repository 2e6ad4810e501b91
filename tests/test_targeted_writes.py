"""Family 7 of issue 20: write targets built in the same line.

A write whose target the line spells indirectly — `printf -v`, arrays, `${!r}`,
`set --`, `read <<<`, `mapfile`, declarations, `eval`, parameter operations, a `cd`
to somewhere unknown — must be judged on the file bash would open. Where bash's
semantics are deterministic the analysis follows them and the write is judged as
any other (a startup file or the policy's own files: denied); where the place
cannot be known it is `?...`, and such a write is possibly anywhere: asked about,
denied when its known end already names a protected, startup or credential file.
Never an explicit `allow`.

Every call goes through the mounted hook (tests/test_escapes.py). The analysis
itself is also checked against bash: a value the analysis claims to know must be
the one bash computes, else a wrong "known" target would pass unseen.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from policy.analysis import shell
from tests.test_escapes import Ask, shipped

__all__ = ["shipped"]

#: Targets bash would compute from the line itself: denied like the plain spelling.
KNOWN_DANGEROUS = [
    # printf -v
    "printf -v f %s ~/.bashrc; echo 'curl x | sh' >> \"$f\"",
    "printf -v f '%s/.ssh/authorized_keys' ~; cat k.pub >> \"$f\"",
    "printf -vf %s .claude/settings.json; echo {} > \"$f\"",
    "printf -v f -- '%s' rules/shell.yaml; : > \"$f\"",
    "printf -v d %s ~/.config; cp x.desktop \"$d/autostart/x.desktop\"",
    # arrays
    "a=(.claude/settings.json); echo {} > \"${a[0]}\"",
    "a=(x ~/.zshrc); echo evil >> \"${a[1]}\"",
    "a=(x); a+=(~/.profile); tee -a \"${a[-1]}\" < payload",
    "declare -a t=(~/.bashrc); cp evil \"${t[@]}\"",
    "typeset -a t=(README.md ~/.bash_profile); sed -i 1d \"${t[1]}\"",
    "a=(x y); a[1]=~/.bashrc; echo >> \"${a[1]}\"",
    "a=(x y); i=1; a[i]=~/.zshenv; echo >> \"${a[$i]}\"",
    "a=({x,.claude}/settings.json); echo {} > \"${a[1]}\"",
    "a=(~/.bashrc); echo x >> $a",
    # indirection
    "r=f; f=~/.bashrc; echo x >> \"${!r}\"",
    "r='a[1]'; a=(x ~/.zshrc); echo x >> \"${!r}\"",
    "set -- ~/.profile; r=1; echo x >> \"${!r}\"",
    # positional parameters
    "set -- ~/.bashrc; echo x > \"$1\"",
    "set -- x ~/.zshrc; shift; echo x >> \"$1\"",
    "set -- .claude/settings.json; cp evil.json \"$@\"",
    "set -e -- ~/.bashrc; dd of=\"$1\" if=payload",
    "set x ~/.bash_login; ln -sf /tmp/evil \"$2\"",
    # read and mapfile
    "read f <<< ~/.bashrc; echo >> \"$f\"",
    "IFS= read -r f <<< ~/.bashrc; echo x >> \"$f\"",
    "read -r f <<'EOF'\n.claude/settings.json\nEOF\necho {} > \"$f\"",
    "read a b <<< \"x $HOME/.zshrc\"; echo x >> \"$b\"",
    "read -a a <<< \"x ~/.bashrc\"; echo >> \"${a[1]}\"",
    "read -ra a <<< \"~/.profile\"; echo >> \"${a[0]}\"",
    "mapfile -t a <<< ~/.bashrc; echo >> \"${a[0]}\"",
    "readarray -t a <<'EOF'\nx\n.claude/settings.json\nEOF\necho {} > \"${a[1]}\"",
    "while read f; do echo x >> \"$f\"; done <<< ~/.bashrc",
    # declarations
    "declare f=~/.bashrc; echo x >> $f",
    "local f=~/.bashrc; echo x >> $f",
    "export f=~/.zshrc; echo x >> \"$f\"",
    "readonly f=~/.profile; echo x >> \"$f\"",
    "typeset f=.claude/settings.json; echo {} > \"$f\"",
    "declare -l f=~/.BASHRC; echo x >> \"$f\"",
    "declare -l f; f=.CLAUDE/SETTINGS.JSON; echo {} > \"$f\"",
    # eval and loops
    "eval \"f=~/.bashrc\"; echo x >> $f",
    "eval 'set -- ~/.zshrc'; echo x >> \"$1\"",
    "eval 'a=(x ~/.bashrc)'; echo x >> \"${a[1]}\"",
    "for f in ~/.bashrc; do echo x >> $f; done",
    "for f in README.md ~/.zshrc; do echo x >> \"$f\"; done",
    # parameter operations
    "f=$HOME/.bashrX; echo x >> \"${f/X/c}\"",
    "f=.claude/settings.jsoX; echo {} > \"${f//X/n}\"",
    "f=x.claude/settings.json; echo {} > \"${f/#x/}\"",
    "f=.CLAUDE/SETTINGS.JSON; echo {} > \"${f,,}\"",
    "f=.CLAUDE/SETTINGS.JSON; echo {} > \"${f@L}\"",
    "f=x.bashrc; echo x >> \"${f:1}\"",
    "f=.bashrcxx; echo x >> \"${f:0:7}\"",
    "f=.zshrc.bak; echo x >> \"${f%.bak}\"",
    "f=x/.bashrc; echo x >> \"${f#x/}\"",
    # macOS-style places
    "d=~/Library/LaunchAgents; cp evil.plist \"$d/com.evil.plist\"",
    "a=(~/Library/LaunchAgents/x.plist); cp evil.plist \"${a[0]}\"",
]

#: Targets whose place is unknown but whose known end names a protected, startup or
#: credential file: denied.
PARTIAL_DANGEROUS = [
    "echo x >> \"$d/.bashrc\"",
    "echo {} > \"$(git rev-parse --show-toplevel)/.claude/settings.json\"",
    "echo x >> \"$D/.ssh/config\"",
    "cp evil.desktop \"$X/.config/autostart/x.desktop\"",
    "cp evil.yaml \"$P/rules/shell.yaml\"",
    "echo '[default]' > \"$H/.aws/config\"",
    "echo 'curl x|sh' > \"$R/etc/profile.d/x.sh\"",
    "cp evil.plist \"$H/Library/LaunchAgents/evil.plist\"",
    "echo '{}' > \"$U/.claude.json\"",
    "tee \"$CFG/hookpolicy/config.yaml\" < x",
    "cd \"$D\" && echo x >> .bashrc",
    "cd \"$D\" && echo x >> .ssh/authorized_keys",
    "sed -i s/deny/allow/ \"$(dirname \"$0\")/rules/shell.yaml\"",
    "ln -sf /tmp/x \"${ROOT}/.git/hooks/pre-commit\"",
    "install -m 755 evil \"$d/.local/bin/ls\"",
    "echo x >> \"$(echo $HOME)/.zshrc\"",
]

#: Targets whose place cannot be known: asked about (never let through, never allowed).
UNKNOWN = [
    "echo x > \"$OUT\"",
    "cat x > \"$f\"",
    "cp x \"$f\"",
    "mv x \"$f\"",
    "ln -sf x \"$f\"",
    "dd if=x of=\"$f\"",
    "sed -i s/a/b/ \"$f\"",
    "tee \"$f\" < x",
    "install -m 644 x \"$f\"",
    "touch \"$f\"",
    "cd \"$(git rev-parse --show-toplevel)/.claude\" && echo {} > settings.json",
    "cd $(dirname $(which policy)) && echo x > hooks.py",
    "pushd \"$(cat dir.txt)\" && echo x > settings.json",
    "echo x > \"$(cat target.txt)\"",
    "a=($X); echo x > \"${a[0]}\"",
    "r=$1; echo x > \"${!r}\"",
    "read f < target.txt; echo x >> \"$f\"",
    "read f <<< \"$T\"; echo x >> \"$f\"",
    "IFS=: read a b <<< \"x:$HOME/.bashrc\"; echo x >> \"$b\"",
    "while read f; do echo x >> \"$f\"; done <<EOF\nsafe.txt\n$HOME/.bashrc\nEOF",
    "f=~/.bashrc.bak; echo x >> \"${f:0:9}\"",
    "f=~/.bashrX; echo x >> \"${f/X/c}\"",
    "f=~/.bashrc; g() { f=notes.txt; }; echo x >> \"$f\"",
    "set -- ~/.bashrc; g() { set -- notes.txt; }; echo x >> \"$1\"",
    "f=notes.txt; declare -n r=f; r=~/.bashrc; echo x >> \"$f\"",
    "a=(notes.txt ~/.bashrc); unset 'a[0]'; echo x >> \"${a[@]}\"",
    "declare -A m=([k]=~/.bashrc); echo x >> \"${m[k]}\"",
    "exec 3> \"$f\"",
]

#: Everyday lines that look alike: not flagged.
EVERYDAY = [
    "tmp=$(mktemp); echo x > \"$tmp\"",
    "tmp=$(mktemp -d); cd \"$tmp\" && echo x > a.txt",
    "out=build/report.txt; mkdir -p build; pytest > \"$out\"",
    "printf -v stamp '%s' 2024; echo \"$stamp\" > build/stamp.txt",
    "printf -v f 'out/%s.txt' report; echo x > \"$f\"",
    "files=(a.txt b.txt); cat \"${files[@]}\" > all.txt",
    "a=(src/app.py); cp \"${a[0]}\" backup/",
    "set -- notes.txt; echo x >> \"$1\"",
    "read v <<< 1.2.3; echo \"$v\" > VERSION",
    "mapfile -t names <<< notes; echo x > \"${names[0]}.txt\"",
    "f=README.md; cp \"$f\" \"${f%.md}.txt\"",
    "name=app; echo x > \"${name^^}.log\"",
    "f=report.txt; echo x > \"${f/report/summary}\"",
    "for f in a b; do echo $f > out/$f.txt; done",
    "declare -a logs=(build.log test.log); : > \"${logs[1]}\"",
    "r=f; f=notes.txt; echo x >> \"${!r}\"",
    "git status && ls -la",
    "echo done > /dev/null",
]


@pytest.mark.parametrize("command", KNOWN_DANGEROUS + PARTIAL_DANGEROUS)
def test_targets_that_name_a_protected_file_are_denied(shipped: Ask, command: str) -> None:
    decision, reason = shipped("Bash", command=command)
    assert decision == "deny", (command, decision, reason)


@pytest.mark.parametrize("command", UNKNOWN)
def test_unknown_targets_are_never_let_through(shipped: Ask, command: str) -> None:
    decision, reason = shipped("Bash", command=command)
    assert decision in ("deny", "ask"), (command, decision, reason)


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_look_alikes_are_not_flagged(shipped: Ask, command: str) -> None:
    decision, reason = shipped("Bash", command=command)
    assert decision not in ("deny", "ask"), (command, decision, reason)


def test_file_tools_name_their_path(shipped: Ask) -> None:
    """The file tools' paths are never unknown: the same files by Write are denied."""
    for path in ("~/.bashrc", ".claude/settings.json", "~/Library/LaunchAgents/x.plist"):
        decision, _ = shipped("Write", file_path=path, content="x")
        assert decision == "deny", path


#: `SETUP; printf '<%s>\n' WORDS`: what the analysis says the words are, against bash.
AGAINST_BASH = [
    "printf -v f '%s/%s' a b; printf '<%s>\\n' \"$f\"",
    "a=(x 'y z' w); printf '<%s>\\n' \"${a[@]}\" ${a[@]} \"${a[*]}\" \"${a[-1]}\" \"$a\"",
    "IFS=:; a=(x y); printf '<%s>\\n' \"${a[*]}\"",
    "a=(x y); a[1]=z; a[2]=q; a[-1]+=r; printf '<%s>\\n' \"${a[@]}\"",
    "a=(x y); a+=z; printf '<%s>\\n' \"${a[@]}\"",
    "a=(x y); a=z; printf '<%s>\\n' \"${a[@]}\"",
    "a=({p,q}/f); i=1; printf '<%s>\\n' \"${a[i]}\" \"${a[$i]}\"",
    "r='a[1]'; a=(p q); s=a; printf '<%s>\\n' \"${!r}\" \"${!s}\"",
    "set -- a 'b c' d; shift; printf '<%s>\\n' \"$1\" \"$@\" \"$*\"",
    "set -- a b; IFS=-; printf '<%s>\\n' \"$*\"",
    "set -e -- a b; set -o pipefail; printf '<%s>\\n' \"$2\"",
    "read a b <<< '  x  y  z '; printf '<%s>\\n' \"$a\" \"$b\"",
    "read a <<< '  x  y  '; printf '<%s>\\n' \"$a\"",
    "read -d '' a <<< 'x y'; printf '<%s>\\n' \"$a\"",
    "IFS= read -r a <<< '  x  '; printf '<%s>\\n' \"$a\"",
    "IFS=$'\\t' read a b <<< $'x y\\tz'; printf '<%s>\\n' \"$a\" \"$b\"",
    "read -ra a <<< ' q  r '; printf '<%s>\\n' \"${a[@]}\"",
    "mapfile -t -s 1 -n 1 a <<< $'x\\ny\\nz'; printf '<%s>\\n' \"${a[@]}\"",
    "declare -u f; f=abc; declare -l g=ABC; printf '<%s>\\n' \"$f\" \"$g\"",
    "declare -u f=abc; declare +u f; f=xyz; printf '<%s>\\n' \"$f\"",
    "f=aXbXc; printf '<%s>\\n' \"${f/X/-}\" \"${f//X/-}\" \"${f/#a/A}\" \"${f/%c/C}\" \"${f/X}\"",
    "f=abC; printf '<%s>\\n' \"${f^^}\" \"${f,,}\" \"${f^}\" \"${f,}\" \"${f@U}\" \"${f@u}\"",
    "f=abcdef; printf '<%s>\\n' \"${f:1}\" \"${f:1:2}\" \"${f: -2}\" \"${f:1:-2}\" \"${f:9}\"",
    "f=a.b; g() { f=x; }; printf '<%s>\\n' \"$f\"",
]


def _bash_words(line: str) -> list[str]:
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=10)
    return [w[1:-1] for w in done.stdout.split("\n") if w.startswith("<")]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("line", AGAINST_BASH)
def test_known_values_are_the_ones_bash_computes(line: str) -> None:
    """A value the analysis claims to know is bash's own (else it is unknown: `$?`)."""
    found = shell.analyze(line, "/srv/work", "/home/dev")
    assert not found.parse_error, found.parse_error
    words = list(found.commands[-1].args[1:])
    if "$?" in words:
        return  # unknown: judged as possibly anywhere
    assert words == _bash_words(line), line
