"""What an interpreter one-liner does, read from its text: best effort, never a proof.

`python -c CODE`, `perl -e CODE`, `node -e CODE`, `awk 'PROGRAM'` and friends run code
that no shell analysis can see. Reading that code the way a reviewer skims it still
tells a lot: the shell commands it hands to `os.system`, `subprocess`, `system()`,
backquotes or `child_process` (returned as scripts, so the caller analyses them like
any other command line), the file names it mentions, whether it deletes, writes, opens
sockets, forks in a loop or evaluates code it builds at run time.

The answer errs towards "cannot see": a spawn whose command is not a literal, `eval`
of anything, decoding of base64 or compressed blobs and reflective imports all make
the code `hidden`. Code that does none of these things and mentions no path (`print`,
`json.dumps`, `console.log(process.version)`) is plain. docs/security.md says what
this can and cannot establish.
"""

from __future__ import annotations

import re

from policy._lazy_dataclass import dataclass, field
from policy.analysis._lazy_re import LazyPattern

__all__ = ["CodeFacts", "inspect"]

_MAX_CODE = 64 * 1024  # longer one-liners are judged unseen without reading them

#: A quoted string literal: '...', "..." or `...` (escapes skipped, not decoded).
_STRING = LazyPattern(r"""(?P<q>['"`])(?P<body>(?:\\.|(?!(?P=q))[^\\])*)(?P=q)""", re.DOTALL)
#: A call that runs a command: the text after the call's opening parenthesis follows.
_SPAWN_CALL = LazyPattern(
    r"""(?x)
    (?:\b(?:os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|pty\.spawn
        |subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)
        |commands\.getoutput|sh\.\w+
        |child_process\.\w+|execSync|execFileSync|execFile|spawnSync|spawn
        |shell_exec|passthru|proc_open|pcntl_exec|popen|system|exec|os\.posix_spawn\w*
        |asyncio\.create_subprocess_\w+|create_subprocess_\w+
        |os\.execute|io\.popen|IO\.popen|Open3\.\w+|Kernel\.\w+
        |Runtime\.getRuntime\(\)\.exec|ProcessBuilder)
    )\s*\(?\s*""",
)
#: Signals sent to a literal process id: os.kill(1, 9), process.kill(-1), posix_kill(1,
#: 9), Process.kill(:KILL, 1), perl's kill 9, -1.
_SIGNAL_CALL = LazyPattern(
    r"""(?x)
    \b(?:(?:os\.kill|os\.killpg|process\.kill|posix_kill)\s*\(\s*(?P<pid>-?\d+)
          (?:\s*,\s*(?:signal\.)?(?P<signal>[\w']+))?
      |(?:Process\.kill|\bkill)\s*\(?\s*['":]?(?P<signal2>\w+)['"]?\s*,\s*(?P<pid2>-?\d+))
    """
)
#: perl's and ruby's `open(F, "| cmd")`, `open("cmd |")`, `open("|cmd")`: a pipe to a command.
_PIPED_OPEN = LazyPattern(
    r"""(?x)
    \bopen\s*\(\s*[^,()]*,\s*['"](?:-\||\|-)['"]\s*,\s*['"](?P<cmd2>[^'"]+)['"]
    |\bopen\s*\(\s*(?:[^,()]*,\s*)?['"](?P<cmd>\|[^'"]+|[^'"-][^'"]*\|)['"]
    |\b(?:IO|File|Kernel|URI)\.(?:read|readlines|write|foreach|binread|open)\s*\(\s*['"](?P<cmd3>\|[^'"]+)['"]
    """
)
_PERL_QX = LazyPattern(r"\bqx\s*([{(\[/|!])")
_RUBY_X = LazyPattern(r"%x\s*([{(\[|!])")
_CLOSERS = {"{": "}", "(": ")", "[": "]"}
_AWK_PIPE_OUT = LazyPattern(r"""\|\s*"((?:\\.|[^"\\])*)\"""")
_AWK_PIPE_IN = LazyPattern(r""""((?:\\.|[^"\\])*)"\s*\|\s*getline""")
_AWK_WRITE = LazyPattern(r""">>?\s*"((?:\\.|[^"\\])*)\"""")
_AWK_READ = LazyPattern(r"""getline\s*<\s*"((?:\\.|[^"\\])*)\"""")

