"""Guessing a document's title from the headings its opening shows."""

from __future__ import annotations

import pytest

from pytest_legalbench.ingest.titles import guess_title


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Exhibit 10.1\n\nEXECUTION VERSION\n\nMASTER SUPPLY AGREEMENT\n\nThis Agreement ...",
         "Master Supply Agreement"),
        ("EX-10.4\nCONFIDENTIAL TREATMENT REQUESTED\nsupply.htm\n- 1 -\n\nLEASE AGREEMENT\n",
         "Lease Agreement"),
        ("FIRST AMENDMENT\n\nTO LOAN AND SECURITY AGREEMENT\n\nThis First Amendment ...",
         "First Amendment to Loan and Security Agreement"),
        ("DISTRIBUTION AGREEMENT BETWEEN ORCHARD FARMS LLC AND RIVERTON FOODS INC\n\nText.",
         "Distribution Agreement"),
        ("[ACME LOGO]\n\nAmendment No. 4 to the Hosting Agreement\n\nDated as of May 1, 2019",
         "Amendment No. 4 to the Hosting Agreement"),
        ("Agreement Number 4471\n\nSOFTWARE LICENSE AGREEMENT\n", "Software License Agreement"),
        ("AMENDED AND RESTATED\nCREDIT AGREEMENT\ndated as of June 1, 2018\n",
         "Amended and Restated Credit Agreement"),
        ("SCHEDULE 2\n\nFORM OF COMPLIANCE CERTIFICATE\n\nThe undersigned ...",
         "Schedule 2 Form of Compliance Certificate"),
        ("EXHIBIT C\n\nHARBOR FRANCHISE AGREEMENT\n\nThis agreement ...",
         "Harbor Franchise Agreement"),
        ("Exhibit B Form of Promissory Note\n\nFOR VALUE RECEIVED ...",
         "Exhibit B Form of Promissory Note"),
        # EDGAR texts that run the legend, the title and the first sentence into one line.
        ("Exhibit 10.3 CERTAIN CONFIDENTIAL INFORMATION HAS BEEN OMITTED FROM THIS EXHIBIT. "
         "SERVICES AGREEMENT This Services Agreement (the \"Agreement\") is made by Northwind "
         "Traders and Contoso Ltd. " + "More body text follows here. " * 10,
         "Services Agreement"),
        ("Amendment #2 to the Marketing Agreement This Amendment #2 (\"Amendment\") is made "
         "between the parties and changes the marketing fees payable. " * 3,
         "Amendment #2 to the Marketing Agreement"),
    ],
)
def test_guess_title(text: str, title: str) -> None:
    assert guess_title(text) == title


def test_guess_title_falls_back_to_the_first_line_truncated() -> None:
    text = "Minutes of a meeting held to discuss " + "many things " * 20 + "\nmore"
    title = guess_title(text)
    assert title.startswith("Minutes of a meeting") and title.endswith("...")
    assert len(title) <= 80
    assert guess_title("   \n\n") == ""
