"""The failure classes of issue #28, each on a small document written for the tests: Unicode
spaces and dashes in headings, letter agreements, numbers set apart from their headings, lists
begun on their parent's line, tables of terms, recitals and attachments, openings, what
follows the signatures, long roman lists, run-on text and contents look-alikes."""

from __future__ import annotations

from pytest_legalbench.navindex.draft import Draft
from pytest_legalbench.navindex.lines import split_lines
from pytest_legalbench.navindex.outline import build_outline


def _outline(text: str) -> list[tuple[str, str, str]]:
    """(kind, local id, first words) of every draft but the root, in document order."""
    return [(d.kind, d.local_id, text[d.start:d.end].split("\n")[0][:24])
            for d in build_outline(text).drafts if d.kind != "document"]


def _drafts(text: str) -> dict[str, Draft]:
    return {d.local_id: d for d in build_outline(text).drafts}


def test_unicode_spaces_and_dashes_in_headings() -> None:
    text = ("SECURITY AGREEMENT\n\nARTICLE\u00a0I\n\nSection\u202f1.1\u2007Grant. The Grantor "
            "grants a lien.\n\nSection\u20091.2\u3000Perfection. The Grantor shall file.\n\n"
            "ARTICLE\u00a0II\n\nSection 2.1 Notices. In writing.\n\nExhibit\u00a0A\u20111\n\n"
            "Form of Joinder.\n")
    drafts = _drafts(text)
    assert {"art-1", "1.1", "1.2", "art-2", "2.1"} <= set(drafts)
    assert drafts["1.1"].title == "Grant" and drafts["1.2"].parent is drafts["art-1"]
    exhibit = next(d for d in drafts.values() if d.kind == "schedule")
    assert exhibit.full_reference == "exhibit:a-1"
    # Spans are the source's: the heading keeps its narrow no-break space.
    assert text[drafts["1.1"].start:drafts["1.1"].end].startswith("Section\u202f1.1\u2007Grant")


LETTER = """ACME CORP.

March 1, 2023

Dear Ms. Roe:

We are pleased to confirm the terms of your engagement.

1. Position. You will serve as Chief Financial Officer.

2. Compensation.

(a) Salary. Your base salary is $300,000 a year.

(b) Bonus. You may earn an annual bonus.

3. Benefits. You may join our plans.

Sincerely,

ACME CORP.
"""


def test_numbered_paragraphs_of_a_letter_agreement() -> None:
    drafts = _drafts(LETTER)
    assert {"1", "2", "2(a)", "2(b)", "3"} <= set(drafts)
    assert drafts["2(b)"].parent is drafts["2"] and drafts["1"].title == "Position"
    # The letterhead, date, addressee and opening paragraph are one node of their own.
    front = drafts["front"]
    assert LETTER[front.start:front.end].startswith("ACME CORP.\n\nMarch 1, 2023")
    assert "engagement" in LETTER[front.start:front.end]


def test_lettered_paragraphs_and_ordinal_steps() -> None:
    text = ("SIDE LETTER\n\nA. Fees. The fee is waived.\n\nB. Term. One year.\n\n"
            "C. Application. Amounts received are applied as follows:\n\n"
            "First, to fees of the Agent;\n\nSecond, to interest;\n\nThird, to principal.\n\n"
            "D. Law. New York law governs.\n")
    drafts = build_outline(text).drafts
    items = [d for d in drafts if d.kind == "subclause"]
    assert [d.label for d in items] == ["A.", "B.", "C.", "First,", "Second,", "Third,", "D."]
    assert {d.parent.label for d in items if d.label.endswith(",")} == {"C."}  # type: ignore[union-attr]
    assert len({d.parent.local_id for d in items if d.label.endswith(".")}) == 1  # type: ignore[union-attr]


