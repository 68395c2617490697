"""Salient terms of a question: names, products, commands, options, versions, code spans."""

from __future__ import annotations

import pytest

from notecite.retrieve.salient import (
    MissingTerms,
    lowercase_names,
    maybe_own_names,
    name_groups,
    own_names,
    salient_terms,
    variants,
    without_names,
    without_own_names,
    writes_no_capitals,
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Can Foam import notes from Logseq?", ["Foam", "Logseq"]),
        # written without capitals: a word English does not know is a name
        ("can foam import notes from logseq", ["logseq"]),
        ("can foam import notes from logseq? I'd like that.", ["logseq"]),
        # one who capitalises a sentence's start capitalises names too
        ("Can foam import notes from logseq?", []),
        # ... but not a word English knows, nor a short one (as often a typo), nor a
        # misspelt English word
        ("can foam import notes from notion or opml", []),
        ("Where is the panel of unconnceted notes?", []),
        # a question that writes its names with capitals is read by them alone
        ("Can Foam import notes from logseq?", ["Foam"]),
        ("How do I set foam.openDailyNote.filenameFormat?", ["foam.openDailyNote.filenameFormat"]),
        ("What changed in v0.19?", ["v0.19"]),
        # a range of versions: the notes write each release ("0.52"), never the range
        ("Upgrading from a really old Dendron (0.5x), what breaks?", ["Dendron"]),
        ("Does the 2.x line of Foam still read v1.x templates?", ["Foam"]),
        ("Is there a --force flag for publish?", ["--force"]),
        ("Does `git push --tags` publish it?", ["git push --tags"]),
        ("Is the PDF export in GitHub?", ["PDF", "GitHub"]),
        ('What does "backlinks panel" show?', ["backlinks panel"]),
        ("Where do I keep daily notes?", []),
        ("What is the follow-up, e.g. for the review in 2024?", []),
        ("When was it moved? Maria said so.", []),  # a sentence start is not a name
        # a phrase written as one word: its names count one by one
        ("Which tool does the Word-to-Markdown recipe use?", ["Word", "Markdown"]),
        ("Does Foam-Lite sync?", ["Foam-Lite"]),
        # a month or a weekday is part of a date, which notes may write as 2021-06-21
        ("What did the June 2021 release of Dendron add?", ["Dendron"]),
        ("What changed on Monday, March 15?", []),
        ("Who was the 4th to rule the Yuan dynasty?", ["Yuan"]),  # notes may write "fourth"
        # a time of day is the asker's moment, like a year
        (
            "How do I restore Postgres to 1:30 last night with pgBackRest?",
            ["Postgres", "pgBackRest"],
        ),
        ("Can the 9pm backup run at 21:15 instead?", []),
        ("Is 7:45am too early for v0.19?", ["v0.19"]),
        # what a link or an embed points to is the asker's own note or file
        ("Why is ![[photo.png|300]] still huge in Foam?", ["Foam"]),
        ("Does every [[note#Heading]] link follow a renamed heading?", []),
        ("Does ![chart](chart-v2.svg) show in the preview?", []),
    ],
)
def test_salient_terms(question: str, expected: list[str]) -> None:
    assert salient_terms(question) == expected


def test_a_name_and_the_adjective_made_of_it_are_one_term() -> None:
    assert "Canadian" in variants("Canada")
    assert "Canada" in variants("Canadian")
    assert "Palestinian" in variants("Palestine")
    assert "Japan" in variants("Japanese")
    assert "Korea" in variants("Korean")
    assert "Italy" in variants("Italian")
    assert "Brazilian" in variants("Brazil")
    assert "Germ" not in variants("German")  # a stem too short to stand alone


def test_a_device_and_the_system_it_runs_are_one_term() -> None:
    assert "iOS" in variants("iPhone")
    assert "iPhone" in variants("iOS")
    assert "macOS" in variants("MacBook")
    assert "iOS" not in variants("Android")