#: Code that builds code at run time, or hides it in an encoding: in any language...
_EVAL = LazyPattern(
    r"""(?x)
    \b(?:eval|exec|execfile|compile)\s*\(|\beval\b\s*['"{$]|__import__|\bimportlib\b
        |getattr\s*\(\s*__builtins__|b64decode|\bbase64\.|decodebytes|a85decode|b32decode
        |unhexlify|fromhex|\bzlib\.|\bmarshal\.|pickle\.loads|codecs\.decode|rot_?13
        |\bnew\s+Function\b|\bFunction\s*\(|\bvm\.run\w*|instance_eval|class_eval
        |module_eval|create_function|\batob\s*\(|Buffer\.from\s*\([^)]*base64
        |String\.fromCharCode|\bchr\s*\(\s*\d|\bord\s*\(.*\bchr\b|decode\s*\(\s*['"]hex
        |IEX\b|Invoke-Expression|FromBase64String|\brunpy\b|getattr\s*\(\s*(?:os|subprocess|sys
        |builtins|pty|importlib)\b|\beval\b(?=\s*[),])|\bos\s*\[|\$\w+\s*\(|\binclude\s*\(\s*download
    """
)
#: ... and in one language only.
_EVAL_IN = {
    "ruby": re.compile(r"\b(?:send|public_send|instance_variable_get)\s*[(:]"),
    "lua": re.compile(r"\b(?:loadstring|dofile|loadfile)\s*\(|(?<![.\w])load\s*\("),
    "perl": re.compile(r"\bpack\s*\(|\bunpack\s*\(|\bdo\s+['\"$]"),
    "php": re.compile(r"\bassert\s*\(\s*\$|\bpreg_replace\s*\(\s*['\"].*/e['\"]"),
}
_NETWORK = LazyPattern(
    r"""(?x)
    \b(?:socket|urllib|urlopen|requests|http\.client|httplib|httpx|aiohttp|ftplib|smtplib
        |telnetlib|paramiko|xmlrpc|IO::Socket|LWP|HTTP::Tiny|Net::\w+|TCPSocket|UDPSocket
        |open-uri|URI\.open|Faraday|RestClient|require\(\s*['"](?:https?|net|dgram|tls)['"]
        |fetch\s*\(|axios|XMLHttpRequest|WebSocket|fsockopen|curl_\w+|stream_socket_client
        |file_get_contents\s*\(\s*['"]https?:|Invoke-WebRequest|Invoke-RestMethod|WebClient
        |/dev/tcp/|/dev/udp/|nc\s+-e)
    """
)
_DELETE = LazyPattern(
    r"""(?x)
    \b(?:rmtree|removedirs|remove|remove_tree|remove_dir|remove_entry\w*|unlink|unlinkSync|rmdir
        |rmdirSync|rmSync|rm_rf|rm_r|rm_f|fs\.rm|fs\.promises\.rm|rimrafSync|deleteRecursively
        |FileUtils\.rm\w*|rimraf|File\.delete|Dir\.rmdir|Remove-Item|deleteSync|truncate)\b
    |\.rm(?:Sync)?\s*\(
    """
)
_RECURSIVE = LazyPattern(
    r"\b(?:rmtree|removedirs|rm_rf|rm_r|rimraf|recursive|Recurse|remove_tree|remove_dir"
    r"|deleteRecursively)\b"
)
_WRITE = LazyPattern(
    r"""(?x)
    (?:\bf?open\s*\([^)]*,\s*['"]?[wax+]|\bfputs|\bfprintf|FileWriter|FileOutputStream
        |Out-File|Set-Content|Add-Content|\bdump\s+value|\bwrite_text|\bwrite_bytes|\.write\s*\(|writeFile
        |appendFile|File\.write|\bfwrite|file_put_contents|\bcopyfile|shutil\.(?:copy\w*|move)
        |os\.(?:rename|replace|symlink|link|chmod|chown|makedirs|mkdir)|\bsymlink|\bchmod
        |\bchown|\bopen\s*\(\s*\w+\s*,\s*['"]\s*>|\bopen\s*\(\s*['"]\s*>|Set-Content
        |Out-File|\bprint\s*\{)
    """
)
#: Calls that move a file or directory away from its name: the source is gone from
#: there (a moved `.claude` or `rules/` is a deleted one), the destination written.
_MOVE = LazyPattern(
    r"""(?x)
    \b(?:rename|renameSync|renameat2?|moveSync|move_file|mv)\s*\(|\bos\.replace\s*\(
        |\bshutil\.move\b|\bFileUtils\.(?:mv|move|rename)\b|\bFile\.rename\b|\bDeno\.rename
        |\bfs\.move\b|\bfile\.rename\b|Move-Item|Rename-Item|\bfile\s+rename\b
        |(?<![\w$.])rename\s+['"$]|\bmove\s*\(|(?<![\w$.])move\s+['"$]
    """
)
#: Calls that give a file another name or a copy: a hard link to a file is a way to
#: change it (`link("rules/x.yaml", "doc.yaml")`, then write `doc.yaml`).
_LINK_OR_COPY = LazyPattern(
    r"""(?x)
    \b(?:link|linkSync|linkat|symlinkSync|hardlink_to|link_to|symlink_to|copyFile|copyFileSync
        |cpSync|copySync|copy_file|copytree|copyfile)\s*\(|(?<![\w.$])copy\s*\(
        |\bfs\.(?:cp|link|symlink|copyFile)\b|\bFileUtils\.(?:ln\w*|cp\w*|copy\w*|install|touch)\b
        |\bFile\.(?:link|symlink|copy_stream)\b|\bDeno\.(?:link|symlink|copyFile|writeTextFile|writeFile|truncate)
        |\bBun\.write\b|(?<![\w$.])(?:link|symlink|copy)\s+['"$]|\bfile\s+(?:copy|link|mkdir)\b
        |Copy-Item|New-Item|\bwriteTextFile\b
    """
)
#: A call whose literal arguments are file names whatever they look like: `rename`,
#: `Path(...)` (`os.rename('rules', 'r2')`, `Path('rules').replace('/tmp/r')`).
_FILE_CALL = LazyPattern(
    r"""(?x)
    \bos\.(?:replace|remove)\s*\(
    |\b(?:rename|renameSync|move|moveSync|mv|link|linkSync|symlink|symlinkSync|copyFile
        |copyFileSync|cpSync|copySync|copyfile|copytree|copy2?|unlink|unlinkSync|rmtree
        |rmSync|rmdir|rmdirSync|rm_rf|rm_r|rm|cp|ln|ln_s|ln_sf|Path|PosixPath|PurePath|Pathname\.new
        |hardlink_to|link_to|symlink_to|writeFile|writeFileSync|writeTextFile|appendFile
        |appendFileSync|file_put_contents|f?open|File\.open|File\.write|IO\.write|truncate)\s*\(
    |(?<![\w$.])(?:rename|move|link|symlink|unlink|copy)\s+(?=['"$])
    """
)
#: tcl's `file rename|copy|delete|link|mkdir ?-force? ?--? NAME...`: bare words are names.
_TCL_FILE = LazyPattern(
    r"\bfile\s+(rename|copy|delete|link|mkdir)\s+([^;\]\n]*)"
)
_FORK = LazyPattern(r"\b(?:os\.fork|fork|Process\.fork|pcntl_fork|cluster\.fork)\b")
_DECODES = LazyPattern(r"(?i)\b(?:b64decode|decode64|base64|atob|unhexlify|fromhex)\b")
_BARE_PATH = LazyPattern(r"(?<![\w$./])((?:~|/)(?:[\w.-]+/)*[\w.-]+)")
_SETUID = LazyPattern(
    r"\b(?:set(?:e|re|res)?uid|set(?:e|re|res)?gid|posix_setuid|initgroups)\s*\("
    r"|\bchmod\w*\s*\([^)]*\b0o?[0-7]*[2-7][0-7]{3}\b"  # a setuid or setgid mode
)
#: Code that names the user's home: what it builds on it is a path in the home.
_HOME_REF = LazyPattern(
    r"""(?x)
    expanduser\(\s*['"]~['"]\s*\)|Path\.home\(\)|homedir\(\)|\bDir\.home\b|\bENV\[\s*['"]HOME['"]
        |getenv\(\s*['"]HOME['"]\s*\)|environ\[\s*['"]HOME['"]\s*\]|environ\.get\(\s*['"]HOME['"]
        |\$ENV\{\s*HOME\s*\}|process\.env\.HOME\b|\$_SERVER\[\s*['"]HOME['"]|\bos\.UserHomeDir\b
    """
)
#: What may stand between string literals that a path is built from: `join(a, b)`
#: commas, pathlib's `/`, concatenation.
_PATH_GLUE = LazyPattern(r"\s*(?:,|/|\+|\.\.)\s*")
#: Native code loaded by hand: what it does no reading can tell.
_NATIVE = LazyPattern(
    r"\b(?:ctypes|cdll|CDLL|LoadLibrary|dlopen|Fiddle|FFI::|ffi\.load|System\.load|"
    r"process\.dlopen|DynaLoader|Win32::API)\b"
)
#: A shell handed a connection: the shape of a reverse shell.
_SHELL_ON_SOCKET = LazyPattern(
    r"(?:dup2|reopen|fdopen|pty\.spawn|STDIN\.reopen|\$stdin\.reopen|open\(STD(?:IN|OUT|ERR))"
)
_SHELL_PROGRAM = LazyPattern(
    r"(?:^|/)(?:sh|bash|dash|zsh|ksh|ash|cmd\.exe|powershell)(?:\s+-i)?\s*$"
)
_LOOP = LazyPattern(r"\b(?:while|for|loop|until|each|times|repeat)\b")
_ENV_DUMP = LazyPattern(
    r"""(?x)
    (?:\bin\s+ENVIRON\b|\b(?:p|pp|puts|print)\s*\(?\s*ENV\b(?!\s*\[)|\bENV\.to_s\b
        |\$_SERVER\b(?!\s*\[)|\bos\.environ\b(?!\s*(?:\[|\.get\s*\(|\.setdefault|\.pop))|\bprintenv\b
        |\bprocess\.env\b(?!\s*(?:\.|\[))|\bENV\.(?:to_h|to_a|each|inspect|keys)\b
        |%ENV\b|\bgetenv\s*\(\s*\)|\$_ENV\b(?!\s*\[)|\bgetenv\(\)|Get-ChildItem\s+env:
        |\bos\.environb\b(?!\s*\[)
        |(?:\b\w+|\))\.environb?\b(?!\s*(?:\[|\.get\s*\(|\.setdefault|\.pop|\.__getitem__))
        |\bfrom\s+(?:os|posix|nt|_os)\s+import\b[^\n;]*\benvironb?\b
        |\bgetattr\s*\(\s*\w+\s*,\s*['"]environb?['"]|\bvars\s*\(\s*(?:os|posix|nt)\s*\)
        |\b(?:os|posix|nt)\.__dict__|\bos\.getenvb?\s*\(\s*\))
    """
)
_ENV_READ = LazyPattern(
    r"""(?x)
    (?:environ(?:\.get)?\s*[\[(]\s*|getenv\s*\(\s*|process\.env\.|process\.env\[\s*
        |ENV\[\s*|ENVIRON\[\s*|\$ENV\{\s*|\$_ENV\[\s*)['"]?(?P<name>[A-Za-z_][A-Za-z0-9_]*)"""
)
#: Code loaded from a URL and run: R's `source("https://...")`, Julia's
#: `include(download(...))`, PHP's `include "http://..."`, Ruby's `load URI...`.
_REMOTE_LOAD = LazyPattern(
    r"""\b(?:source|sys\.source|include|require|load|import)\s*\(?\s*(?:download\s*\(\s*)?['"](?:https?|ftp)://"""
)
_URL = LazyPattern(r"\b(?:https?|ftp|wss?)://(?:[^/\s'\"`@]*@)?(\[[^\]\s]*\]|[^/\s'\"`:?#]+)")
_HOST_LITERAL = LazyPattern(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)$")
_PATHLIKE = LazyPattern(r"^(?:/|~|\./|\.\./|\.[A-Za-z0-9_])")


