"""Tuning and test splits of a span benchmark, by contract family.

A retrieval rule decided on some tests must be reported on tests whose contracts it never saw,
or a rule that only fits the tuning contracts looks like progress. Tests are therefore split by
the *family* of the contract they ask about, never one by one: the family of a file is its
filer, the part of its file name before the first underscore, case folded
(``"GluMobileInc_20070319_S-1A_EX-10.09_..._Content License Agreement2.txt"`` is family
``glumobileinc``). CUAD and EDGAR name every exhibit by its filer first, so an agreement, its
amendments and whatever else the same company filed share one family and one split. A file
name without an underscore is its own family.

A family's split is decided by a salted SHA-256 of its id, which is stable on every machine and
needs no list: the first eight bytes read as an integer, taken modulo 2, put the family in the
tuning split (0) or the test split (1). Families that hold a document the visible question set
was written on are ``pinned`` to the tuning split, since rules were read off them already.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from pytest_legalbench.defaults import DEFAULT_PROFILE
from pytest_legalbench.ingest.manifest import profile_manifest
from pytest_legalbench.spans.benchmark_file import SpanTest

#: The two splits, in the order reports list them.
SPLITS = ("tune", "test")
#: Salt of the family hash: changing it draws a new split (and invalidates every figure
#: reported on the old one), so it carries a version.
SPLIT_SALT = "legalbench-span-split-1"


def family_of(file_path: str) -> str:
    """The family of a benchmark file: its filer, the file name up to its first underscore,
    case folded (the whole name when it has none)."""
    name = PurePosixPath(file_path.replace("\\", "/")).name
    return name.split("_", 1)[0].strip().casefold() or name.casefold()


def hashed_split(family: str, salt: str = SPLIT_SALT) -> str:
    """``tune`` or ``test`` for a family id, by the salted hash alone."""
    digest = hashlib.sha256(f"{salt}\0{family}".encode()).digest()
    return SPLITS[int.from_bytes(digest[:8], "big") % 2]


@dataclass(frozen=True)
class SpanSplit:
    """The rule that puts each family in a split: the salted hash, except ``pinned``
    families, which are always tuning."""

    pinned: frozenset[str] = frozenset()
    salt: str = SPLIT_SALT

    def of_family(self, family: str) -> str:
        """The split of one family."""
        return "tune" if family in self.pinned else hashed_split(family, self.salt)

    def of_test(self, test: SpanTest) -> str:
        """The split of a test: that of the family of its first gold snippet's file (a
        CUAD test's snippets all lie in one contract)."""
        return self.of_family(family_of(test.snippets[0].file_path))

    def select(self, tests: Sequence[SpanTest], split: str) -> list[SpanTest]:
        """The tests of ``split``, in file order."""
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}: choose one of {', '.join(SPLITS)}")
        return [test for test in tests if self.of_test(test) == split]

    def describe(self, tests: Sequence[SpanTest]) -> dict[str, dict[str, int]]:
        """Per split, how many tests and families it holds."""
        found: dict[str, dict[str, int]] = {}
        for split in SPLITS:
            chosen = self.select(tests, split)
            families = {family_of(t.snippets[0].file_path) for t in chosen}
            found[split] = {"tests": len(chosen), "families": len(families)}
        return found


def pinned_families(file_names: Collection[str]) -> frozenset[str]:
    """The families of ``file_names`` (the source files of the visible question set)."""
    return frozenset(family_of(name) for name in file_names)


def visible_families(profile: str = DEFAULT_PROFILE) -> frozenset[str]:
    """The families of the CUAD contracts a packaged profile's questions were written on
    (the default profile's NETGEAR and Glu/Fox sets)."""
    entries = profile_manifest(profile).documents
    return pinned_families([e.source.file for e in entries
                            if e.source is not None and e.source.kind == "cuad"
                            and e.source.file])


def default_split() -> SpanSplit:
    """The project's split: the salted hash, the visible question set's families pinned to
    tuning."""
    return SpanSplit(pinned=visible_families())