def test_a_number_alone_on_its_line_opens_the_heading_below_it() -> None:
    text = ("EMPLOYMENT AGREEMENT\n\nThe parties agree as follows:\n\n1.\n\nTerm. The term is "
            "two years.\n\n2.\n\nDuties.\n\na.\n\nPosition. You will serve as CSO.\n\nb.\n\n"
            "Time. Full time.\n\n3.\n\nLaw. Delaware law governs.\n")
    drafts = _drafts(text)
    assert {"1", "2", "2(a)", "2(b)", "3"} <= set(drafts)
    assert drafts["1"].title == "Term" and drafts["2(a)"].title == "Position"
    assert text[drafts["2(a)"].start:drafts["2(a)"].end].startswith("a.\n\nPosition")


def test_a_list_begun_on_its_parents_line_continues() -> None:
    text = ("Section 2.10 Payments.\n\n(a) General. Payments are in Dollars.\n\n(b) (i) Funding. "
            "The Agent may assume funding.\n\n(ii) Payments by the Borrower. The Agent may "
            "assume payment.\n\n(c) Conditions. If a Lender funds.\n\nSection 2.11 Sharing.\n\n"
            "(a) Pro rata.\n\n(b) Set-off.\n")
    drafts = _drafts(text)
    assert {"2.10(b)(i)", "2.10(b)(ii)", "2.10(c)", "2.11(b)"} <= set(drafts)
    assert drafts["2.10(b)(ii)"].parent is drafts["2.10(b)"]


def test_long_roman_lists_and_a_wrapped_attachment_reference() -> None:
    items = "\n\n".join(f"({n}) Event number {i} occurs." for i, n in enumerate(
        ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii",
         "xiv", "xv", "xvi", "xvii", "xviii", "xix", "xx"], 1))
    text = (f"10. Default. Each of the following is an Event of Default:\n\n{items}\n\n"
            "11. Definitions.\n\n(A) \"Fees\" means the fees set out in\nAppendix A.\n\n"
            "(B) \"Term\" means one year.\n\n12. Law. New York.\n")
    drafts = _drafts(text)
    assert "10(xviii)" in drafts and "10(xx)" in drafts
    assert drafts["11(B)"].parent is drafts["11"]
    assert not any(d.kind == "schedule" for d in drafts.values())


def test_schedules_numbered_by_section_are_schedules() -> None:
    text = ("1. Fees. See Schedule 2.2.1.\n\n2. Term. One year.\n\n3. Law. New York.\n\n"
            "SCHEDULE 2.2.1\n\nFee Table\n\nExhibit 10.1\n\nSCHEDULE 5.2\n\nLiens\n")
    schedules = [d for d in build_outline(text).drafts if d.kind == "schedule"]
    assert [(d.label, d.title) for d in schedules] == [("SCHEDULE 2.2.1", "Fee Table"),
                                                       ("SCHEDULE 5.2", "Liens")]


def test_the_filing_number_and_top_level_zero_numbering() -> None:
    text = ("Exhibit 10.27.2 OUTSOURCING AGREEMENT This Agreement is made by IBM and MSL.\n\n"
            "SECTION 1.0 DEFINITIONS\n\n1.1 \"Effective Date\" means the signing date.\n\n"
            "1.2 \"Days\" means business days.\n\nSECTION 2.0 TERM\n\n2.1 Term. Five years.\n\n"
            "2.2 Renewal. By agreement.\n")
    drafts = _drafts(text)
    assert drafts["front"].start == 0 and not any(d.kind == "schedule" for d in drafts.values())
    assert drafts["1"].number == (1,) and drafts["1.2"].parent is drafts["1"]
    assert drafts["2.2"].parent is drafts["2"]


def test_numbered_definitions_followed_by_exhibits_numbered_alike_are_no_contents() -> None:
    definitions = "\n".join(f"1.{n}   \"Term {n}\" shall mean the thing numbered {n} here."
                            for n in range(1, 7))
    exhibit = "\n".join(f"1.{n} Widget parts" for n in range(1, 5))
    text = (f"SECTION 1 DEFINITIONS\n\n{definitions}\n\nSECTION 2 TERM\n\n2.1 Term. One year."
            f"\n\n2.2 Renewal. None.\n\nEXHIBIT A\n\n{exhibit}\n")
    kinds = [kind for kind, _, _ in _outline(text)]
    assert "toc" not in kinds and "toc_entry" not in kinds
    assert {"1.1", "1.6", "2.2"} <= set(_drafts(text))