#: Code that starts a server handing out files (Python's http.server and
#: socketserver, node's http.createServer and express.static, WEBrick, Go's
#: FileServer): it reads everything below the directory it serves.
_SERVER = LazyPattern(
    r"\b(?:http\.server|SimpleHTTPServer|SimpleHTTPRequestHandler|CGIHTTPRequestHandler"
    r"|socketserver|SocketServer|(?:Threading)?HTTPServer|serve_forever|createServer"
    r"|express\.static|serveStatic|serve-static|WEBrick|Rack::(?:File|Static|Directory)"
    r"|http\.FileServer|ListenAndServe|StaticFiles|send_from_directory|aiohttp\.web)\b"
    r"|\.static\s*\(|\.listen\s*\(\s*\d"
)
#: Where such a server is pointed: a `chdir`, a handler's `directory=`, a static
#: root (`express.static(dir)`, `:DocumentRoot => dir`, `http.Dir(dir)`, `root=`).
_SERVED_DIR = LazyPattern(
    r"""(?x)
    (?:\bchdir|\bdirectory\s*=|\bstatic\s*\(|\bserveStatic\s*\(|:DocumentRoot\s*=>
        |\bhttp\.Dir|\broot\s*[=:]|\bStaticFiles\s*\(\s*directory\s*=|\bDir\.chdir)
    \s*\(?\s*(?P<arg>[^\n;]{0,80})"""
)


