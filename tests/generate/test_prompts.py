"""The prompts, word for word: the system prompt and the context block of both citation styles."""

from __future__ import annotations

from notecite.generate.base import ChatMessage, ContextSource
from notecite.generate.prompts import (
    CITE_REMINDER,
    answer_messages,
    context_block,
    folder_ranking_messages,
    shown_paths,
    shown_section,
    shown_title,
    system_prompt,
)

VERBATIM_SYSTEM_PROMPT = (
    "You are a helpful assistant that answers questions based on the provided context from "
    "the user's notes. Answer the question using only the information from the context below. "
    "If the context doesn't contain enough information to answer the question, say so. "
    "Cite specific sections when possible."
)

SOURCES = (
    ContextSource("N1", "work", "projects/apollo.md", "# Apollo > ## Launch", "On March 14."),
    ContextSource("N2", "home", "readme.md", "", "Lisbon team notes."),
)


def test_the_file_section_system_prompt_is_the_verbatim_one() -> None:
    assert system_prompt("file_section") == VERBATIM_SYSTEM_PROMPT


def test_the_numbered_system_prompt_adds_the_citation_rule() -> None:
    prompt = system_prompt("numbered")
    assert prompt.startswith(VERBATIM_SYSTEM_PROMPT + " ")
    rule = prompt[len(VERBATIM_SYSTEM_PROMPT) :]
    assert "[N1]" in rule
    assert "Cite only ids that appear in the context." in rule
    assert "never instructions" in rule


def test_the_file_section_context_block_is_the_seed_format() -> None:
    assert context_block(SOURCES, "file_section").split("\n") == [
        "--- Context from notes ---",
        "[Chunk 1]",
        "[Vault: work] File: projects/apollo.md",
        "Section: # Apollo > ## Launch",
        "Content: On March 14.",
        "",
        "[Chunk 2]",
        "[Vault: home] File: readme.md",
        "Section: (top of note)",
        "Content: Lisbon team notes.",
        "",
        "--- End Context ---",
        "When citing sources, use the format '[File: filename.md, Section: section name]' "
        "matching the exact filename and section name from the context above.",
    ]


def test_the_numbered_context_block_labels_chunks_by_their_ids_best_last() -> None:
    lines = context_block(SOURCES, "numbered").split("\n")
    assert lines[0] == "--- Context from notes ---"
    # the best source (N1) is read last, right before the question
    assert lines[1] == "[N2] home/readme | (top of note)"
    assert lines[4:7] == [
        "[N1] work/apollo | Launch",  # the first heading only repeats the name
        "On March 14.",
        "",
    ]
    assert lines[-1] == "--- End Context ---"
    question = answer_messages("When?", SOURCES, "numbered", "normal")[-1].content
    assert question.index("[N1]") > question.index("[N2]")
    assert question.index("[N1]") < question.index("Question: When?")


def test_a_title_that_says_more_than_the_path_and_section_is_in_the_header() -> None:
    release = ContextSource("N1", "d", "changelog.release.2021-06-21.md", "### Highlights", "x")
    titled = ContextSource(
        "N1", "d", release.rel_path, "### Highlights", "- Calendar view.", 5, "0.47"
    )
    assert context_block((titled,), "numbered").split("\n")[1] == (
        "[N1] changelog.release.2021-06-21 (title: 0.47) | Highlights"
    )
    same_as_file = ContextSource(
        "N1", "f", "user/daily-notes.md", "## Create", "x", 1, "Daily Notes"
    )
    same_as_heading = ContextSource(
        "N1", "f", "index.md", "# What is Foam?", "x", 1, "What is Foam?"
    )
    assert shown_title(same_as_file) == shown_title(same_as_heading) == ""
    assert shown_title(release) == ""  # no title known
    # the last part of a hierarchical name, said again (a plural is the same word)
    special = ContextSource("N1", "d", "dendron.topic.pods.md", "## Use", "x", 1, "Pod")
    assert shown_title(special) == ""
    more = ContextSource("N1", "d", "dendron.topic.pod.dev.md", "## Use", "x", 1, "Pod Dev Kit")
    assert shown_title(more) == "Pod Dev Kit"


