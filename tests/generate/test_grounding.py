"""Claim-level grounding: each claim of an answer against the lines of its sources."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime

import pytest

from notecite.generate.base import ContextSource
from notecite.generate.dates import days_named
from notecite.generate.grounding import (
    Grounder,
    _without_context_lead_in,
    content_terms,
    header_copies_removed,
    line_terms,
    locate,
    paths_as_markers,
    root,
    split_claims,
    title_fields_as_text,
)

SOURCES = (
    ContextSource(
        "N1",
        "notes",
        "apollo.md",
        "# Apollo > ## Launch",
        "## Launch\nThe Apollo launch is on March 14 at the Lisbon office.\n- Budget: 40000 euros",
        line_start=3,
    ),
    ContextSource(
        "N2",
        "notes",
        "risks.md",
        "# Risks",
        "A storm could delay the launch by a week.\n![chart](chart.png)\n[ref]: http://x.y",
        line_start=1,
    ),
)


def test_claims_keep_the_markers_written_after_their_stop() -> None:
    claims = split_claims("It is on March 14. [N1] A storm could delay it [N2].\n- Budget [N1]")
    assert [c.body for c in claims] == [
        "It is on March 14.",
        "A storm could delay it.",
        "- Budget",
    ]
    assert [c.cids for c in claims] == [("N1",), ("N2",), ("N1",)]


def test_markers_on_a_line_of_their_own_belong_to_the_claim_before_them() -> None:
    claims = split_claims("Add this entry to your settings:\n\n[N1]\nIt is on March 14.\n[N2] [N3]")
    assert [c.text for c in claims] == [
        "Add this entry to your settings: [N1]",
        "It is on March 14 [N2] [N3].",
    ]
    assert [c.cids for c in claims] == [("N1",), ("N2", "N3")]


def test_a_lead_in_whose_marker_stands_on_the_next_line_is_repaired_with_its_line() -> None:
    grounding = Grounder().ground("The budget is as follows:\n\n[N1]", SOURCES, "What budget?")
    assert "40000 euros" in grounding.text
    assert grounding.cited == ("N1",)


def test_a_numbered_list_item_stays_one_claim() -> None:
    answer = "Steps:\n\n1. Open the Apollo plan. [N1]\n2. Check the budget [N1]."
    claims = split_claims(answer)
    assert [c.body for c in claims] == [
        "Steps:",
        "1. Open the Apollo plan.",
        "2. Check the budget.",
    ]
    grounding = Grounder().ground(
        "The launch is:\n1. On March 14 at the Lisbon office [N1].", SOURCES, "When?"
    )
    assert grounding.text == "The launch is:\n1. On March 14 at the Lisbon office [N1]."


def test_numbers_and_code_spans_weigh_double_and_filler_is_left_out() -> None:
    terms = content_terms("Yes, the `sync` mode uses port 8080 in Foam.")
    assert terms["sync"] == 2.0
    assert terms["8080"] == 2.0
    assert terms["foam"] == 1.5
    assert "yes" not in terms
    assert "uses" not in terms


def test_a_supported_claim_keeps_its_line_and_number() -> None:
    grounding = Grounder().ground("The launch is on March 14 [N1].", SOURCES, "When is it?")
    (claim,) = grounding.claims
    assert claim.status == "supported"
    assert claim.support is not None
    assert claim.support.text == "The Apollo launch is on March 14 at the Lisbon office."
    assert claim.support.line == 4  # the second line of a text that starts on line 3
    assert grounding.text == "The launch is on March 14 [N1]."


def test_a_wrong_number_is_not_supported_and_the_claim_goes() -> None:
    answer = "The launch is on March 14 [N1]. The budget is 50000 euros [N1]."
    grounding = Grounder().ground(answer, SOURCES, "Tell me about Apollo")
    assert [c.status for c in grounding.claims] == ["supported", "unsupported"]
    assert grounding.text == "The launch is on March 14 [N1]."
    assert grounding.removed == 1


def test_a_number_written_with_its_unit_holds_the_number() -> None:
    """ "--timeout 10m" says the "10 minutes" of a claim; "--timeout 15m" does not."""
    runbook = ContextSource(
        "N1",
        "notes",
        "deploy.md",
        "# Deploy",
        "helm upgrade gateway charts/gateway --atomic --timeout 10m",
        line_start=1,
    )
    assert "10" in line_terms("--timeout 10m")
    assert "10" in line_terms("a 10GB disk")
    assert "10" not in line_terms("release v10 of a 100m track")
    right = Grounder().ground("The helm timeout is 10 minutes [N1].", (runbook,), "Helm timeout?")
    assert [c.status for c in right.claims] == ["supported"]
    wrong = Grounder().ground("The helm timeout is 15 minutes [N1].", (runbook,), "Helm timeout?")
    assert [c.status for c in wrong.claims] == ["unsupported"]


def test_a_claim_about_what_a_person_said_needs_a_source_that_names_them() -> None:
    """ "What did Dana say about retention?" answered with the points Ines made at a meeting
    Dana was not at: a claim that restates Dana needs a source that names her."""
    review = ContextSource(
        "N1",
        "work",
        "meetings/retention review.md",
        "# Retention review > ## Ines's points",
        "Attendees: me, Leila, Ines\n- Longer retention is fine within 30-day deletions.",
    )
    sync = ContextSource(
        "N2", "work", "meetings/sync.md", "# Sync", "- Dana: keep 30 days of raw events."
    )
    question = "What did Dana say about retention?"
    wrong = Grounder().ground(
        "Dana said longer retention is fine within 30-day deletions [N1].", (review, sync), question
    )
    assert [c.status for c in wrong.claims] == ["unsupported"]
    # the claim leaves the name out, and no source it stands on names Dana: it cannot stand
    unnamed = Grounder().ground(
        "Longer retention is fine within 30-day deletions [N1].", (review, sync), question
    )
    assert [c.status for c in unnamed.claims] == ["unsupported"]
    assert unnamed.text == ""
    right = Grounder().ground(
        "Dana said to keep 30 days of raw events [N2].", (review, sync), question
    )
    assert [c.status for c in right.claims] == ["supported"]
    ines = Grounder().ground(
        "Longer retention is fine within 30-day deletions [N1].",
        (review, sync),
        "According to Ines, is longer retention fine?",
    )
    assert [c.status for c in ines.claims] == ["supported"]


def test_a_claim_about_a_name_the_question_owns_needs_a_source_that_names_it() -> None:
    """ "Dana's birthday" answered from Leila's note: the line holds "Birthday June 30", but
    not Dana, whom the question asks about. A source that names her (in its text, title or
    path) can support it."""
    dana = ContextSource(
        "N1", "team", "people/dana-whitlock.md", "# Dana Whitlock", "- Birthday August 14."
    )
    leila = ContextSource(
        "N2", "team", "people/leila-haddad.md", "# Leila Haddad", "- Birthday June 30."
    )
    question = "What's Dana's birthday again?"
    wrong = Grounder().ground("Dana's birthday is June 30 [N2].", (dana, leila), question)
    assert [c.status for c in wrong.claims] == ["unsupported"]
    right = Grounder().ground("Dana's birthday is August 14 [N1].", (dana, leila), question)
    assert [c.status for c in right.claims] == ["supported"]
    # "Today's" names no one
    today = Grounder().ground("Today's birthday is June 30 [N2].", (dana, leila), "Today's?")
    assert [c.status for c in today.claims] == ["supported"]
    # no owner in the question: the line alone decides, as before
    plain = Grounder().ground("The birthday is June 30 [N2].", (dana, leila), "Whose birthday?")
    assert [c.status for c in plain.claims] == ["supported"]


def test_a_line_is_read_under_its_notes_title() -> None:
    release = ContextSource(
        "N1",
        "d",
        "changelog.release.2021-06-21.md",
        "### Highlights",
        "- **Calendar view for daily journal.** See every journal note at a glance.",
        line_start=14,
        title="0.47",
    )
    answer = "The calendar view for the daily journal came with release 0.47 [N1]."
    (claim,) = Grounder().ground(answer, (release,), "Which release added it?").claims
    assert claim.status == "supported"
    assert claim.support is not None
    assert claim.support.line == 14
    untitled = dataclasses.replace(release, title="")
    (claim,) = Grounder().ground(answer, (untitled,), "Which release added it?").claims
    assert claim.status == "unsupported"  # 0.47 is nowhere in what the model was shown


# a release note titled by its version, as Dendron's are
PASSWORD_RELEASE = ContextSource(
    "N1",
    "d",
    "changelog.release.2021-03-15.md",
    "### Highlights",
    "- **Password protected sites**: publish behind a password.",
    line_start=9,
    title="0.33",
)


def test_a_marker_pointing_at_a_release_note_is_repaired_with_its_title() -> None:
    release = PASSWORD_RELEASE
    answer = "The release that added password protection is [N1]."
    grounding = Grounder().ground(answer, (release,), "Which release added password protection?")
    assert grounding.text == (
        "The release that added password protection is 0.33: "
        "**Password protected sites**: publish behind a password [N1]."
    )
    grounding = Grounder().ground(answer, (release,), "How do I protect a site?")
    assert "0.33" not in grounding.text  # not a question about a release
    # the model copied the source's path from its header instead of citing it
    copied = "The release that added password protection is [N1] changelog.release.2021-03-15."
    grounding = Grounder().ground(copied, (release,), "Which release added password protection?")
    assert grounding.text.startswith("The release that added password protection is 0.33: ")


def test_a_title_field_copied_from_a_header_is_written_as_the_title() -> None:
    release = PASSWORD_RELEASE
    question = "Which release added password protection?"
    copied = "The release that added password protection was (title: 0.33) [N1]."
    grounding = Grounder().ground(copied, (release,), question)
    assert grounding.text == "The release that added password protection was 0.33 [N1]."
    # said twice, it is said once; a parenthesis that is not the header's field stays
    twice = "Password protection came with 0.33 (title: 0.33) (see Highlights) [N1]."
    grounding = Grounder().ground(twice, (release,), question)
    assert grounding.text == "Password protection came with 0.33 (see Highlights) [N1]."
    # a named argument in code is not the header's field
    coded = 'Lock it with `Lock(title: "0.33")` [N1].'
    assert title_fields_as_text(coded) == coded


def test_a_source_header_copied_after_a_marker_is_left_out() -> None:
    # the model cited N2, then copied N1's header with its path misspelt: the marker stays,
    # and the release it names is N2's
    sources = (
        PASSWORD_RELEASE,
        ContextSource(
            "N2",
            "d",
            "changelog.md",
            "## 0.34.0 > ### Enhancements",
            "- feat(publish): a password protects the whole site",
            line_start=70,
            title="Changelog",
        ),
    )
    question = "Which release let a password protect the whole site?"
    copied = (
        "The release that let a password protect the whole site was [N2] changelog "
        "release.2021-03-15 (title: 0.33) | Highlights."
    )
    assert header_copies_removed(copied, sources) == (
        "The release that let a password protect the whole site was [N2]."
    )
    assert (
        Grounder()
        .ground(copied, sources, question)
        .text.startswith("The release that let a password protect the whole site was 0.34.0: ")
    )
    # a section no source's header shows, or one not after a marker, is the answer's own
    table = "| Setting | Highlights |\n| --- | --- |"
    assert header_copies_removed(table, sources) == table
    other = "It is set in [N1] the site config | Publishing."
    assert header_copies_removed(other, sources) == other


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_a_copied_header_inside_another_is_left_out_whole_in_any_order(
    order: tuple[int, int],
) -> None:
    """Two sources' sections, one inside the other ("Description" and "Description >
    Disabling colors"): the longer is left out first, whatever order the sources (or a set
    of their sections) come in, so the same answer always reads the same."""
    outer = ContextSource("N1", "d", "tags.md", "# Tags > ## Description", "Tags.")
    inner = ContextSource(
        "N2", "d", "tags.md", "# Tags > ## Description > ### Disabling colors", "Off."
    )
    sources = (outer, inner)
    copied = "The line is: [N2] tags | Description > Disabling colors."
    shuffled = tuple(sources[i] for i in order)
    assert header_copies_removed(copied, shuffled) == "The line is: [N2]."


def test_a_marker_pointing_at_a_changelog_section_is_repaired_with_its_version() -> None:
    changelog = ContextSource(
        "N1",
        "d",
        "changelog.md",
        "## 0.88.0 > ### Deprecation Notices",
        "- deprecate(views): Tree view V2 will be removed in the near future.",
        line_start=40,
        title="Changelog",
    )
    answer = "The version that first warned that tree view V2 would go is [N1]."
    grounding = Grounder().ground(answer, (changelog,), "Which version first warned of it?")
    assert grounding.text.startswith(
        "The version that first warned that tree view V2 would go is 0.88.0: "
    )


def test_a_marker_in_place_of_a_releases_name_gets_the_name() -> None:
    release = ContextSource(
        "N1",
        "d",
        "changelog.release.2022-06-14.md",
        "### Highlights",
        "- **Obsidian import**: a new command imports an Obsidian vault.",
        line_start=9,
        title="0.99",
    )
    answer = "In the release [N1], you could first import an Obsidian vault with a new command."
    question = "In which release could I first import an Obsidian vault?"
    grounding = Grounder().ground(answer, (release,), question)
    assert grounding.text == (
        "In the release 0.99, you could first import an Obsidian vault with a new command [N1]."
    )
    # not asked when it arrived, or not a release note: the marker is left as it is
    assert "0.99" not in Grounder().ground(answer, (release,), "How do I import a vault?").text
    note = dataclasses.replace(release, rel_path="guides.import.md", title="Import")
    assert "Import" not in Grounder().ground(answer, (note,), question).text


def test_a_release_marker_goes_to_the_release_note_that_says_what_the_sentence_says() -> None:
    # best ranked first: N1 told of the feature; the model read N3 first and wrote its id
    def release(cid: str, title: str, text: str) -> ContextSource:
        path = f"changelog.release.{title}.md"
        return ContextSource(cid, "d", path, "### Highlights", text, line_start=9, title=title)

    sources = (
        release("N1", "0.101", "- feat(views): view more note links in the graph panel"),
        release("N2", "0.96", "- feat(views): a local graph panel in the sidebar"),
        release("N3", "0.104", "- fix(views): the graph panel button works again"),
    )
    question = "Since which release can the graph panel show more note links?"
    answer = "Since the release [N3] (0.104), the graph panel shows more note links."
    grounding = Grounder().ground(answer, sources, question)
    assert grounding.text == "Since the release 0.101, the graph panel shows more note links [N1]."
    # as many terms held by several: the best ranked of them, not the first read
    tied = "Since the release [N3], the graph panel has it."
    assert Grounder().ground(tied, sources, question).text.startswith("Since the release 0.101")
    # a sentence that says nothing but the release keeps the model's marker
    bare = "It was the release [N3]."
    assert "0.104" in Grounder().ground(bare, sources, question).text
    # the marker as what the release is: repaired with the line of the note that tells of it
    pointer = "The release that shows more note links in the graph panel is [N3]."
    assert Grounder().ground(pointer, sources, question).text == (
        "The release that shows more note links in the graph panel is 0.101: "
        "feat(views): view more note links in the graph panel [N1]."
    )
    # after a marker named earlier in the answer, its sentence is still the one it is in
    both = f"Since the release [N3] (0.104), the graph panel has it. {pointer}"
    assert (
        Grounder()
        .ground(both, sources, question)
        .text.endswith("is 0.101: feat(views): view more note links in the graph panel [N1].")
    )


def test_an_answer_that_gives_only_a_release_notes_date_names_the_release() -> None:
    release = ContextSource(
        "N1",
        "d",
        "changelog.release.2022-03-01.md",
        "(top of note)",
        "You can now run Pod V2 exports from the CLI ad-hoc or in scripts.",
        line_start=9,
        title="0.84",
    )
    answer = "Since 2022-03-01, you can run Pod V2 exports from the CLI in scripts [N1]."
    question = "Since when can I run Pod V2 exports from the CLI?"
    grounding = Grounder().ground(answer, (release,), question)
    assert grounding.text == (
        "Since 2022-03-01, you can run Pod V2 exports from the CLI in scripts (release 0.84) [N1]."
    )
    # an answer that names a version, a question not about when, or a note that is no
    # release note: the answer stays as it is
    named = "Since 0.84, you can run Pod V2 exports from the CLI in scripts [N1]."
    assert Grounder().ground(named, (release,), question).text == named
    plain = Grounder().ground(answer, (release,), "How do I run Pod V2 exports from the CLI?")
    assert "0.84" not in plain.text
    guide = dataclasses.replace(release, rel_path="pods.cli.md", title="Pods")
    assert "release" not in Grounder().ground(answer, (guide,), question).text


def test_only_a_whole_path_becomes_a_marker() -> None:
    sources = (
        ContextSource("N1", "d", "changelog.release.2021-03-15.md", "", "x"),
        ContextSource("N2", "f", "index.md", "", "x"),
    )
    assert paths_as_markers("see d/changelog.release.2021-03-15.md.", sources) == "see [N1]."
    assert paths_as_markers("open index.md first", sources) == "open [N2] first"
    # a one-word name without its extension is a word, and a longer word is not the path
    assert paths_as_markers("the index lists notes", sources) == "the index lists notes"
    assert paths_as_markers("xchangelog.release.2021-03-15", sources) == (
        "xchangelog.release.2021-03-15"
    )
    # the header's shorter form of a path counts as well
    nested = (ContextSource("N1", "f", "projects/atlas/readme.md", "", "x"),)
    assert paths_as_markers("see atlas/readme.", nested) == "see [N1]."
    # in a code span the backticks go with it (no empty `` left behind)
    assert paths_as_markers("run `changelog.release.2021-03-15`.", sources) == "run [N1]."


def test_a_path_in_backticks_standing_for_the_answer_is_repaired_with_its_line() -> None:
    hooks = ContextSource(
        "N1",
        "d",
        "dendron.topic.hooks.quickstart.md",
        "# Quickstart > ## Create a hook",
        "Run Hook Create from the command palette and give the hook a name.",
    )
    grounding = Grounder().ground(
        "To make a new hook, run the command `dendron.topic.hooks.quickstart`.",
        (hooks,),
        "How do I make a new hook?",
    )
    assert "``" not in grounding.text
    assert "Hook Create" in grounding.text
    assert grounding.cited == ("N1",)


def test_a_code_span_is_found_on_a_code_block_line() -> None:
    cli = ContextSource(
        "N1",
        "foam",
        "cli/daily.md",
        "# foam daily > ## Examples",
        "Show or create the daily note for a date.\n```bash\nfoam daily --create\n```",
        line_start=1,
    )
    answer = "From the terminal, run `foam daily --create` [N1]."
    (claim,) = Grounder().ground(answer, (cli,), "How do I make today's note?").claims
    assert claim.status == "supported"
    assert claim.support is not None
    assert claim.support.line == 3
    (claim,) = Grounder().ground(answer.replace("--create", "--new"), (cli,), "").claims
    assert claim.status == "unsupported"


def test_a_json_block_written_without_fences_is_one_code_claim() -> None:
    commands = ContextSource(
        "N1",
        "foam",
        "user/features/commands.md",
        "# Commands > ## foam-vscode.open-resource",
        'Open a note by its title with a key binding:\n```json\n{\n  "key": "alt+f",\n'
        '  "args": { "title": "Weekly*" }\n}\n```',
        line_start=1,
    )
    answer = (
        'Add this key binding:\n{\n  "key": "alt+f",\n  "args": { "title": "Weekly*" }\n}\n'
        "It opens the note by its title [N1]."
    )
    claims = split_claims(answer)
    assert [c.is_code for c in claims] == [False, True, False]
    assert claims[1].text == ('```\n{\n  "key": "alt+f",\n  "args": { "title": "Weekly*" }\n}\n```')
    grounded = Grounder().ground(answer, (commands,), "How do I open my weekly note by key?")
    assert grounded.text == (
        'Add this key binding:\n```\n{\n  "key": "alt+f",\n'
        '  "args": { "title": "Weekly*" }\n}\n```\n[N1]\nIt opens the note by its title [N1].'
    )
    # braces in prose, or brackets that never close, are no block
    assert not any(c.is_code for c in split_claims("Use {title} here [N1].\n{\nnot closed"))


@pytest.mark.parametrize("fenced", [True, False])
def test_a_claim_that_flattens_a_block_is_read_against_the_line_introducing_it(
    fenced: bool,
) -> None:
    fence = "```yaml\n" if fenced else ""
    close = "```\n" if fenced else ""
    config = ContextSource(
        "N1",
        "dendron",
        "backlinks.md",
        "## Candidate Backlinks",
        "This feature is disabled by default. To enable it, add this to `dendron.yml`:\n"
        f"{fence}dev:\n  enableLinkCandidates: true\n{close}\nThe icon shows the kind.",
        line_start=20,
    )
    answer = (
        "It is disabled by default, but you can enable it by adding "
        "`dev: enableLinkCandidates: true` to `dendron.yml` [N1]."
    )
    (claim,) = Grounder().ground(answer, (config,), "Can I see candidates?").claims
    assert claim.status == "supported"
    assert claim.support is not None
    assert claim.support.line == 20
    # the block's lines are read with their lead-in only as they are written
    wrong = answer.replace("dev: enableLinkCandidates", "preview: enableLinkCandidates")
    (claim,) = Grounder().ground(wrong, (config,), "Can I see candidates?").claims
    assert claim.status == "unsupported"


def test_a_lead_in_with_its_list_supports_no_claim_without_a_code_span() -> None:
    timeline = ContextSource(
        "N1",
        "foam",
        "vscode.md",
        "## Timeline View",
        "Track changes to your notes over time:\n- Open the Explorer panel\n"
        "- Git commits show when notes were changed\n- File saves track editing sessions\n"
        "- Word diffs highlight what changed",
        line_start=150,
    )
    answer = "Foam shows a word count and the reading time of the note you are editing [N1]."
    (claim,) = Grounder().ground(answer, (timeline,), "Is there a word count?").claims
    assert claim.status == "unsupported"


def test_a_claim_supported_by_another_source_is_cited_to_it() -> None:
    grounding = Grounder().ground("A storm could delay the launch [N1].", SOURCES, "Risks?")
    (claim,) = grounding.claims
    assert claim.status == "recited"
    assert grounding.text == "A storm could delay the launch [N2]."


def test_a_claim_its_source_barely_holds_goes_to_the_source_that_says_it() -> None:
    says = "If a file `projects.md` sits beside the `projects/` folder, the link opens it."
    files = (
        ContextSource("N1", "v", "wikilinks.md", "# Wikilinks", f"A folder note wins.\n{says}"),
        ContextSource("N2", "v", "tips.md", "# Tips", "Open any file like `projects.md` fast."),
    )
    question = "Which one does [[projects]] open?"
    answer = "The link opens the `projects.md` file beside the folder [N2]."
    grounding = Grounder().ground(answer, files, question)
    (claim,) = grounding.claims
    assert claim.status == "recited"  # N2's line holds half of it, N1's all
    assert grounding.text == "The link opens the `projects.md` file beside the folder [N1]."
    # a source that holds it as well as the cited one leaves the model's citation alone
    both = (files[0], dataclasses.replace(files[1], text=says))
    assert Grounder().ground(answer, both, question).text == answer


def test_an_answer_with_no_supported_claim_has_no_text_left() -> None:
    grounding = Grounder().ground("It works with Logseq [N1].", SOURCES, "Logseq?")
    assert grounding.text == ""
    assert grounding.cited == ()


def test_a_lead_in_stays_and_image_and_link_definition_lines_never_support() -> None:
    answer = "Here is what I found:\nThe launch is on March 14 [N1]. See the chart [N2]."
    grounding = Grounder().ground(answer, SOURCES, "When is the launch?")
    assert [c.status for c in grounding.claims] == ["neutral", "supported", "unsupported"]
    assert grounding.text == "Here is what I found:\nThe launch is on March 14 [N1]."


def test_a_marker_standing_for_content_is_repaired_from_its_source() -> None:
    grounding = Grounder().ground("The budget is [N1].", SOURCES, "What is the Apollo budget?")
    (claim,) = grounding.claims
    assert claim.repaired
    assert grounding.text == "The budget is: Budget: 40000 euros [N1]."


def test_vectors_can_carry_a_paraphrase() -> None:
    """With an embedder the cosine of claim and line counts too (here a fake that maps
    every text to one direction, so every pair has cosine 1)."""
    import numpy as np

    def same(texts: object) -> np.ndarray:
        return np.ones((len(list(texts)), 2), dtype=np.float32) / np.sqrt(2)  # type: ignore[arg-type]

    text_only = Grounder().ground("Lisbon hosts the liftoff [N1].", SOURCES, "Where?")
    with_vectors = Grounder(embed=same).ground("Lisbon hosts the liftoff [N1].", SOURCES, "Where?")
    assert text_only.claims[0].score < with_vectors.claims[0].score


def test_locate_finds_a_quote_in_the_note_lines() -> None:
    lines = ["# Apollo", "", "## Launch", "", "The Apollo launch is on March 14."]
    assert locate(lines, "The Apollo launch is on March 14.", 3, 5) == 5
    assert locate(lines, "missing", 1, 5) is None


def test_a_date_only_in_the_file_name_supports_a_claim_that_writes_it_out() -> None:
    release = ContextSource(
        "N1",
        "d",
        "changelog.release.2022-06-14.md",
        "## Highlights",
        "Dendron 0.99 has sprouted.\nBetter task notes: set their status and mark them done.",
        1,
        "0.99",
    )
    answer = "Task notes landed on June 14, 2022, as part of the 0.99 release [N1]."
    grounding = Grounder().ground(answer, (release,), "When did task notes land?")
    assert grounding.cited == ("N1",)
    assert "June 14, 2022" in grounding.text
    # a date that is nowhere in the source still fails the claim
    wrong = "Task notes landed on July 2, 2021, in the 0.99 release [N1]."
    assert Grounder().ground(wrong, (release,), "When did task notes land?").cited == ()


def test_a_claim_that_quotes_its_lead_in_line_is_not_repeated() -> None:
    source = ContextSource(
        "N1", "notes", "cli.md", "# CLI", "Create today's daily note:\n```\nfoam daily\n```"
    )
    answer = "Create today's daily note: [N1]."
    grounding = Grounder().ground(answer, (source,), "How do I create today's daily note?")
    assert grounding.text == answer
    assert grounding.claims[0].status == "supported"
    assert not grounding.claims[0].repaired


def test_a_question_mark_inside_a_code_span_does_not_end_a_claim() -> None:
    claims = split_claims("Type `? Onboarding` in the search bar [N1]. `Ctrl+D` opens it [N2].")
    assert [c.body for c in claims] == [
        "Type `? Onboarding` in the search bar.",
        "`Ctrl+D` opens it.",
    ]


def test_two_markers_standing_for_the_answer_are_each_repaired_from_their_source() -> None:
    answer = "The risks of the Apollo launch are [N1] and [N2]."
    grounding = Grounder().ground(answer, SOURCES, "What are the Apollo launch risks?")
    (claim,) = grounding.claims
    assert claim.repaired
    assert grounding.text == (
        "The risks of the Apollo launch are: The Apollo launch is on March 14 at the Lisbon "
        "office [N1]; A storm could delay the launch by a week [N2]."
    )
    assert set(grounding.support) == {"N1", "N2"}  # each reference keeps its own line


@pytest.mark.parametrize(
    "about_the_context",
    [
        "This is mentioned in the context, where it states the launch date [N1].",
        "The context provides instructions on how to move the launch [N1].",
        # where the answer is, not what it is: it names the note, and says nothing
        "This information is provided in the context of the [[apollo]] launch note [N1].",
        "More details are found in the Apollo launch section [N1].",
        "This information is displayed in the Launch section of the Apollo note [N1].",
    ],
)
def test_a_sentence_about_the_context_is_left_out(about_the_context: str) -> None:
    answer = f"The Apollo launch is on March 14 [N1]. {about_the_context}"
    grounding = Grounder().ground(answer, SOURCES, "When is the Apollo launch?")
    assert grounding.text == "The Apollo launch is on March 14 [N1]."
    assert [c.status for c in grounding.claims] == ["supported", "unsupported"]


def test_a_context_menu_is_not_a_sentence_about_the_context() -> None:
    source = ContextSource(
        "N1", "notes", "menu.md", "# Menu", "Right-click a note to open the context menu."
    )
    answer = "Right-click the note to open the context menu [N1]."
    grounding = Grounder().ground(answer, (source,), "How do I open the context menu?")
    assert grounding.text == answer


def test_a_hyphenated_name_is_held_by_its_words_but_a_version_only_as_written() -> None:
    source = ContextSource(
        "N1",
        "notes",
        "foam-queries.md",
        "# Foam Queries > ## Count",
        "Use `count` when you only need the number of matches.",
        title="Foam Queries",
    )
    answer = "Use the `count` format of `foam-queries` [N1]."
    grounding = Grounder().ground(answer, (source,), "How do I count matches?")
    assert grounding.claims[0].status == "supported"
    wrong = Grounder().ground("Use `count` since `foam-1.2` [N1].", (source,), "How?")
    assert wrong.claims[0].status == "unsupported"  # "1.2" is nowhere in the note


def test_a_marker_saying_where_the_answer_is_written_is_not_repaired() -> None:
    answer = "The Apollo launch is on March 14 [N1]. The launch details can be found at [N2]."
    grounding = Grounder().ground(answer, SOURCES, "When is the Apollo launch?")
    assert [c.status for c in grounding.claims] == ["supported", "unsupported"]
    assert grounding.text == "The Apollo launch is on March 14 [N1]."


def test_a_closing_brace_with_a_marker_keeps_no_marker() -> None:
    answer = "The launch is on March 14 [N1].\n} [N2]"
    grounding = Grounder().ground(answer, SOURCES, "When is the Apollo launch?")
    assert grounding.cited == ("N1",)
    assert "[N2]" not in grounding.text


def test_a_lead_in_about_the_context_is_dropped_and_the_claim_kept() -> None:
    answer = "According to the context, the Apollo launch is on March 14 [N1]."
    grounding = Grounder().ground(answer, SOURCES, "When is the Apollo launch?")
    assert grounding.text == "The Apollo launch is on March 14 [N1]."
    said = "The context states that a storm could delay the launch by a week [N2]."
    assert Grounder().ground(said, SOURCES, "What could delay it?").text == (
        "A storm could delay the launch by a week [N2]."
    )


def test_in_the_context_of_something_is_not_a_lead_in_about_the_prompt() -> None:
    claim = split_claims("In the context of the launch, a storm could delay it [N2].")[0]
    assert _without_context_lead_in(claim) == claim


def test_a_hard_wrapped_sentence_supports_a_claim_from_the_line_it_starts_on() -> None:
    wrapped = ContextSource(
        "N1",
        "notes",
        "images.md",
        "# Images",
        "VS Code (since\n[1.79](https://example.com/v1_79))\n"
        "now has the ability to paste images from the clipboard, or drag-and-drop image\n"
        "files, directly into markdown documents. The file will be created in the\n"
        "workspace.",
        line_start=5,
    )
    claim = "Since VS Code 1.79 you can paste or drop image files directly into markdown documents."
    grounding = Grounder().ground(claim, (wrapped,), "Since when can I paste images?")
    (found,) = grounding.claims
    assert found.status == "recited"  # no marker: the line that holds it is cited
    assert found.support is not None
    assert found.support.text.startswith("VS Code (since [1.79]")
    assert found.support.line == 5
    note = ["# Images", "", "Intro.", "", *wrapped.text.split("\n")]
    assert locate(note, found.support.text, 1, len(note)) == 5


def test_locate_finds_a_quote_that_goes_on_in_the_next_line() -> None:
    lines = ["# Images", "", "The file will be created in the", "workspace, with a link."]
    assert locate(lines, "The file will be created in the workspace, with a link.", 1, 4) == 3
    assert locate(lines, "workspace, with a link.", 1, 4) == 4


def test_a_lead_in_whose_list_was_removed_goes_with_it() -> None:
    answer = (
        "To move the launch, follow these steps:\n"
        "1. Open the rocket settings panel [N1].\n"
        "2. Click the reschedule button [N1].\n"
        "The Apollo launch is on March 14 at the Lisbon office [N1]."
    )
    grounding = Grounder().ground(answer, SOURCES, "How do I move the launch?")
    assert grounding.text == "The Apollo launch is on March 14 at the Lisbon office [N1]."
    # a lead-in whose list stands in part keeps its place, the item left numbered 1
    kept = answer.replace("2. Click the reschedule button", "2. Book the Lisbon office")
    grounding = Grounder().ground(kept, SOURCES, "How do I move the launch?")
    assert grounding.text.startswith("To move the launch, follow these steps:\n1. Book the")


def test_list_items_are_numbered_on_where_a_removed_one_left_a_gap() -> None:
    steps = (
        "To move the launch:\n"
        "1. Book the Lisbon office [N1].\n"
        "2. Open the rocket settings panel [N1].\n"
        "3. Move the Apollo launch from March 14 [N1].\n"
        "1. Book the Lisbon office again [N1]."
    )
    grounding = Grounder().ground(steps, SOURCES, "How do I move the launch?")
    assert [line[:3] for line in grounding.text.split("\n")[1:]] == ["1. ", "2. ", "1. "]


def test_a_command_is_held_by_a_line_giving_its_options_in_another_order() -> None:
    example = ContextSource(
        "N1",
        "notes",
        "cli/daily.md",
        "# daily > ## Examples",
        "foam daily --date 2024-01-10 --path-only",
    )
    same = Grounder().ground("Run `foam daily --path-only --date 2024-01-10` [N1].", (example,))
    assert same.cited == ("N1",)
    other_date = Grounder().ground(
        "Run `foam daily --path-only --date 2024-02-11` [N1].", (example,)
    )
    assert other_date.cited == ()


def test_a_version_is_held_by_the_same_version_written_with_its_patch_or_a_v() -> None:
    changelog = ContextSource(
        "N1",
        "notes",
        "changelog.md",
        "## 0.103.0 > ### Features",
        "- Smart note references are enabled for hackathon projects",
    )
    answer = "Smart note references shipped in version 0.103 of Dendron."
    grounding = Grounder().ground(answer, (changelog,), "Which version shipped smart refs?")
    assert grounding.cited == ("N1",)
    tagged = dataclasses.replace(changelog, heading_path="## v0.103 > ### Features")
    assert Grounder().ground(answer, (tagged,)).cited == ("N1",)
    # another version is still not held: numbers are held only as the same number
    later = Grounder().ground("They shipped in version 0.104 of Dendron.", (changelog,))
    assert later.cited == ()
    minor = Grounder().ground("They shipped in version 0.10 of Dendron.", (changelog,))
    assert minor.cited == ()


def test_a_doubled_consonant_before_ed_or_ing_meets_the_word_it_comes_from() -> None:
    assert [root(w) for w in ("shipped", "ships", "running", "run", "added", "add")] == [
        "ship",
        "ship",
        "run",
        "run",
        "add",
        "add",
    ]
    # a claim's "shipped" is a term the line's "ships" holds
    assert set(content_terms("shipped")) <= line_terms("The feature ships today.")
    assert set(content_terms("running")) <= line_terms("Run it twice.")


def test_a_marker_used_as_a_noun_inside_a_sentence_is_written_as_its_source_name() -> None:
    sources = (
        ContextSource(
            "N1", "d", "changelog.md", "## 0.76.0", "Publishing with 11ty is deprecated."
        ),
        ContextSource("N2", "d", "release-0.76.md", "# 0.76", "11ty publishing is deprecated."),
    )
    answer = "The changelog from [N1] and [N2], which both say it, deprecates 11ty publishing."
    text = Grounder().ground(answer, sources).text
    assert "from `changelog` and `release-0.76`, which both say it" in text
    assert "from and" not in text
    # a marker after its claim, or one standing for a value, is left to the other rules
    plain = Grounder().ground("11ty publishing is deprecated [N2].", sources).text
    assert plain == "11ty publishing is deprecated [N2]."


PLANS = ContextSource(
    "N3",
    "notes",
    "plans.md",
    "# Plans",
    "Apollo: launch on March 14 at the Lisbon office; the team flies in on March 12.",
    line_start=1,
)


def test_a_claim_without_markers_takes_the_markers_after_it_when_they_hold_it() -> None:
    # both N1 and N3 hold the first claim: the model's markers after the next one say which
    answer = (
        "The Apollo launch is on March 14 at the Lisbon office. The team flies in on March 12 [N3]."
    )
    grounding = Grounder().ground(answer, (*SOURCES, PLANS), "When is the launch?")
    first, _ = grounding.claims
    assert (first.status, first.cids) == ("recited", ["N3"])
    assert grounding.text == (
        "The Apollo launch is on March 14 at the Lisbon office [N3]. "
        "The team flies in on March 12 [N3]."
    )
    assert grounding.cited == ("N3",)


def test_a_claim_without_markers_goes_to_its_best_source_when_the_next_markers_lack_it() -> None:
    answer = "The budget is 40000 euros. A storm could delay the launch [N2]."
    grounding = Grounder().ground(answer, SOURCES, "Budget and risks?")
    assert grounding.text == "The budget is 40000 euros [N1]. A storm could delay the launch [N2]."


CLI = ContextSource(
    "N1",
    "notes",
    "cli/outline.md",
    "# outline",
    "Print a note's headings as JSON:\n```sh\nfoam outline my-note --format json\n```",
    line_start=1,
)


def test_a_code_block_of_the_answer_is_one_claim_kept_whole_with_its_marker_after_it() -> None:
    answer = (
        "Use the outline command [N1]. Run:\n```sh\nfoam outline my-note --format json [N1]\n```\n"
        "It prints JSON [N1]."
    )
    grounding = Grounder().ground(answer, (CLI,), "How do I print the headings as JSON?")
    assert [c.claim.is_code for c in grounding.claims] == [False, False, True, False]
    assert grounding.text == (
        "Use the outline command [N1]. Run:\n```sh\nfoam outline my-note --format json\n```\n"
        "[N1]\nIt prints JSON [N1]."
    )


def test_a_code_block_with_a_line_the_notes_lack_goes_with_its_fences_and_lead_in() -> None:
    answer = "Use the outline command [N1]. Then reload your shell:\n```bash\nsource ~/.bashrc\n```"
    grounding = Grounder().ground(answer, (CLI,), "How do I print the headings as JSON?")
    assert grounding.text == "Use the outline command [N1]."


def test_three_backticks_around_text_on_one_line_of_the_answer_are_a_code_span() -> None:
    source = ContextSource(
        "N1",
        "notes",
        "onenote.md",
        "# Usage",
        "If you get an error, run this line:\n```Set-ExecutionPolicy Bypass -Scope Process```",
        line_start=1,
    )
    answer = "Run the following command:\n```Set-ExecutionPolicy Bypass -Scope Process``` [N1]"
    grounding = Grounder().ground(answer, (source,), "The script fails with a security error?")
    assert not grounding.claims[-1].claim.is_code
    assert grounding.text == (
        "Run the following command:\n```Set-ExecutionPolicy Bypass -Scope Process``` [N1]"
    )


def test_a_closing_clause_about_the_context_is_dropped_and_the_claim_kept() -> None:
    answer = "The Apollo launch is on March 14, as stated in the context [N1]."
    grounding = Grounder().ground(answer, SOURCES, "When is the Apollo launch?")
    assert grounding.text == "The Apollo launch is on March 14 [N1]."
    uncited = "A storm could delay the launch by a week, according to the context."
    assert Grounder().ground(uncited, SOURCES, "What could delay it?").text == (
        "A storm could delay the launch by a week [N2]."
    )


def test_the_context_in_the_middle_of_a_claim_is_not_a_closing_clause() -> None:
    claim = split_claims("The date, as shown in the context menu, is March 14 [N1].")[0]
    assert _without_context_lead_in(claim).text == claim.text


def test_a_phrase_about_the_context_inside_a_claim_is_dropped_and_the_claim_kept() -> None:
    answer = "Lisbon is the office mentioned in the context that hosts the Apollo launch."
    grounding = Grounder().ground(answer, SOURCES, "Which office hosts the Apollo launch?")
    assert grounding.text == "Lisbon is the office that hosts the Apollo launch [N1]."
    # after "is" it says where the answer is, not what it is: still left out
    where = "This is mentioned in the context under the Launch section [N1]."
    said = split_claims(where)[0]
    assert _without_context_lead_in(said).text == said.text


@pytest.mark.parametrize(
    ("second", "cited"),
    [
        # the second note says one more word of the claim: the best-ranked one is cited
        ("Foam is published to the VS Code Marketplace and to OpenVSX today.", "N1"),
        # the first note holds only a little of it: the one that says it is cited
        ("Each release of Foam is published to the VS Code Marketplace and OpenVSX.", "N2"),
    ],
)
def test_an_uncited_claim_takes_the_best_ranked_source_that_holds_it_about_as_well(
    second: str, cited: str
) -> None:
    first = (
        "Releases are published to the VS Code Marketplace and OpenVSX."
        if cited == "N1"
        else "Releases are announced on Discord."
    )
    sources = (
        ContextSource("N1", "notes", "releasing.md", "# Releasing", first),
        ContextSource("N2", "notes", "install.md", "# Install", second),
    )
    grounding = Grounder().ground(
        "Each release of Foam is published to the VS Code Marketplace and OpenVSX.", sources
    )
    assert grounding.cited == (cited,)


def test_of_sources_holding_an_uncited_claim_alike_the_one_saying_what_was_asked_is_cited() -> None:
    """ "Who owns the retention project?" answered "Aiko" with no marker: a meeting note
    names Aiko (N1), the project note's "owner: aiko" (N2) says what was asked."""
    meeting = ContextSource(
        "N1", "team", "meetings/retention review.md", "# Background", "- Aiko: +$1.4k/mo at 90d."
    )
    project = ContextSource(
        "N2",
        "team",
        "projects/data-retention.md",
        "# Data retention",
        "owner: aiko\n…\nRaw events.",
    )
    question = "Who's the owner of the raw event retention project?"
    grounding = Grounder().ground("The owner of the project is Aiko.", (meeting, project), question)
    assert grounding.cited == ("N2",)


