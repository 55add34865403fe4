"""A small CUAD-shaped corpus: three contracts (an agreement with its amendment, filed as one
exhibit, and a contract alone), a master_clauses.csv with all 41 categories, and the cuad
manifest generated from them as the real one is."""

from __future__ import annotations

import csv
from pathlib import Path

from pytest_legalbench.ingest.cuad_manifest import generate_cuad_manifest, render_manifest
from pytest_legalbench.spans.cuad_categories import CATEGORIES

SUPPLY = "ALPHA_06_21_1999-EX-10.1-SUPPLY AGREEMENT.txt"
AMENDMENT = "ALPHA_06_21_1999-EX-10.1-SUPPLY AGREEMENT_Amendment.txt"
SERVICES = "GAMMA_01_02_2003-EX-10.2-SERVICES AGREEMENT.txt"

SUPPLY_TEXT = """SUPPLY AGREEMENT

This Supply Agreement is made on June 21, 1999 between Alpha Widgets Ltd. ("Alpha") and
Beta Stores Inc. ("Beta").

1. Term. This Agreement renews automatically for successive one (1) year periods unless
either party gives ninety (90) days notice of non-renewal.

2. Law. This Agreement is governed by the laws of the State of New York.

3. Competition. Beta shall not sell competing widgets during the Term.
"""

AMENDMENT_TEXT = """AMENDMENT NO. 1 TO SUPPLY AGREEMENT

This Amendment No. 1 amends the Supply Agreement between Alpha Widgets Ltd. and Beta Stores Inc.

1. Employees. Beta shall not solicit or hire any employee of Alpha.
"""

SERVICES_TEXT = """SERVICES AGREEMENT

Gamma Co. hires Delta LLC to clean the offices of Gamma Co.

The laws of Quebec govern this agreement.
"""

LAW = "This Agreement is governed by the laws of the State of New York."
NON_COMPETE = "Beta shall not sell competing widgets during the Term."
NO_SOLICIT = "Beta shall not solicit or hire any employee of Alpha."
RENEWAL = ("This Agreement renews automatically for successive one (1) year periods unless "
           "either party gives ninety (90) days notice of non-renewal.")


def _header() -> list[str]:
    header = ["Filename"]
    for category in CATEGORIES:
        # CUAD spells one answer column "- Answer"; the generator reads both.
        joint = "- Answer" if category.column == "Notice Period To Terminate Renewal" else "-Answer"
        header += [category.column, f"{category.column}{joint}"]
    return header


def _row(file_name: str, cells: dict[str, tuple[list[str], str]]) -> list[str]:
    """A CSV row: every Yes/No category answered No unless ``cells`` says otherwise."""
    row = [file_name[:-4] + ".pdf"]
    for category in CATEGORIES:
        excerpts, answer = cells.get(category.column,
                                     ([], "No" if category.answer == "yes_no" else ""))
        row += [repr(excerpts), answer]
    return row


ROWS = {
    SUPPLY: {
        "Document Name": (["SUPPLY AGREEMENT"], "SUPPLY AGREEMENT"),
        "Parties": (["Alpha Widgets Ltd.", "Beta Stores Inc."],
                    'Alpha Widgets Ltd. ("Alpha"); Beta Stores Inc. ("Beta")'),
        "Agreement Date": (["June 21, 1999"], "6/21/99"),
        "Renewal Term": ([RENEWAL], "successive 1 year"),
        "Notice Period To Terminate Renewal": ([RENEWAL], "90 days"),
        "Governing Law": (["This Agreement is governed by the laws of the State of\nNew York."],
                          "New York"),
        "Non-Compete": ([NON_COMPETE], "Yes"),
    },
    AMENDMENT: {
        "Document Name": (["AMENDMENT NO. 1 TO SUPPLY AGREEMENT"],
                          "AMENDMENT NO. 1 TO SUPPLY AGREEMENT"),
        "Parties": (["Alpha Widgets Ltd.", "Beta Stores Inc."],
                    "Alpha Widgets Ltd.; Beta Stores Inc."),
        "No-Solicit Of Employees": ([NO_SOLICIT], "Yes"),
    },
    SERVICES: {
        "Document Name": (["SERVICES AGREEMENT"], "SERVICES AGREEMENT"),
        "Parties": (["Gamma Co.", "Delta LLC"], "Gamma Co.; Delta LLC"),
        "Agreement Date": ([], "1/2/03"),
        "Governing Law": (["The laws of Quebec govern this agreement."], "Quebec, Canada"),
        "License Grant": ([], "Yes"),
        "Non-Compete": (["Delta shall never compete anywhere."], "Yes"),
    },
}


def make_corpus(root: Path, rows: dict[str, dict[str, tuple[list[str], str]]] | None = None
                ) -> tuple[Path, Path]:
    """A CUAD-shaped corpus folder and its cuad manifest, generated as the real one is."""
    contracts = root / "cuad" / "contracts"
    contracts.mkdir(parents=True)
    for name, text in ((SUPPLY, SUPPLY_TEXT), (AMENDMENT, AMENDMENT_TEXT),
                       (SERVICES, SERVICES_TEXT)):
        (contracts / name).write_text(text, encoding="utf-8")
    with (root / "cuad" / "master_clauses.csv").open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(_header())
        for name, cells in (rows or ROWS).items():
            writer.writerow(_row(name, cells))
    manifest, _ = generate_cuad_manifest(root)
    manifest_path = root / "cuad.yaml"
    manifest_path.write_text(render_manifest(manifest), encoding="utf-8")
    return root, manifest_path
