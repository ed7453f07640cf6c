"""Build hook: wheels carry the Prolog rules/ and facts/ inside the package (as _prolog/)."""
from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithProlog(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "attention_cloud" / "_prolog"
        for name in ("rules", "facts"):
            dest = target / name
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(ROOT / name, dest, ignore=shutil.ignore_patterns("*.qlf"))


setup(cmdclass={"build_py": BuildWithProlog})