def _served(code: str) -> list[str]:
    """The directories code that starts a file server serves, each with `/**`: those
    it is pointed at (the home when it names the home), else the one it runs in."""
    roots: list[str] = []
    for match in _SERVED_DIR.finditer(code):
        arg = match["arg"]
        literal = _STRING.search(arg)
        if _HOME_REF.search(arg) or re.search(r"\bhome(?:dir)?\b|['\"]~['\"/]", arg):
            roots.append("~")
        elif literal and (
            _looks_like_path(_unescape(literal["body"])) or literal["body"] in (".", "..")
        ):
            roots.append(_unescape(literal["body"]))
    roots = roots[-1:] or ["."]
    return [*roots, *(r.rstrip("/") + "/**" for r in roots)]


@dataclass
class CodeFacts:
    """What one piece of interpreter code was seen to do."""

    #: Shell command lines it runs (`os.system("...")`), and argv lists (`["rm", "-rf"]`).
    scripts: list[str] = field(default_factory=list)
    argvs: list[list[str]] = field(default_factory=list)
    #: File names it mentions, as written.
    paths: list[str] = field(default_factory=list)
    #: Files its awk program names for output / input.
    writes_to: list[str] = field(default_factory=list)
    reads_from: list[str] = field(default_factory=list)
    writes: bool = False
    deletes: bool = False
    recursive: bool = False
    network: bool = False
    hosts: list[str] = field(default_factory=list)
    forks: bool = False
    #: It makes itself root (`os.setuid(0)`, `posix_setuid`).
    privileged: bool = False
    env_dump: bool = False
    variables: list[str] = field(default_factory=list)
    #: Why some of what it does cannot be seen ("" when nothing is hidden).
    hidden: str = ""