def test_rows_of_a_table_of_terms_are_nodes_titled_by_their_label() -> None:
    text = ("SUMMARY OF TERMS\n\nIssuer | Acme Corp.\n\nPrincipal Amount | $5,000,000\n\n"
            "Interest Rate (all cash) | 8.50% | payable quarterly\n\nMaturity | December 31, "
            "2027\n\nThe terms above are not binding.\n\nIN WITNESS WHEREOF the parties sign.\n\n"
            "By: | /s/ Jane Roe\n\nName: | Jane Roe\n")
    rows = [d for d in build_outline(text).drafts if d.kind == "row"]
    assert [r.title for r in rows] == ["Issuer", "Principal Amount", "Interest Rate (all cash)",
                                       "Maturity"]
    drafts = _drafts(text)
    # The sentence after the table is a paragraph of its own, not the last row's.
    maturity = next(r for r in rows if r.title == "Maturity")
    assert text[maturity.start:maturity.end] == "Maturity | December 31, 2027"
    assert any(d.kind == "paragraph" for d in drafts.values())


def test_recitals_and_attachments() -> None:
    text = ("LICENSE AGREEMENT\n\nThis Agreement is made on May 1, 2020 by Alpha Inc. and Beta "
            "LLC.\n\nRECITALS\n\nA. Alpha owns the software.\n\nB. Beta wishes to use it.\n\n"
            "NOW, THEREFORE, the parties agree as follows:\n\n1. Grant. Alpha grants a license."
            "\n\n2. Fee. Beta pays.\n\n3. Term. One year.\n\nSCHEDULE 1\n\nThe software.\n\n"
            "ANNEX A - Pricing\n\nTen dollars.\n")
    drafts = _drafts(text)
    recitals = next(d for d in drafts.values() if d.kind == "recitals")
    assert {c.label for c in recitals.children} >= {"A.", "B."}
    assert drafts["1"].parent is not None and drafts["1"].parent.kind == "document"
    attachments = [d for d in drafts.values() if d.kind == "schedule"]
    assert [(a.full_reference, a.title) for a in attachments] == [("schedule:1", ""),
                                                                  ("annex:a", "Pricing")]
    assert text[drafts["front"].start:drafts["front"].end].startswith("LICENSE AGREEMENT")


def test_running_text_after_the_signatures_ends_them() -> None:
    guarantee = ("For value received, the undersigned guarantees to the Licensor the full and "
                 "punctual payment of every amount the Licensee owes under the Agreement, and "
                 "agrees that this guarantee is one of payment and not of collection, and that it "
                 "stays in force until every such amount has been paid in full.")
    text = (f"1. Term. One year.\n\n2. Fee. Ten dollars.\n\n3. Law. New York.\n\nIN WITNESS "
            f"WHEREOF the parties sign.\n\nACME CORP.\n\nBy: /s/ Jane Roe Name: Jane Roe\n\n"
            f"{guarantee}\n\nThe guarantor waives notice.\n")
    drafts = _drafts(text)
    after = drafts["after-signatures"]
    assert text[after.start:after.end].startswith("For value received")
    assert text[after.start:after.end].endswith("waives notice.")
    signatures = drafts["signatures"]
    assert "For value" not in text[signatures.start:signatures.end]


def test_a_heading_in_capitals_run_into_a_long_line() -> None:
    sentence = "The decision of the arbitrator is final and binding on both parties. " * 5
    text = f"8. ARBITRATION {sentence}9. COSTS Each party bears its own costs. 10. NOTICES In writing."
    drafts = _drafts(text)
    assert (drafts["9"].title, drafts["10"].title) == ("COSTS", "NOTICES")