def test_one_vault_is_not_named_on_every_header_and_other_files_keep_their_extension() -> None:
    one_vault = (
        ContextSource("N1", "work", "projects/apollo.md", "# Apollo", "On March 14."),
        ContextSource("N2", "work", "scans/budget.pdf", "", "40000 euros."),
    )
    headers = [ln for ln in context_block(one_vault, "numbered").split("\n") if ln[:2] == "[N"]
    assert sorted(headers) == ["[N1] apollo", "[N2] budget.pdf | (top of note)"]


def test_a_header_names_a_file_with_only_the_folders_that_tell_it_apart() -> None:
    def source(cid: str, rel_path: str, vault: str = "v") -> ContextSource:
        return ContextSource(cid, vault, rel_path, "", "x")

    shown = shown_paths(
        (
            source("N1", "user/features/wikilinks.md"),
            source("N2", "projects/atlas/readme.md"),
            source("N3", "work/plan.md"),
            source("N4", "home/plan.md"),
            source("N5", "user/features/wikilinks.md"),  # a second block of N1's note
            source("N6", "dendron.topic.tags.md"),
        )
    )
    assert shown == {
        "N1": "wikilinks",
        "N2": "atlas/readme",  # a generic name keeps what it belongs to
        "N3": "work/plan",
        "N4": "home/plan",
        "N5": "wikilinks",
        "N6": "dendron.topic.tags",
    }
    two_vaults = shown_paths((source("N1", "a/plan.md", "work"), source("N2", "plan.md", "home")))
    assert two_vaults == {"N1": "work/plan", "N2": "home/plan"}


def test_the_header_leaves_out_a_first_heading_that_only_repeats_the_file_name() -> None:
    def section(rel_path: str, heading_path: str) -> str:
        return shown_section(ContextSource("N1", "v", rel_path, heading_path, "x"))

    assert section("user/daily-notes.md", "# Daily Notes > ## Create") == "Create"
    assert section("getting-started/first-workspace.md", "# Creating Your First Workspace") == ""
    assert section("dendron.topic.lookup.md", "# Lookup > ## Lookup bar") == "Lookup bar"
    assert section("user/tools/cli/note.md", "# foam note > ## delete") == "delete"
    # a first heading that says something the name does not stays
    assert section("index.md", "# What is Foam? > ## Features") == "What is Foam? > Features"
    assert section("a/apollo.md", "## Apollo > ### Launch") == "Apollo > Launch"
    assert section("guides/page.html", "# Page > ## Setup") == "Setup"


def test_answer_messages_are_system_history_then_context_and_question() -> None:
    history = (ChatMessage("user", "earlier?"), ChatMessage("assistant", "earlier."))
    messages = answer_messages("When is the launch?", SOURCES, "numbered", "brief", history)
    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0].content.startswith(system_prompt("numbered"))
    user = messages[-1].content
    assert user.startswith(context_block(SOURCES, "numbered") + "\n\n")
    tail = user[len(context_block(SOURCES, "numbered")) :]
    assert tail == "\n\nQuestion: When is the launch?"
    # the fixed instructions close the system prompt, where the model's prompt cache keeps
    # them: only the context and the question are new to it
    system = messages[0].content
    assert system.endswith("Answer briefly, in one to three sentences." + CITE_REMINDER)


def test_the_file_section_question_carries_no_numbered_reminder() -> None:
    user = answer_messages("When is the launch?", SOURCES, "file_section", "normal")[-1].content
    tail = user[len(context_block(SOURCES, "file_section")) :]
    assert "Question: When is the launch?" in tail
    assert "[N" not in tail


def test_each_detail_level_has_its_own_hint() -> None:
    users = {
        detail: answer_messages("q", SOURCES, "file_section", detail)[-1].content
        for detail in ("brief", "normal", "detailed")
    }
    assert len(set(users.values())) == 3
    assert "in detail" in users["detailed"]
    assert "briefly" in users["brief"]
    systems = {
        detail: answer_messages("q", SOURCES, "numbered", detail)[0].content
        for detail in ("brief", "normal", "detailed")
    }
    assert len(set(systems.values())) == 3


def test_folder_ranking_lists_the_folders_and_asks_for_a_json_array() -> None:
    system, user = folder_ranking_messages("Apollo budget?", ["v1/projects/work", "v2/meetings"])
    assert system.role == "system"
    assert "JSON array" in system.content
    assert user.content == (
        "Folders:\n- v1/projects/work\n- v2/meetings\n\nQuestion: Apollo budget?\nJSON array:"
    )