def inspect(language: str, code: str) -> CodeFacts:
    """Read `code` of `language` ("python", "perl", "ruby", "node", "php", "lua",
    "awk", "shell-like" for anything else)."""
    facts = CodeFacts()
    if len(code) > _MAX_CODE:
        facts.hidden = f"{language} code longer than {_MAX_CODE} bytes is not read"
        return facts
    code = _unaliased(code)
    strings = [(m.start(), m.end(), m["q"], m["body"]) for m in _STRING.finditer(code)]
    if language == "awk":
        _awk(code, facts)
    else:
        _spawns(code, strings, facts, commands_in_backquotes=language != "node")
    bare = _without_strings(code, strings)
    extra = _EVAL_IN.get(language)
    if _EVAL.search(bare) or (extra is not None and extra.search(bare)):
        facts.hidden = facts.hidden or f"the {language} code evaluates or decodes code at run time"
    if _NETWORK.search(code):
        facts.network = True
    if _REMOTE_LOAD.search(code):
        facts.network = True
        facts.hidden = facts.hidden or f"the {language} code runs code it loads from a URL"
    facts.hosts += [m[1] for m in _URL.finditer(code)]
    if facts.network:
        facts.hosts += [s for _, _, _, s in strings if _HOST_LITERAL.match(s) and "/" not in s]
    if _DELETE.search(bare):
        facts.deletes = True
        facts.recursive = bool(_RECURSIVE.search(bare))
    if _WRITE.search(code) or _LINK_OR_COPY.search(bare):
        facts.writes = True
    if _MOVE.search(bare) or (
        language == "python" and re.search(r"\bPath\b|\bpathlib\b", bare) and ".replace(" in bare
    ):
        # what is moved is no longer where it was: a delete of the source, of its tree
        facts.writes = facts.deletes = facts.recursive = True
    if facts.writes or facts.deletes:
        named = _call_operands(code, strings)
        facts.paths += named[:_MAX_OPERANDS]
        if len(named) > _MAX_OPERANDS and not facts.hidden:
            facts.hidden = f"it names more than {_MAX_OPERANDS} files to write or move"
    if language == "tcl":
        _tcl_files(code, facts)
    if _SERVER.search(bare) or _SERVER.search(code):
        facts.reads_from += _served(code)  # a file server reads what it serves
    if _FORK.search(bare) and (_LOOP.search(bare) or bare.count("fork") > 1):
        facts.forks = True
    if _ENV_DUMP.search(code):
        facts.env_dump = True
    if _DECODES.search(code):
        facts.hidden = facts.hidden or f"the {language} code decodes data at run time"
    if language in ("powershell", "tcl", "generic", "applescript", "m4"):
        # unquoted paths are words there (`Out-File /home/dev/.bashrc`)
        facts.paths += [m[1] for m in _BARE_PATH.finditer(bare)]
    if language == "m4":
        facts.scripts += [m[1] for m in re.finditer(r"\be?syscmd\(([^)]*)\)", code) if m[1]]
    if _SETUID.search(bare):
        facts.privileged = True
    if _NATIVE.search(bare):
        facts.hidden = facts.hidden or f"the {language} code loads native code"
    spawns_shell = any(_SHELL_PROGRAM.search(s.strip()) for s in facts.scripts) or any(
        argv and _SHELL_PROGRAM.search(argv[0]) for argv in facts.argvs
    )
    if facts.network and (spawns_shell or _SHELL_ON_SOCKET.search(bare)):
        facts.hidden = facts.hidden or f"the {language} code connects a shell to the network"
    facts.variables += [m["name"] for m in _ENV_READ.finditer(code)]
    facts.paths += _built_paths(code, strings, home=bool(_HOME_REF.search(code)))
    for _, _, quote, body in strings:
        text = _unescape(body)
        if (quote != "`" or language == "node") and _looks_like_path(text):
            facts.paths.append(text)
            if text.startswith("/.") and len(text) > 2:
                # `process.env.HOME + "/.aws/credentials"`, `homedir() + "/.ssh/..."`
                facts.paths.append("~" + text)
    return facts