def test_a_heading_whose_number_is_printed_twice_is_read_once() -> None:
    # A conformed copy made by a comparison tool prints restyled headings twice.
    body = "The definitions of terms herein apply to the singular and the plural forms. " * 6
    text = (f"ARTICLE I ARTICLE I\n\nDefinitions\n\nSECTION 1.01. SECTION 1.01. Defined Terms. "
            f"{body}\n\nSECTION 1.02. SECTION 1.02. Terms Generally. {body}\n\n"
            "(a) (a) Each Borrowing shall be made as one Loan.\n\n(b) Each Lender may act.\n")
    drafts = _drafts(text)
    assert (drafts["art-1"].title, drafts["1.1"].title, drafts["1.2"].title) == (
        "Definitions", "Defined Terms", "Terms Generally")
    # Read once: no second 1.01 beside the first, and the lettered clauses stay a list.
    assert [d.local_id for d in build_outline(text).drafts].count("1.1") == 1
    assert drafts["1.2"].start < drafts["1.2(a)"].start < drafts["1.2(b)"].start


def test_a_numbered_list_inside_a_keyword_section_does_not_continue_its_numbering() -> None:
    text = ("SECTION 1. REPRESENTATIONS.\n\n(a) The Company represents that:\n\n"
            "(i) the filing is effective; and\n\n(ii) for this purpose:\n\n"
            "1. \"Applicable Time\" means each date of sale.\n\n"
            "2. \"Prospectus\" means the final prospectus.\n\n"
            "3. \"Road Show\" means a presentation to investors.\n\n"
            "SECTION 2. SALE OF THE SHARES. The Agent agrees to sell the shares.\n\n"
            "SECTION 3. COVENANTS. The Company shall file its reports.\n")
    drafts = _drafts(text)
    # The definitions are items of the list "1." opened, and the agreement's own sections
    # 2 and 3 are found after them.
    assert (drafts["2"].title, drafts["3"].title) == ("SALE OF THE SHARES", "COVENANTS")
    items = [d for d in build_outline(text).drafts if d.kind == "subclause"
             and text[d.start:d.end][:1].isdigit()]
    assert [text[d.start:d.start + 2] for d in items] == ["1.", "2.", "3."]


def test_numbered_paragraphs_before_the_words_of_agreement_are_recitals() -> None:
    text = ("HOSTING AGREEMENT\n\n1. Acme wishes to offer mobile services.\n\n"
            "2. Beta holds a licence to run a mobile network.\n\n"
            "3. The parties signed heads of terms, NOW, THEREFORE, the Parties have agreed as "
            "follows:\n\n1. DEFINITIONS\n\n1.1 \"Affiliate\" means a controlled entity.\n\n"
            "1.2 \"Launch Date\" means the first day of service.\n\n2. SCOPE\n\n"
            "2.1 Beta shall host Acme's services.\n")
    drafts = _drafts(text)
    # The agreement's own numbering begins again at 1 and keeps its ids; the numbered
    # paragraphs before the words of agreement are its recitals.
    assert (drafts["1"].title, drafts["2"].title) == ("DEFINITIONS", "SCOPE")
    assert drafts["1.1"].parent is drafts["1"] and drafts["2.1"].parent is drafts["2"]
    assert [d.kind for d in (drafts["recital-1"], drafts["recital-3"])] == ["recital", "recital"]
    assert text[drafts["recital-3"].start:].startswith("3. The parties")


def test_numbered_sections_without_the_words_of_agreement_stay_sections() -> None:
    text = ("SERVICES AGREEMENT\n\n1. SERVICES\n\nThe Supplier shall provide the services.\n\n"
            "2. FEES\n\nThe Customer shall pay the fees.\n\n3. TERM\n\nOne year.\n")
    drafts = _drafts(text)
    assert [drafts[i].title for i in ("1", "2", "3")] == ["SERVICES", "FEES", "TERM"]
    assert not any(local.startswith("recital") for local in drafts)


def test_a_recitals_own_items_move_with_it_and_free_the_agreements_numbers() -> None:
    text = ("SUPPLY AGREEMENT\n\n1. Acme makes widgets.\n\n1. Beta sells widgets.\n\n"
            "2. The parties wish to trade, NOW, THEREFORE, the parties agree as follows:\n\n"
            "1. SUPPLY\n\n1.1 Acme shall supply widgets.\n\n2. PRICE\n\n2.1 Beta shall pay.\n")
    drafts = _drafts(text)
    assert (drafts["1"].title, drafts["2"].title) == ("SUPPLY", "PRICE")
    # The repeated "1." is an item of the first recital and is renamed with it.
    assert {"recital-1", "recital-1(1)", "recital-2"} <= set(drafts)
    assert not any(local.startswith("1(") for local in drafts)


