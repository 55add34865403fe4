"""The 41 CUAD clause categories as questions: our template for each, what its answer column
holds, and the kind, practice area and difficulty its questions get.

Each template names the contract (``{contract}``: its title and parties, as a lawyer would,
e.g. "the Co-Branding and Advertising Agreement between I-Escrow, Inc. and 2TheMart.com,
Inc.") and never quotes the clause. Two categories cannot name the contract by what they ask
for: "Document Name" names it by its parties alone (``{parties}``), "Parties" by its title and
one party (``{title}``, ``{party}``).

The answer types:

- ``yes_no``: CUAD's answer is Yes or No; the question is a yes/no question, and "Yes" (or,
  for a contract without the clause, "No") is the key fact.
- ``date``: a date (m/d/yy), sometimes only its year; ``expiry``: a date or "perpetual".
- ``duration``: a term such as "successive 1 year" or "30 days".
- ``jurisdiction``: a US state or a country, sometimes several.
- ``title`` and ``parties``: the contract's name and the parties to it.

The kind says what answering takes: ``lookup`` (read one provision), ``definition`` (the clause
usually turns on a defined term, as "Change of Control" does), ``crossref`` (the clause is an
exception to another and is read against it). ``scope`` says which documents of a family
(an agreement filed with its amendments) a question asks about: ``family`` all of them,
``base`` the agreement itself (its date and name are not its amendments').
"""

from __future__ import annotations

from dataclasses import dataclass

ANSWER_TYPES = ("yes_no", "date", "expiry", "duration", "jurisdiction", "title", "parties")


@dataclass(frozen=True)
class CuadCategory:
    """One CUAD clause category, as our question generator asks about it."""

    column: str
    """The category's excerpt column in master_clauses.csv."""
    slug: str
    template: str
    answer: str
    subject: str
    """What the clause provides, as the object of "contains" ("a non-compete")."""
    kind: str
    practice_area: str
    difficulty: str
    scope: str = "family"


def _yes_no(column: str, slug: str, template: str, subject: str, area: str,
            difficulty: str = "medium", kind: str = "lookup") -> CuadCategory:
    return CuadCategory(column, slug, template, "yes_no", subject, kind, area, difficulty)