def _built_paths(code: str, strings: list[tuple[int, int, str, str]], *, home: bool) -> list[str]:
    """Paths the code builds from literals: `os.path.join(home, '.ssh', 'id_rsa')`,
    `Path.home() / '.aws' / 'credentials'`, `'rul' + 'es/x'`; on the home when the
    code names it (`~`, and `~/` + each built path)."""
    runs: list[str] = []
    current = ""
    last_end = -1
    for start, end, _quote, body in strings:
        text = _unescape(body)
        glue = _PATH_GLUE.fullmatch(code[last_end:start]) if last_end >= 0 else None
        if glue is not None and current:
            joiner = "" if glue.group(0).strip() in ("+", "..") else "/"
            current = current.rstrip("/") + joiner + text.lstrip("/") if joiner else current + text
        else:
            if current:
                runs.append(current)
            current = text
        last_end = end
    if current:
        runs.append(current)
    built = [r for r in runs if ("/" in r or r.startswith(".")) and len(r) < 1024]
    if not home:
        return [b for b in built if _looks_like_path(b)]
    return ["~", *("~/" + b.lstrip("/") for b in built if " " not in b)]


#: `open(name, "a")`: the mode is not a name.
_OPEN_MODE = LazyPattern(r"[rwxabtU+]{1,3}")


#: File names read from one snippet's file calls; past it the rest is hidden.
_MAX_OPERANDS = 64


def _call_operands(code: str, strings: list[tuple[int, int, str, str]]) -> list[str]:
    """The string literals given to a file call (`_FILE_CALL`): names, whatever they
    look like (`'rules'` has no slash or dot and is still a directory)."""
    found: list[str] = []
    for match in _FILE_CALL.finditer(code):
        start = match.end()
        parenthesised = match[0].rstrip().endswith("(")
        depth, end = 1, start
        while end < len(code) and end - start < 2048:
            char = code[end]
            if parenthesised and char in "([{":
                depth += 1
            elif parenthesised and char in ")]}":
                depth -= 1
                if depth == 0:
                    break
            elif not parenthesised and char in ";\n":
                break
            end += 1
        for string_start, string_end, _quote, body in strings:
            if start <= string_start and string_end <= end + 1:
                text = _unescape(body)
                if (
                    text
                    and len(text) < 1024
                    and "\n" not in text
                    and "://" not in text
                    and not _OPEN_MODE.fullmatch(text)
                ):
                    found.append(text)
    return found