def test_the_words_of_agreement_inside_a_titled_section_open_its_own_list() -> None:
    text = ("AMENDMENT\n\n1. DEFINITIONS\n\nTerms have the meanings in the Agreement.\n\n"
            "2. AMENDMENTS\n\nThe parties agree as follows:\n\n1. Section 4 is deleted.\n\n"
            "2. Section 5 is restated.\n\n3. EFFECT\n\nThe Agreement otherwise stands.\n")
    drafts = _drafts(text)
    assert [drafts[i].title for i in ("1", "2", "3")] == ["DEFINITIONS", "AMENDMENTS", "EFFECT"]
    assert not any(local.startswith("recital") for local in drafts)


def test_a_heading_that_opens_with_a_name_in_lower_case_keeps_the_numbering() -> None:
    # "ctDNA" opens with a lower-case letter; the numbering must not stop at it, or every
    # later definition would hang under the one before.
    text = ("1. DEFINITIONS\n\n1.1 Cover\n\nThe term \"Cover\" means claimed by a patent.\n\n"
            "1.2 ctDNA\n\nThe term \"ctDNA\" means circulating tumor DNA.\n\n"
            "1.3 ctDNA Assay\n\nThe term \"ctDNA Assay\" means a test of ctDNA.\n\n"
            "1.4 Data\n\nThe term \"Data\" means results.\n\n2. LICENSES\n\n"
            "2.1 eBix shall receive the reports within 5.5 days.\n")
    drafts = _drafts(text)
    assert [drafts[i].title for i in ("1.2", "1.3", "1.4")] == ["ctDNA", "ctDNA Assay", "Data"]
    assert all(drafts[i].parent is drafts["1"] for i in ("1.1", "1.2", "1.3", "1.4"))
    assert drafts["2.1"].parent is drafts["2"]
    assert text[drafts["2.1"].start:].startswith("2.1 eBix")


def test_a_contents_list_printed_on_one_line_is_contents() -> None:
    entries = "  ".join(f"{n}.   {title}   {page}" for n, title, page in (
        (1, "Definitions", 3), (2, "Term", 4), (3, "Grant of License", 4), (4, "Fees", 5),
        (5, "Termination", 7), (6, "Notices", 9)))
    text = (f"ENDORSEMENT AGREEMENT\n\nTABLE OF CONTENTS\n\nParagraph   Page   {entries}\n\n"
            "1. Definitions. The following terms are defined.\n\n2. Term. Three years.\n\n"
            "3. Grant of License. Licensor grants a license.\n\n4. Fees. Ten dollars.\n\n"
            "5. Termination. Either party may end it.\n\n6. Notices. In writing.\n")
    outline = build_outline(text)
    listed = [d for d in outline.drafts if d.kind == "toc_entry"]
    assert len(listed) == 6
    # Each entry ends at its page number, and the real sections are the ones after the list.
    assert text[listed[1].start:listed[1].end].split() == ["2.", "Term", "4"]
    real = {d.local_id: d for d in outline.drafts if d.kind == "section"}
    assert sorted(real, key=int) == ["1", "2", "3", "4", "5", "6"]
    assert text[real["1"].start:].startswith("1. Definitions. The following")


def test_a_numbered_run_that_is_not_a_contents_list_is_not_cut_as_one() -> None:
    # Page numbers that fall, or a last entry that runs on into the text after it, mean the
    # line is not a contents list: it keeps the parse it had.
    falling = "  ".join(f"{n}.   Item   {9 - n}" for n in range(1, 8))
    run_on = "  ".join(f"{n}.   Item   {n}" for n in range(1, 8)) + \
        "  8. FEES The Customer shall pay " + "the fees when due and in full " * 8
    for line in (falling, run_on):
        outline = build_outline(f"AGREEMENT\n\n{line}\n\n1. Scope. The work.\n")
        assert not any(d.kind == "toc_entry" for d in outline.drafts), line[:40]


