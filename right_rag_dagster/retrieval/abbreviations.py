"""Short forms of technical words written out, so "config" finds "configuration".

Porter stems "configuration" to ``configur`` and leaves "config" as it is: a question that says "the repo's config"
missed a passage about "the repository's configuration" (and the reverse), and npm's "`workspace` deps are always
`prod` dependencies" never answered "production". BM25's tokenizer adds ``full_form`` of a word to the word itself, at
index and at query time, after ``spelling.american``; a compound's parts (``pkg-config``, ``TLS_CERT``) stay as
written, as names. Only short forms with one meaning in technical writing are listed: not "dev" (``/dev``), "lib"
(``/usr/lib``), "doc" (a document), "info" (GNU Info), "pkg" (``pkg-config``, a name of its own), "impl" (Rust's
keyword), "perf" (the profiler), "min" (minutes), "var" (``/var``) or "tmp" (``/tmp``).
"""

from __future__ import annotations

_FULL = {
    "addr": "address", "addrs": "addresses",
    "admin": "administrator", "admins": "administrators",
    "app": "application", "apps": "applications",
    "arg": "argument", "args": "arguments",
    "attr": "attribute", "attrs": "attributes",
    "auth": "authentication",
    "cert": "certificate", "certs": "certificates",
    "config": "configuration", "configs": "configurations",
    "db": "database", "dbs": "databases",
    "dep": "dependency", "deps": "dependencies",
    "dir": "directory", "dirs": "directories",
    "env": "environment", "envs": "environments",
    "func": "function", "funcs": "functions",
    "lang": "language", "langs": "languages",
    "msg": "message", "msgs": "messages",
    "param": "parameter", "params": "parameters",
    "prod": "production",
    "repo": "repository", "repos": "repositories",
}
"""Short form -> the word it shortens (lower case, before stemming)."""


def full_form(word: str) -> str:
    """The word a listed short form shortens (``word`` in lower case), else ``word`` itself."""
    return _FULL.get(word, word)