@pytest.mark.parametrize(
    ("question", "answer", "kept"),
    [
        # a verdict that only says the question again: a line denying it shares its words
        ("Can a storm delay the launch?", "Yes, a storm can delay the launch [N2].", ""),
        ("Can a storm delay the launch?", "No, a storm can't delay the launch [N2].", ""),
        # the verdict with what the notes say after it: the verdict goes, the fact stays
        (
            "Can a storm delay the launch?",
            "Yes, a storm can delay the launch [N2]. It could delay it by a week [N2].",
            "It could delay it by a week [N2].",
        ),
        # a bare verdict is no more checkable
        (
            "Can a storm delay the launch?",
            "Yes. It could delay it by a week [N2].",
            "It could delay it by a week [N2].",
        ),
        # a verdict that says more than the question is checked as any claim is
        (
            "Is the launch in Lisbon?",
            "Yes, the launch is on March 14 at the Lisbon office [N1].",
            "Yes, the launch is on March 14 at the Lisbon office [N1].",
        ),
        # not a yes/no question: the same words are a claim a line can check
        (
            "What could delay the launch?",
            "A storm could delay the launch [N2].",
            "A storm could delay the launch [N2].",
        ),
    ],
)
def test_a_yes_or_no_that_only_restates_the_question_is_not_a_supported_claim(
    question: str, answer: str, kept: str
) -> None:
    assert Grounder().ground(answer, SOURCES, question).text == kept