def test_run_on_clauses_begin_where_their_numbering_continues() -> None:
    # A converted PDF runs whole articles into one line, dropping full stops before the
    # numbers; a number that comes next in the numbering starts a clause there.
    text = ('SPONSORSHIP AGREEMENT\n\n1. Definitions. In this Agreement:\n\n1.1 "Term" means the '
            "period set out in Section 2 of this Agreement, as it may be extended. 1.2 \"Venue\" "
            "means the Arena. 2. Term of this Agreement. This Agreement lasts five years from the Effective Date "
            "unless it is terminated earlier under Section 14. 3. Sponsor Obligations 3.1 The "
            "Sponsor shall provide the rights listed in Schedule 1 at every event held at the "
            "Arena 3.2 The Sponsor "
            "shall pay the fee set out in Schedule 3 within thirty days of each invoice.\n")
    drafts = _drafts(text)
    assert {"1", "1.1", "1.2", "2", "3", "3.1", "3.2"} <= set(drafts)
    assert text[drafts["2"].start:].startswith("2. Term of this Agreement.")
    assert text[drafts["3.2"].start:].startswith("3.2 The Sponsor shall pay")
    assert drafts["3.1"].parent is drafts["3"] and drafts["3.2"].parent is drafts["3"]
    assert drafts["1.2"].parent is drafts["1"]


def test_a_number_that_does_not_continue_the_numbering_stays_in_its_clause() -> None:
    # Amounts and numbers out of sequence are text, not clauses: "7." after 3, "2.5" after 3.
    text = ("3. Payment. The Buyer shall pay the price within 2.5 Business Days of delivery, and "
            "the Seller shall refund any excess within ten days of its demand, in the currency of "
            "the invoice. 7. Late amounts bear interest at the rate of Schedule 2, and the Buyer "
            "shall pay the costs of collection when the Seller asks for them, with any taxes "
            "those costs bear, on the first day of the month after the Seller asks for them.\n")
    drafts = _drafts(text)
    assert not {"7", "2.5"} & set(drafts)
    assert text[drafts["3"].start:drafts["3"].end].rstrip().endswith("Seller asks for them.")


def test_a_cited_number_that_continues_the_numbering_stays_in_its_clause() -> None:
    # "3.1" comes next after 3, but after "Section" or a lower-case word it is cited or an
    # amount.
    text = ("3. Payment. The Buyer shall pay the price when due, and the Seller shall refund any "
            "excess within ten days of its demand, in the currency of the invoice, as Section "
            "3.1 Notices provides for every demand; late amounts bear interest at a rate of "
            "3.1 Percent above the base rate of the bank named in the Schedule, and the Buyer "
            "shall pay the costs of collection when the Seller asks for them in writing, with "
            "any taxes those costs bear, on the first day of the month after the Seller asks for "
            "them and in the currency in which the Seller incurred them in writing.\n")
    assert len(text) > 500
    drafts = _drafts(text)
    assert "3.1" not in drafts
    assert text[drafts["3"].start:drafts["3"].end].rstrip().endswith("incurred them in writing.")


def test_short_entries_run_into_one_line_are_not_cut_by_their_numbering() -> None:
    # A list of defined terms run into one line continues the numbering too, but an entry
    # holds no clause's worth of text: only the first part may follow its heading.
    terms = " ".join(f"1.{n} {word}" for n, word in enumerate(
        ("Affiliate", "Agreement", "Business Day", "Closing", "Control", "Effective Date",
         "Governmental Authority", "Intellectual Property", "Know-How", "Law", "Patent",
         "Person", "Product", "Regulatory Approval", "Territory", "Third Party", "Trademark",
         "Valid Claim", "Working Group", "Year", "Commercially Reasonable Efforts",
         "Confidential Information", "Development Plan", "Net Sales", "Royalty Term"), start=1))
    text = f"LICENCE AGREEMENT\n\n1. Defined Terms {terms}\n\n2. Grant. The Licensor grants a licence.\n"
    assert len(terms) > 400
    drafts = _drafts(text)
    assert "1.2" not in drafts and {"1", "2"} <= set(drafts)