def test_variants_split_camel_case() -> None:
    assert variants("VSCode") == ["VSCode", "VS Code"]
    assert variants("filenameFormat") == ["filenameFormat", "filename Format"]
    assert variants("logseq") == ["logseq"]


def test_a_name_with_a_lowercase_suffix_is_also_looked_up_alone() -> None:
    assert variants("Vercel-hosted") == ["Vercel-hosted", "Vercel"]
    assert variants("Foam-Lite") == ["Foam-Lite"]


def test_a_site_is_also_looked_up_by_its_name() -> None:
    assert "vscode" in variants("vscode.dev")
    assert "obsidian" in variants("obsidian.md")
    assert "Logseq" in variants("Logseq.com")
    assert variants("foam.graph") == ["foam.graph"]  # a setting's key is no site


def test_a_version_is_also_looked_up_with_and_without_its_v() -> None:
    assert variants("v0.55") == ["v0.55", "0.55"]
    assert variants("0.116.1") == ["0.116.1", "v0.116.1"]
    assert variants("mp3") == ["mp3"]


def test_absent_terms_settle_a_question_from_a_third_of_its_salient_terms() -> None:
    assert MissingTerms(("Foam", "Logseq"), ("Logseq",)).settled
    assert MissingTerms(("Dendron", "CLI", "Homebrew"), ("Homebrew",)).settled
    lesser = MissingTerms(("iPhone", "Drafts", "Shortcuts", "GitHub"), ("iPhone",), ("Drafts",))
    assert not lesser.settled
    assert lesser.unheld == ("iPhone", "Drafts")  # what the model is told the notes lack
    assert not MissingTerms(("Foam",)).settled


def test_adjacent_salient_terms_are_one_name_when_absent_terms_settle_a_question() -> None:
    question = (
        "Is there an Alfred workflow so I can run Dendron lookups without switching to VS Code?"
    )
    terms = salient_terms(question)
    names = name_groups(question, terms)
    assert names == (("Alfred",), ("Dendron",), ("VS", "Code"))
    # one absent name of three settles it; counted as terms it would be one of four
    assert MissingTerms(tuple(terms), ("Alfred",), names=names).settled
    assert not MissingTerms(tuple(terms), ("Alfred",)).settled
    # a name with any absent word is absent once ("Foam Lite": Foam is in the notes)
    lite = "Does Foam Lite sync with GitHub and Obsidian?"
    lite_terms = salient_terms(lite)
    lite_names = name_groups(lite, lite_terms)
    assert lite_names == (("Foam", "Lite"), ("GitHub",), ("Obsidian",))
    assert MissingTerms(tuple(lite_terms), ("Lite",), names=lite_names).settled


