"""The documentation: every relative link in README.md (and examples/README.md) resolves to a file
in the repository, the README stays a front page (<= 250 lines), its two quick-start commands are
the ones CI runs, and the MkDocs site (mkdocs.yml, docs/) builds with `--strict` and no warning."""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def relative_links(md: Path):
    """(line number, target) of each Markdown link in md that is not a URL or an in-page anchor,
    outside fenced code blocks."""
    fenced = False
    for no, line in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            yield no, target


@pytest.mark.parametrize("name", ["README.md", "examples/README.md"])
def test_relative_links_resolve(name):
    md = ROOT / name
    missing = []
    for no, target in relative_links(md):
        path = (md.parent / target.split("#", 1)[0]).resolve()
        if not path.exists() or ROOT not in path.parents and path != ROOT:
            missing.append(f"{name}:{no}: {target}")
    assert not missing, "links that resolve to no file in the repository:\n" + "\n".join(missing)


def test_link_checker_sees_a_broken_link(tmp_path):
    md = tmp_path / "x.md"
    md.write_text("[a](docs/nowhere.md) [b](https://example.org) [c](#top)\n```\n[d](in/code.md)\n```\n")
    assert list(relative_links(md)) == [(1, "docs/nowhere.md")]


def test_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into docs/"
    assert not re.search(r"\bissue \d+", "\n".join(lines), re.I), "the README names issue numbers"


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    command = next(line for line in ci.splitlines() if line.startswith("python3 -m venv"))
    assert command in (ROOT / "README.md").read_text(), command


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
                    reason="mkdocs and mkdocs-material come with the test and docs extras")
def test_site_builds_strict_without_warnings(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    # not --quiet: with it, mkdocs 1.6 logs no warnings and --strict no longer aborts on them
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "WARNING" not in out, out
    assert (tmp_path / "site" / "index.html").exists()
    assert "Unreleased" in (tmp_path / "site" / "changelog" / "index.html").read_text()