def _tcl_files(code: str, facts: CodeFacts) -> None:
    """tcl's `file` subcommands: their words are names (`file rename .claude x`)."""
    for match in _TCL_FILE.finditer(code):
        words = [w.strip("{}\"'") for w in match[2].split()]
        names = [w for w in words if w and not w.startswith("-")]
        facts.paths += [w for w in names if "$" not in w and "[" not in w]
        if len(names) < len([w for w in words if w and not w.startswith("-")]) or any(
            "$" in w or "[" in w for w in words
        ):
            facts.hidden = facts.hidden or "the tcl code names a file at run time"
        facts.writes = True
        if match[1] in ("rename", "delete"):
            facts.deletes = facts.recursive = True


#: `import subprocess as sp`, `import os as o`: the module under another name.
_MODULE_ALIAS = LazyPattern(r"\bimport\s+(subprocess|os|pty|shutil|commands)\s+as\s+(\w+)")
#: `from subprocess import run as r`, `from os import system`: a function by its own name.
_FROM_IMPORT = LazyPattern(r"\bfrom\s+(subprocess|os|pty|shutil)\s+import\s+([\w\s,]+)")


def _unaliased(code: str) -> str:
    """`code` with each alias of a process or file module spelled as the module
    (`sp.run(...)` read as `subprocess.run(...)`)."""
    for module, alias in _MODULE_ALIAS.findall(code)[:8]:
        code = re.sub(rf"\b{re.escape(alias)}\.", f"{module}.", code)
    for module, names in _FROM_IMPORT.findall(code)[:8]:
        for item in names.split(",")[:16]:
            parts = item.split()
            if not parts:
                continue
            name, local = parts[0], parts[-1] if len(parts) == 3 and parts[1] == "as" else parts[0]
            code = re.sub(rf"(?<![\w.]){re.escape(local)}\s*\(", f"{module}.{name}(", code)
    return code


def _looks_like_path(text: str) -> bool:
    if not text or len(text) > 1024 or "\n" in text or "://" in text:
        return False
    if " " in text.strip():
        return False
    return bool(_PATHLIKE.match(text)) or ("/" in text and not text.startswith(("-", "%")))