@pytest.mark.parametrize(
    ("question", "names", "salient"),
    [
        ("How do I create a note called `project-phoenix`?", ["`project-phoenix`"], []),
        ("How do I rename the tag #todo to #someday?", ["#someday"], ["#todo"]),
        ("Renaming #todo to #tasks stops: #tasks already exists. Why?", ["#tasks"], ["#todo"]),
        ("Can I move it to a folder named Archive2024?", ["Archive2024"], []),
        ("How do I make a new note titled Phoenix Launch Plan?", ["Phoenix Launch Plan"], []),
        (
            'I made a folder called "Work Notes" in Dendron. Is it a vault?',
            ['"Work Notes"'],
            ["Dendron"],
        ),
        # whether a plugin or a tool exists is what a near miss asks: it stays a name
        ("Is there a plugin called Dataview for Foam?", [], ["Dataview", "Foam"]),
        ("Does Foam sync with Logseq?", [], ["Foam", "Logseq"]),
        # after "rename ... to", a plain word is no name
        ("How do I rename a note to match its title?", [], []),
        ("How do I rename a folder to archive-2024?", ["archive-2024"], []),
        # a pronoun is no name
        ("I renamed a note and the links to it broke. How should I have renamed it?", [], []),
    ],
)
def test_a_name_the_asker_gives_their_own_note_is_not_a_salient_term(
    question: str, names: list[str], salient: list[str]
) -> None:
    assert own_names(question) == names
    assert salient_terms(question) == salient
    for name in names:
        assert name not in without_own_names(question)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I link my note meeting-2024 from another note?", ["meeting-2024"]),
        ("How do I rename my note ProjectX and keep links working?", ["ProjectX"]),
        (
            "Can my daily note 2024-01-05 embed our project note Phoenix Plan?",
            ["2024-01-05", "Phoenix Plan"],
        ),
        ("I keep recipes in a folder recipes/cooking. Can the graph hide it?", ["recipes/cooking"]),
        ("Where in a file `settings.json` do I set it?", ["`settings.json`"]),
        # a name before the thing is a product: "my Logseq vault" asks whether Logseq works
        ("Does Foam sync with my Logseq vault?", []),
        # after "a" / "an", a plain capitalised word is no name
        ("Does a note Foam made show up in the graph?", []),
        ("How do I move my notes to a folder Archive?", []),
        # a pronoun or a plain word is no name
        ("When I open my note I see nothing. Why?", []),
        ("Can I tag my page with #work?", []),
        # "called" is own_names' to find
        ("Is there a plugin called Dataview?", []),
        # an example the asker gives after "like", "such as", "e.g.", written as a name
        (
            "Will a note three levels down like project.alpha.notes still match the schema?",
            ["project.alpha.notes"],
        ),
        ("I have notes named like dendron.foo. Can I rename them all?", ["dendron.foo"]),
        ("Can tags such as #todo/urgent be nested?", ["#todo/urgent"]),
        # in single quotes too, and an example of a name or a title the asker has
        (
            "My hook returns a name like 'Weekly Review Notes'. Is it kept as it is?",
            ["'Weekly Review Notes'"],
        ),
        ("Can a title such as \u2018Q3 plan\u2019 hold a colon?", ["\u2018Q3 plan\u2019"]),
        # an apostrophe is no quote
        ("Does the user's note keep its title like that's?", []),
        # a product after "like" stays: whether it exists is what a near miss asks
        ("Can I import notes from an app like Logseq?", []),
        ("Does it work with a plugin like dataview-v2?", []),
    ],
)
def test_a_name_after_my_note_or_a_folder_may_be_the_askers_own(
    question: str, names: list[str]
) -> None:
    assert maybe_own_names(question) == names


def test_without_names_leaves_out_every_mention() -> None:
    question = "Link my note plan-b from plan-b-notes and from plan-b?"
    assert without_names(question, ["plan-b"]) == "Link my note  from plan-b-notes and from ?"


@pytest.mark.parametrize(
    ("question", "lowercase"),
    [
        ("does foam sync with logseq", True),
        ("does foam sync with logseq? I hope so.", True),
        ("I'm asking: does foam sync?", True),
        ("Does foam sync with logseq?", False),
        ("Does Foam sync with logseq?", False),
        ("does foam sync with GitHub", False),
    ],
)
def test_a_question_written_without_capitals_is_told_apart(question: str, lowercase: bool) -> None:
    assert writes_no_capitals(question) is lowercase


def test_lowercase_names_leave_out_the_words_english_knows() -> None:
    assert lowercase_names("can syncthing or dropbox keep notion and obsidian in sync") == [
        "syncthing",
        "dropbox",
    ]


def test_absent_names_are_said_as_the_question_writes_them() -> None:
    missing = MissingTerms(
        salient=("Decap", "CMS", "Netlify", "Obsidian"),
        not_in_vaults=("CMS", "Decap"),
        names=(("Decap", "CMS"), ("Netlify",), ("Obsidian",)),
    )
    assert missing.absent_names == ("Decap CMS",)
    alone = MissingTerms(salient=("Logseq", "Foam"), not_in_vaults=("Logseq",))
    assert alone.absent_names == ("Logseq",)
