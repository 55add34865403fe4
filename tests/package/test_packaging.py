"""A non-editable install carries the manifests and prompts as package data."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_manifests_and_prompts(tmp_path: Path) -> None:
    # Built from a clean copy (a build/ folder left in the checkout would leak into the wheel),
    # without build isolation: the venv's setuptools builds it, so nothing is downloaded.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "*.egg-info", "__pycache__", ".*_cache", "tests"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "--wheel-dir", str(tmp_path / "dist"), str(source)],
                   check=True, capture_output=True)
    wheel, = (tmp_path / "dist").glob("pytest_legalbench-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    assert {"pytest_legalbench/manifests/transactions.yaml",
            "pytest_legalbench/manifests/cuad.yaml",
            "pytest_legalbench/manifests/edgar2023.yaml",
            "pytest_legalbench/manifests/edgar2023-tune.yaml",
            "pytest_legalbench/prompt_templates/README.md",
            "pytest_legalbench/prompt_templates/answer_system.txt",
            "pytest_legalbench/llm/price_cards/default.json",
            "pytest_legalbench/results/report_assets/report.css",
            "pytest_legalbench/results/report_assets/report.js",
            "pytest_legalbench/py.typed"} <= names
    # Every module of the package is in the wheel (a subpackage left off the list is not).
    modules = {p.relative_to(REPO).as_posix() for p in (REPO / "pytest_legalbench").rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(entry_points).decode()
    assert "legalbench = pytest_legalbench.plugin.hooks" in text
    assert "legalbench = pytest_legalbench.commands.cli:main" in text
    # Imported from the unpacked wheel, away from the checkout, the profiles are found.
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); "
             "from pytest_legalbench.ingest.manifest import available_profiles, profile_manifest; "
             "from pytest_legalbench.files.locations import manifests_dir; "
             "print(manifests_dir()); print(available_profiles()); "
             "print(len(profile_manifest('transactions').documents))")
    output = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "site")],
                            cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    location, profiles, count = output.splitlines()
    assert Path(location).is_relative_to(tmp_path / "site")
    assert profiles == "('cuad', 'edgar2023', 'edgar2023-tune', 'transactions')" and count == "10"