_STRING_ESCAPE = LazyPattern(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[0-7]{1,3}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _unescape(body: str) -> str:
    """A string literal's value: `\\x20`, `\\040`, `\\u0020`, `\\n` and `\\"` decoded
    the way the languages read them (`system("rm\\x20-rf\\x20/")` is `rm -rf /`)."""
    if "\\" not in body:
        return body

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "xu" and len(code) > 1:
            return chr(int(code[1:], 16))
        if code[0] in "01234567" and (len(code) > 1 or code != "0"):
            return chr(int(code, 8) & 0xFF)
        return _SIMPLE_ESCAPES.get(code, code)

    return _STRING_ESCAPE.sub(one, body)


def _without_strings(code: str, strings: list[tuple[int, int, str, str]]) -> str:
    """`code` with its string literals blanked, so `print("eval")` is not `eval`."""
    if not strings:
        return code
    out: list[str] = []
    last = 0
    for start, end, _, _ in strings:
        out.append(code[last:start])
        out.append('""')
        last = end
    out.append(code[last:])
    return "".join(out)


def _spawns(
    code: str,
    strings: list[tuple[int, int, str, str]],
    facts: CodeFacts,
    *,
    commands_in_backquotes: bool,
) -> None:
    """The commands `code` hands to a shell or runs directly (in JavaScript a
    backquoted string is a template literal, not a command)."""
    by_start = {start: (end, quote, body) for start, end, quote, body in strings}
    if commands_in_backquotes:
        for _, _, quote, body in strings:
            if quote == "`":  # perl, ruby and shell backquotes run a command
                facts.scripts.append(_unescape(body))
    for match in _SIGNAL_CALL.finditer(code):
        # a signal sent from code is `kill` run by it: to 1 or -1 it stops the system
        signal = (match["signal"] or match["signal2"] or "TERM").strip("'")
        facts.argvs.append(["kill", "-" + signal, match["pid"] or match["pid2"]])
    for match in _PIPED_OPEN.finditer(code):
        command = match["cmd"] or match["cmd2"] or match["cmd3"] or ""
        facts.scripts.append(_unescape(command).strip(" |"))
    for pattern in (_PERL_QX, _RUBY_X):
        for match in pattern.finditer(code):
            opener = match[1]
            closer = _CLOSERS.get(opener, opener)
            end = code.find(closer, match.end())
            if end < 0:
                facts.hidden = "a command in the code cannot be read"
                continue
            facts.scripts.append(code[match.end() : end])
    for match in _SPAWN_CALL.finditer(code):
        position = match.end()
        while position < len(code) and code[position] in " \t\n":
            position += 1
        head = code[position : position + 1]
        if head in "'\"" and position in by_start:
            _end, _quote, body = by_start[position]
            text = _unescape(body)
            # `spawn("rm", ["-rf", "/"])`: the program, then its arguments.
            rest = code[_end : _end + 2048]
            after = rest.lstrip(" \t\n")[:1]
            if after not in (")", ","):
                # `"ma" "ke deploy"`, `"make " + target`, `"%s" % x`, `"...".format()`:
                # the literal is only part of what runs
                facts.hidden = "the code runs a command built at run time"
            listed = re.match(r"\s*,\s*\[([^\]]*)\]", rest)
            name = match[0].rstrip(" (")
            if listed and name.endswith(
                ("spawn", "spawnp", "spawnSync", "execFile", "execFileSync")
            ):
                items = [_unescape(m["body"]) for m in _STRING.finditer(listed[1])]
                facts.argvs.append([text, *items])
            elif listed and name.endswith(("execv", "execvp", "execve", "execvpe")):
                # os.execvp("kubectl", ["kubectl", "apply"]): the list is argv, argv[0] first
                items = [_unescape(m["body"]) for m in _STRING.finditer(listed[1])]
                non_literal = _STRING.sub("", listed[1]).replace(",", "").strip()
                if non_literal:
                    facts.hidden = "the code runs a command built at run time"
                facts.argvs.append([text, *items[1:]])
            elif match[0].rstrip(" (").endswith(("exec", "execv", "execvp", "execl", "execlp")):
                # os.execv("/bin/sh", [...]) / perl exec("rm", "-rf", "/"): argv of literals
                args = re.match(r"((?:\s*,\s*(?:['\"][^'\"]*['\"]))*)", rest)
                extra = [_unescape(m["body"]) for m in _STRING.finditer(args[1])] if args else []
                if extra and match[0].rstrip(" (").endswith(("execl", "execlp", "execv", "execvp")):
                    # os.execl(path, argv0, ...): the program, then argv without argv[0]
                    facts.argvs.append([text, *extra[1:]])
                elif extra:
                    facts.argvs.append([text, *extra])
                else:
                    facts.scripts.append(text)
            else:
                facts.scripts.append(text)
        elif head == "[":
            close = code.find("]", position)
            inside = code[position + 1 : close] if close > 0 else ""
            items = [_unescape(m["body"]) for m in _STRING.finditer(inside)]
            non_literal = _STRING.sub("", inside).replace(",", "").strip()
            if items and not non_literal:
                facts.argvs.append(items)
            else:
                facts.hidden = "the code runs a command built at run time"
        elif head in ("", ")"):
            continue  # a mention (`import subprocess`), not a call
        else:
            facts.hidden = "the code runs a command built at run time"


def _awk(code: str, facts: CodeFacts) -> None:
    """awk: `system("cmd")`, `print | "cmd"`, `"cmd" | getline`, `print > "file"`."""
    for match in re.finditer(r"\bsystem\s*\(\s*", code):
        rest = code[match.end() :]
        literal = re.match(r'"((?:\\.|[^"\\])*)"\s*\)', rest)
        if literal:
            facts.scripts.append(_unescape(literal[1]))
        else:
            facts.hidden = "the awk program runs a command built at run time"
    for pattern in (_AWK_PIPE_OUT, _AWK_PIPE_IN):
        for found in pattern.finditer(code):
            facts.scripts.append(_unescape(found[1]))
    if re.search(r"\|\s*[^\s\"]", code.replace("||", "")) and "getline" in code:
        facts.hidden = facts.hidden or "the awk program runs a command built at run time"
    facts.writes_to += [_unescape(m[1]) for m in _AWK_WRITE.finditer(code)]
    facts.reads_from += [_unescape(m[1]) for m in _AWK_READ.finditer(code)]
    if not facts.writes_to and re.search(r"print[^;}]*>\s*[A-Za-z_$(]", code):
        # print > var: a file named at run time
        facts.hidden = facts.hidden or "the awk program writes a file named at run time"