def test_a_sentence_written_again_word_for_word_is_read_once() -> None:
    answer = (
        "The Apollo launch is on March 14 [N1]. A storm could delay it by a week [N2]. "
        "The Apollo launch is on March 14 [N1]. Yes [N1]. Yes [N1]."
    )
    grounding = Grounder().ground(answer, SOURCES, "When is the launch?")
    assert grounding.text.count("March 14") == 1
    assert "storm" in grounding.text


BOILER = ContextSource(
    "N1",
    "home",
    "boiler.md",
    "# Boiler > ## Next",
    "## Next\n- [ ] Powerflush decision.\n- [ ] Next service due January 2027.",
)


def test_a_day_after_today_answers_no_question_about_when_something_happened() -> None:
    grounder = Grounder(now=lambda: datetime(2026, 11, 30, tzinfo=UTC))
    past = grounder.ground(
        "I last serviced the boiler on January 2027 [N1].",
        (BOILER,),
        "When did I last service the boiler?",
    )
    ahead = grounder.ground(
        "The next service is due January 2027 [N1].", (BOILER,), "When is the next service due?"
    )
    assert [c.status for c in past.claims] == ["unsupported"]
    assert past.cited == ()
    assert [c.status for c in ahead.claims] == ["supported"]
    both = grounder.ground(
        "The next service is due January 2027 [N1].",
        (BOILER,),
        "When did the boiler last have its yearly check, and when is the next one due?",
    )
    assert [c.status for c in both.claims] == ["supported"]
    # the same claim a year later is no plan read as what was done
    later = Grounder(now=lambda: datetime(2027, 3, 1, tzinfo=UTC)).ground(
        "I last serviced the boiler on January 2027 [N1].",
        (BOILER,),
        "When did I last service the boiler?",
    )
    assert [c.status for c in later.claims] != ["unsupported"]


def test_the_days_a_text_names() -> None:
    assert days_named("On 22 January 2026, then in January 2027 and 2026-03-02.") == [
        date(2026, 3, 2),
        date(2026, 1, 22),
        date(2027, 1, 1),
    ]
