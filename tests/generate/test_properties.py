"""Which of a note's properties (its frontmatter) the model may be shown."""

from __future__ import annotations

from notecite.generate.properties import MAX_LINES, shown_properties, split_property


def shown(text: str) -> list[str]:
    lines = text.strip("\n").split("\n")
    return [lines[p] for p in shown_properties(lines)]


def test_facts_are_shown_as_the_file_writes_them() -> None:
    assert shown("role: SRE lead\ntimezone: America/Denver\nbirthday: 08-14\nrating: 4") == [
        "role: SRE lead",
        "timezone: America/Denver",
        "birthday: 08-14",
        "rating: 4",
    ]


def test_what_the_prompt_or_the_index_has_already_is_left_out() -> None:
    text = "id: x9Zq\ntitle: Dana\ndesc: Our SRE lead\ntags: [person]\naliases: [D]\nrole: SRE"
    assert shown(text) == ["role: SRE"]


def test_empty_and_yes_no_values_epoch_times_and_opaque_ids_are_left_out() -> None:
    text = "desc: ''\nstub: false\nupdated: 1636492098692\ncreated: '1608221406'\nnote:\nowner: me"
    assert shown(text) == ["owner: me"]
    ids = "documentId: 1FEEo_0aNiNfnW_tzo58m_HAM8wI\nticket: LRK-1611\nservice: billing-export"
    assert shown(ids) == ["ticket: LRK-1611", "service: billing-export"]


def test_a_list_is_kept_whole_and_a_tools_settings_are_left_out() -> None:
    text = "people:\n  - dana\n  - tomasz\nconfig:\n  global:\n    enableChildLinks: false\nx: 1"
    assert shown(text) == ["people:", "  - dana", "  - tomasz", "x: 1"]
    assert shown("reviewers:\n- tomasz\n- dana") == ["reviewers:", "- tomasz", "- dana"]


def test_a_property_key_is_read_from_its_first_line_only() -> None:
    assert split_property("timezone: Europe/Warsaw") == ("timezone", "Europe/Warsaw")
    assert split_property("people:") == ("people", "")
    assert split_property("  - dana") == ("", "  - dana")


def test_a_blob_is_left_out_and_a_long_frontmatter_is_cut() -> None:
    blob = "x" * 400
    assert shown(f"cover: {blob} and more\nrole: lead") == ["role: lead"]
    assert shown(f"notes:\n  - {blob}\nrole: lead") == ["role: lead"]
    many = "\n".join(f"key{n}: value {n}" for n in range(100))
    assert len(shown(many)) == MAX_LINES