CATEGORIES: tuple[CuadCategory, ...] = (
    CuadCategory("Document Name", "document-name",
                 "What is the title of the agreement between {parties}?",
                 "title", "a title", "lookup", "general", "easy", scope="base"),
    CuadCategory("Parties", "parties", "Besides {party}, who is a party to {title}?",
                 "parties", "a statement of its parties", "lookup", "general", "easy",
                 scope="base"),
    CuadCategory("Agreement Date", "agreement-date",
                 "On what date was {contract} entered into?",
                 "date", "the date it was entered into", "lookup", "general", "easy",
                 scope="base"),
    CuadCategory("Effective Date", "effective-date",
                 "On what date does {contract} take effect?",
                 "date", "the date it takes effect", "lookup", "general", "easy", scope="base"),
    CuadCategory("Expiration Date", "expiration-date",
                 "When does the initial term of {contract} end?",
                 "expiry", "the end of its initial term", "lookup", "term and termination",
                 "medium"),
    CuadCategory("Renewal Term", "renewal-term",
                 "Once its initial term ends, for what period does {contract} renew?",
                 "duration", "a renewal term", "lookup", "term and termination", "medium"),
    CuadCategory("Notice Period To Terminate Renewal", "renewal-notice-period",
                 "How much notice must a party give to stop {contract} from renewing?",
                 "duration", "a notice period for ending its renewal", "lookup",
                 "term and termination", "medium"),
    CuadCategory("Governing Law", "governing-law",
                 "Which jurisdiction's law governs {contract}?",
                 "jurisdiction", "a choice of governing law", "lookup", "dispute resolution",
                 "easy"),
    _yes_no("Most Favored Nation", "most-favored-nation",
            "Does {contract} entitle a party to better terms that its counterparty later grants "
            "a third party for the same goods, services or technology?",
            "a most-favoured-nation clause", "commercial", "hard"),
    _yes_no("Competitive Restriction Exception", "competitive-restriction-exception",
            "Does {contract} carve out exceptions to its restrictions on competition, exclusive "
            "dealing or soliciting customers?",
            "an exception to its competitive restrictions", "competition", "hard",
            kind="crossref"),
    _yes_no("Non-Compete", "non-compete",
            "Does {contract} restrict a party from competing with the other, or from operating "
            "in a territory, business or technology sector?",
            "a non-compete", "competition"),
    _yes_no("Exclusivity", "exclusivity",
            "Does {contract} commit a party to deal exclusively with the other, for example by "
            "buying all its requirements from it or by not selling to or working with third "
            "parties?",
            "an exclusivity commitment", "competition"),
    _yes_no("No-Solicit Of Customers", "no-solicit-of-customers",
            "Does {contract} bar a party from soliciting or contracting with the other's "
            "customers or partners?",
            "a ban on soliciting the other party's customers", "competition"),
    _yes_no("No-Solicit Of Employees", "no-solicit-of-employees",
            "Does {contract} bar a party from soliciting or hiring the other's employees or "
            "contractors?",
            "a ban on soliciting the other party's employees", "employment"),
    _yes_no("Non-Disparagement", "non-disparagement",
            "Does {contract} oblige a party not to disparage the other?",
            "a non-disparagement obligation", "commercial", "easy"),
    _yes_no("Termination For Convenience", "termination-for-convenience",
            "May a party terminate {contract} without cause, just by giving notice?",
            "a right to terminate for convenience", "term and termination"),
    _yes_no("Rofr/Rofo/Rofn", "first-refusal-offer-negotiation",
            "Does {contract} give a party a right of first refusal, first offer or first "
            "negotiation?",
            "a right of first refusal, first offer or first negotiation", "corporate"),
    _yes_no("Change Of Control", "change-of-control",
            "Under {contract}, does a change of control of a party (a merger, or a sale of its "
            "shares or of substantially all its assets) let the other terminate, or require "
            "its consent or notice?",
            "a change-of-control provision", "corporate", "hard", kind="definition"),
    _yes_no("Anti-Assignment", "anti-assignment",
            "Does {contract} require a party to obtain consent or give notice before assigning "
            "it?",
            "a restriction on assignment", "corporate", "easy"),
    _yes_no("Revenue/Profit Sharing", "revenue-profit-sharing",
            "Does {contract} require a party to share revenue or profits with the other?",
            "revenue or profit sharing", "commercial"),
    _yes_no("Price Restrictions", "price-restrictions",
            "Does {contract} limit a party's freedom to raise or lower its prices?",
            "a restriction on prices", "commercial", "hard"),
    _yes_no("Minimum Commitment", "minimum-commitment",
            "Does {contract} commit a party to a minimum order, purchase amount or volume per "
            "period?",
            "a minimum commitment", "commercial"),
    _yes_no("Volume Restriction", "volume-restriction",
            "Under {contract}, does a party's use of the products or services above a threshold "
            "trigger a higher fee or a need for consent?",
            "a volume restriction", "commercial", "hard"),
    _yes_no("Ip Ownership Assignment", "ip-ownership-assignment",
            "Under {contract}, does intellectual property created by one party become the "
            "property of the other?",
            "an assignment of intellectual property", "intellectual property"),
    _yes_no("Joint Ip Ownership", "joint-ip-ownership",
            "Does {contract} provide for intellectual property owned jointly by the parties?",
            "joint ownership of intellectual property", "intellectual property"),
    _yes_no("License Grant", "license-grant",
            "Does {contract} grant a licence from one party to the other?",
            "a licence grant", "licensing", "easy"),
    _yes_no("Non-Transferable License", "non-transferable-license",
            "Does {contract} limit a party's ability to transfer a licence granted under it?",
            "a restriction on transferring a licence", "licensing"),
    _yes_no("Affiliate License-Licensor", "affiliate-license-licensor",
            "Does {contract} include a licence granted by the licensor's affiliates, or of "
            "intellectual property its affiliates own?",
            "a licence from the licensor's affiliates", "licensing", "hard"),
    _yes_no("Affiliate License-Licensee", "affiliate-license-licensee",
            "Does {contract} extend a licence to the licensee's affiliates?",
            "a licence to the licensee's affiliates", "licensing"),
    _yes_no("Unlimited/All-You-Can-Eat-License", "unlimited-license",
            "Does {contract} grant an unlimited, enterprise-wide or all-you-can-eat licence?",
            "an unlimited-usage licence", "licensing", "hard"),
    _yes_no("Irrevocable Or Perpetual License", "irrevocable-or-perpetual-license",
            "Does {contract} grant a licence that is irrevocable or perpetual?",
            "an irrevocable or perpetual licence", "licensing"),
    _yes_no("Source Code Escrow", "source-code-escrow",
            "Does {contract} require a party to place source code in escrow, for release to the "
            "other on events such as insolvency?",
            "a source code escrow", "technology"),
    _yes_no("Post-Termination Services", "post-termination-services",
            "Does {contract} leave a party with obligations after it ends, such as transition "
            "services, a wind-down, final purchases or payments?",
            "obligations that survive its end", "term and termination", "hard"),
    _yes_no("Audit Rights", "audit-rights",
            "Does {contract} give a party the right to audit the other's books, records or "
            "premises?",
            "audit rights", "compliance"),
    _yes_no("Uncapped Liability", "uncapped-liability",
            "Does {contract} leave a party's liability uncapped for some breach, such as "
            "infringement or breach of confidentiality?",
            "uncapped liability", "liability", "hard", kind="crossref"),
    _yes_no("Cap On Liability", "cap-on-liability",
            "Does {contract} cap a party's liability, in amount or in the time allowed to bring "
            "claims?",
            "a cap on liability", "liability"),
    _yes_no("Liquidated Damages", "liquidated-damages",
            "Does {contract} provide for liquidated damages or a termination fee?",
            "liquidated damages or a termination fee", "liability"),
    _yes_no("Warranty Duration", "warranty-duration",
            "Does {contract} set how long a warranty against defects or errors lasts?",
            "a limit on the duration of a warranty", "liability"),
    _yes_no("Insurance", "insurance",
            "Does {contract} require a party to carry insurance for the other's benefit?",
            "an insurance requirement", "liability", "easy"),
    _yes_no("Covenant Not To Sue", "covenant-not-to-sue",
            "Does {contract} bar a party from challenging the other's intellectual property or "
            "from suing it over matters outside the agreement?",
            "a covenant not to sue", "intellectual property", "hard"),
    _yes_no("Third Party Beneficiary", "third-party-beneficiary",
            "Does {contract} give anyone who is not a party a right to enforce any of its terms?",
            "a third-party beneficiary", "commercial"),
)