def test_a_contents_list_on_one_line_keeps_every_entry_when_its_numbering_continues() -> None:
    # Its entries continue the numbering but are cut at their page numbers, as any contents
    # list on one line is; the numbering rule must not overrule that cut.
    names = ("Affiliate", "Agreement", "Agreement Term", "Applicable Law", "Approved Assay",
             "Business Day", "Calendar Quarter", "Calendar Year", "Clinical Study",
             "Confidential Information", "Control", "Development Plan", "Field", "Know-How",
             "Net Sales", "Patent Rights", "Territory", "Valid Claim")
    entries = ["1. Definitions   7", *(f"1.{n} {name}   {7 + n // 4}"
                                     for n, name in enumerate(names, start=1)), "2. Governance   12"]
    contents = "Table of Contents   " + "  ".join(entries)
    assert len(contents) > 400
    lines = split_lines(f"COLLABORATION AGREEMENT\n\n{contents}\n")
    assert [line.text.split("   ")[0] for line in lines[2:]] == [
        entry.split("   ")[0] for entry in entries]


_CLAUSE = "and every other provision of the Credit Agreement stays in full force and effect " * 2
_AMENDMENT = (f"SECOND AMENDMENT\n\n1. Amendment. The Credit Agreement is amended as set out in "
              f"Exhibit A, {_CLAUSE}.\n\n2. Effect. This amendment binds the parties {_CLAUSE}.\n\n"
              f"3. Law. New York law governs this amendment {_CLAUSE}.\n\n"
              f"IN WITNESS WHEREOF the parties sign.\n\nBy: /s/ Jane Roe\n\n")
_CONFORMED = ("TABLE OF CONTENTS\n\nARTICLE I | DEFINITIONS | 1\n\nARTICLE II | LOANS | 4\n\n"
              "ARTICLE III | DEFAULTS | 9\n\nCREDIT AGREEMENT\n\nThis Credit Agreement is made "
              "between the Borrower and the Lender.\n\nARTICLE I\n\nDEFINITIONS\n\n1.1 Terms. "
              "Words mean what they say.\n\nARTICLE II\n\nLOANS\n\n2.1 Amount. Ten dollars.\n\n"
              "ARTICLE III\n\nDEFAULTS\n\n3.1 Events. Non-payment.\n")


def test_a_contents_heading_below_an_attachments_cover_starts_the_list() -> None:
    text = (f"{_AMENDMENT}EXHIBIT A\n\nAMENDED CREDIT AGREEMENT\n\n[See attached]\n\n"
            f"CONFORMED THROUGH THE SECOND AMENDMENT\n\n{_CONFORMED}")
    drafts = _drafts(text)
    # The label and cover above the contents heading are the attachment's, not entries of
    # the list: a node retrieval can reach (a contents list never is a unit).
    exhibit = drafts["exhibit-a"]
    assert exhibit.title == "AMENDED CREDIT AGREEMENT" and not exhibit.is_toc_entry
    assert text[exhibit.start:exhibit.end].endswith("CONFORMED THROUGH THE SECOND AMENDMENT")
    toc = next(d for d in drafts.values() if d.kind == "toc")
    assert text[toc.start:].startswith("TABLE OF CONTENTS")
    entries = [d.label for d in drafts.values() if d.kind == "toc_entry"]
    assert entries == ["ARTICLE I", "ARTICLE II", "ARTICLE III"]
    assert [d.title for d in drafts.values() if d.kind == "article"] == [
        "DEFINITIONS", "LOANS", "DEFAULTS"]


def test_a_filing_label_above_the_contents_heading_leaves_the_opening_reachable() -> None:
    text = (f"CONFIDENTIAL\n\nExhibit 10.11 CREDIT AGREEMENT\n\nBY AND BETWEEN ALPHA BANK AND "
            f"BETA LLC\n\ndated May 1, 2014\n\n{_CONFORMED}")
    drafts = _drafts(text)
    holding = [d for d in drafts.values() if d.kind != "document" and not d.children
               and "BETA LLC" in text[d.start:d.end]]
    assert len(holding) == 1 and not holding[0].is_toc_entry
    toc = next(d for d in drafts.values() if d.kind == "toc")
    assert text[toc.start:].startswith("TABLE OF CONTENTS")
