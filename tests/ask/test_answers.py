"""Answers: citation styles, invalid citations removed, references of cited chunks, debug."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.config import AskSettings, GenerationSettings
from notecite.generate.markup import names_section
from notecite.generate.prompts import SYSTEM_PROMPT
from notecite.generate.registry import register_llm
from notecite.schemas.ask import AskRequest, AskResponse, DebugInfo, RetrievedChunk
from notecite.testing import ScriptedLLM
from tests.ask.conftest import MakeEngine
from tests.preparable import PreparableLLM

APOLLO = "When is the Apollo launch scheduled?"


def debug_of(response: AskResponse) -> DebugInfo:
    assert response.debug is not None
    return response.debug


def kept_in_order(response: AskResponse) -> list[RetrievedChunk]:
    """The kept chunks in the order the model saw them: N1, N2, ..."""
    return [c for c in debug_of(response).retrieved_chunks if c.kept]


def as_reference(chunk: RetrievedChunk) -> tuple[str, str, str]:
    return (chunk.vault, chunk.rel_path, chunk.heading_path)


def refs(response: AskResponse) -> list[tuple[str, str, str]]:
    return [(r.vault, r.rel_path, r.heading_path) for r in response.references]


def test_numbered_citations_are_kept_and_invalid_ones_removed(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(
        "The Apollo launch is on March 14 [N1]. It needs an antenna [N2]. "
        "Tickets cost 12 euros [N9]."
    )
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    # The invalid citation goes, and so does its claim: no line of the notes supports it.
    assert response.answer == "The Apollo launch is on March 14 [N1]. It needs an antenna [N2]."
    assert not response.abstained
    debug = debug_of(response)
    assert debug.invalid_citations == ["N9"]
    assert [c.status for c in debug.claims] == ["supported", "supported", "unsupported"]
    assert not debug.uncited_references
    kept = kept_in_order(response)
    assert len(kept) >= 3
    assert refs(response) == [as_reference(kept[0]), as_reference(kept[1])]
    assert [c.cited for c in kept] == [True, True] + [False] * (len(kept) - 2)


def _position(response: AskResponse, rel_path: str, heading: str) -> int:
    """The context id number (1-based) of a kept chunk, as the model saw it."""
    kept = kept_in_order(response)
    return next(
        i for i, c in enumerate(kept, 1) if c.rel_path == rel_path and c.heading_path == heading
    )


def test_a_model_citing_out_of_order_gets_labels_that_match_its_references(
    make_engine: MakeEngine,
) -> None:
    """The [Nk] a reader sees is the reference labelled [Nk]: the answer is renumbered in
    first-cited order and every reference carries its id."""
    probe = make_engine(llm=ScriptedLLM()).ask(AskRequest(question=APOLLO, debug=True))
    launch = _position(probe, "projects/work/apollo.md", "# Apollo > ## Launch")
    storm = _position(probe, "projects/work/apollo-risks.md", "# Apollo risks > ## Weather")
    assert storm > launch  # the model cites the later source first
    llm = ScriptedLLM(f"A storm could delay it a week [N{storm}]. It is on March 14 [N{launch}].")
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert response.answer == "A storm could delay it a week [N1]. It is on March 14 [N2]."
    assert [(r.cid, r.rel_path) for r in response.references] == [
        ("N1", "projects/work/apollo-risks.md"),
        ("N2", "projects/work/apollo.md"),
    ]
    weather, launch_ref = response.references
    assert weather.quote == "A storm could delay the Apollo launch by a week."
    assert launch_ref.quote is not None
    assert "March 14" in launch_ref.quote
    assert launch_ref.line_start is not None
    assert launch_ref.quote_line is not None
    assert launch_ref.line_start <= launch_ref.quote_line <= (launch_ref.line_end or 0)


def test_a_claim_supported_by_a_source_it_did_not_cite_gets_that_citation(
    make_engine: MakeEngine,
) -> None:
    probe = make_engine(llm=ScriptedLLM()).ask(AskRequest(question=APOLLO, debug=True))
    launch = _position(probe, "projects/work/apollo.md", "# Apollo > ## Launch")
    storm = _position(probe, "projects/work/apollo-risks.md", "# Apollo risks > ## Weather")
    llm = ScriptedLLM(f"It is on March 14 [N{launch}]. A storm could delay it [N{launch}].")
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert response.answer == "It is on March 14 [N1]. A storm could delay it [N2]."
    assert [r.rel_path for r in response.references] == [
        "projects/work/apollo.md",
        "projects/work/apollo-risks.md",
    ]
    assert [c.status for c in debug_of(response).claims] == ["supported", "recited"]
    assert storm != launch


def test_a_marker_standing_in_for_content_is_replaced_by_the_line_it_points_to(
    make_engine: MakeEngine,
) -> None:
    probe = make_engine(llm=ScriptedLLM()).ask(AskRequest(question=APOLLO, debug=True))
    launch = _position(probe, "projects/work/apollo.md", "# Apollo > ## Launch")
    llm = ScriptedLLM(f"The date of the launch is [N{launch}].")
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert "March 14" in response.answer
    assert response.answer.endswith("[N1].")
    (claim,) = debug_of(response).claims
    assert claim.repaired


def test_the_model_gets_the_numbered_prompt_with_the_kept_chunks(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM()
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    call = llm.answer_calls[0]  # the answer's (no line supports it: a second asks again)
    assert call.citation_style == "numbered"
    assert call.question == APOLLO
    system, user = call.messages
    assert system.role == "system"
    assert system.content.startswith(SYSTEM_PROMPT)
    kept = kept_in_order(response)
    assert [s.cid for s in call.sources] == [f"N{i}" for i in range(1, len(kept) + 1)]
    # each source is its chunk's evidence: a heading the header already names is left out
    assert [s.text for s in call.sources] == [
        "\n".join(ln for ln in c.text.split("\n") if not names_section(ln, c.heading_path))
        for c in kept
    ]
    for number, chunk in enumerate(kept, start=1):
        # one vault: the header names the note by its file name, without its .md
        name = chunk.rel_path.removesuffix(".md").rsplit("/", 1)[-1]
        assert f"[N{number}] {name} | " in user.content
    assert f"Question: {APOLLO}" in user.content


def test_file_section_citations_are_validated_and_kept(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(
        "The launch is on March 14 [File: apollo.md, Section: Launch]. "
        "Tickets are free [File: hermes.md, Section: Status]."
    )
    request = AskRequest(question=APOLLO, citation_style="file_section", debug=True)
    response = make_engine(llm=llm).ask(request)

    # The citation is written back in full; the claim with an invalid citation has no
    # supporting line and is removed.
    assert response.answer == (
        "The launch is on March 14 [File: projects/work/apollo.md, Section: # Apollo > ## Launch]."
    )
    assert refs(response) == [("v1", "projects/work/apollo.md", "# Apollo > ## Launch")]
    assert debug_of(response).invalid_citations == ["[File: hermes.md, Section: Status]"]
    (call,) = llm.answer_calls
    assert call.citation_style == "file_section"
    assert call.messages[0].content == SYSTEM_PROMPT
    assert "[Chunk 1]\n[Vault: v1] File: projects/work/apollo.md\n" in call.messages[1].content


@pytest.mark.parametrize("style", ["numbered", "file_section"])
def test_the_extractive_provider_answers_with_valid_citations(
    notes_engine: Engine, style: str
) -> None:
    request = AskRequest.model_validate(
        {"question": APOLLO, "citation_style": style, "debug": True}
    )
    response = notes_engine.ask(request)

    assert not response.abstained
    assert "March 14" in response.answer
    assert debug_of(response).invalid_citations == []
    assert ("v1", "projects/work/apollo.md", "# Apollo > ## Launch") in refs(response)
    assert debug_of(response).llm == "extractive"


def test_a_note_without_headings_can_be_cited_in_file_section_style(notes_engine: Engine) -> None:
    request = AskRequest(
        question="Whose work notes are these, the Lisbon team?",
        citation_style="file_section",
        folders=["v1/"],
        debug=True,
    )
    response = notes_engine.ask(request)
    assert ("v1", "readme.md", "") in refs(response)
    assert "[File: readme.md, Section: (top of note)]" in response.answer
    assert debug_of(response).invalid_citations == []


def passes_thresholds(chunk: RetrievedChunk) -> bool:
    """The calibrated defaults of AskSettings."""
    ask = AskSettings()
    return chunk.score_vector >= ask.vector_threshold and chunk.score_gate >= ask.final_threshold


def test_debug_lists_every_candidate_with_its_scores(notes_engine: Engine) -> None:
    response = notes_engine.ask(AskRequest(question=APOLLO, debug=True))
    debug = debug_of(response)

    candidates = debug.retrieved_chunks
    assert len(candidates) > len(response.references) > 0
    assert [c.rank for c in candidates] == list(range(1, len(candidates) + 1))
    finals = [c.score_final for c in candidates]
    assert finals == sorted(finals, reverse=True)
    for c in candidates:
        assert c.chunk_id
        assert c.text
        assert 0.0 <= c.score_lexical <= 0.5
        # the gate is the seed formula: 0.7 x cosine (x folder weight, 1 here) + 0.3 x lexical
        assert c.score_gate == pytest.approx(0.7 * c.score_vector + 0.3 * c.score_lexical, abs=1e-5)
    assert debug.k == 5
    assert [c for c in candidates if c.kept] == [c for c in candidates if passes_thresholds(c)][
        : debug.k
    ]
    assert debug.invalid_citations == []
    assert debug.llm == "extractive"


def test_debug_times_every_stage(notes_engine: Engine) -> None:
    debug = debug_of(notes_engine.ask(AskRequest(question=APOLLO, debug=True)))
    timings = debug.timings_ms.model_dump()
    assert set(timings) == {
        *("embed", "folder_ranking", "retrieve", "rerank", "auto_rag", "generate", "total"),
        *("first_token", "first_text", "prompt_eval", "reading_check", "question_parts"),
    }
    # not streamed, and the extractive provider reads no prompt: neither is known
    assert timings.pop("first_token") is None
    assert timings.pop("first_text") is None
    assert timings.pop("prompt_eval") is None
    assert timings.pop("reading_check") is None  # it weighs no yes/no question
    assert all(value >= 0 for value in timings.values())
    assert timings["generate"] > 0
    stages = timings["embed"] + timings["retrieve"] + timings["rerank"] + timings["generate"]
    assert timings["total"] >= stages


def test_debug_is_left_out_unless_asked_for(notes_engine: Engine) -> None:
    response = notes_engine.ask(AskRequest(question=APOLLO))
    assert response.debug is None
    assert response.references


def test_streamed_tokens_concatenate_to_the_raw_answer(make_engine: MakeEngine) -> None:
    raw = "The Apollo launch is on March 14 [N1]. Tickets cost 12 euros [N9]."
    pieces: list[str] = []
    response = make_engine(llm=ScriptedLLM(raw)).ask(AskRequest(question=APOLLO), pieces.append)

    assert len(pieces) > 1
    assert "".join(pieces) == raw
    assert response.answer == "The Apollo launch is on March 14 [N1]."


def test_a_registered_llm_is_picked_per_request(make_engine: MakeEngine) -> None:
    scripted = ScriptedLLM("March 14 [N1].", name="scripted-plugin")

    def factory(settings: GenerationSettings) -> ScriptedLLM:
        return scripted

    register_llm("scripted-plugin", factory)
    engine = make_engine()
    response = engine.ask(AskRequest(question=APOLLO, llm="scripted-plugin", debug=True))

    assert response.answer == "March 14 [N1]."
    assert debug_of(response).llm == "scripted-plugin"
    assert len(scripted.answer_calls) == 1
    default = engine.ask(AskRequest(question=APOLLO, debug=True))
    assert debug_of(default).llm == "extractive"


def test_a_reference_carries_vault_path_section_and_chunk_index(notes_engine: Engine) -> None:
    response = notes_engine.ask(AskRequest(question="Hermes migration Postgres vendor"))
    first = response.references[0]
    assert first.model_dump(
        include={"vault", "rel_path", "heading_path", "chunk_index", "cid"}
    ) == {
        "vault": "v1",
        "rel_path": "projects/work/hermes.md",
        "heading_path": "# Hermes > ## Status",
        "chunk_index": 0,
        "cid": "N1",
    }
    assert first.quote == "Hermes migration to Postgres is blocked on the vendor contract."
    assert first.quote_line == 5
    assert first.line_start is not None


def test_preparing_the_model_has_it_read_the_answer_prompts_fixed_start(
    make_engine: MakeEngine,
) -> None:
    """`notecite serve`, `chat` and `models prepare` prepare the model: it then reads the
    system prompt the first question will send, so its prompt cache holds it already."""
    llm = PreparableLLM()
    engine = make_engine(llm=llm)
    assert engine.prepare_llm()
    (warm,) = llm.calls
    assert warm.max_tokens == 1
    assert not engine.prepare_llm()  # ready: nothing more to read
    engine.ask(AskRequest(question=APOLLO))
    call = llm.answer_calls[-1]
    assert call is not warm
    assert warm.messages[0] == call.messages[0]
    assert call.messages[1].content.startswith(warm.messages[1].content.split("\n")[0])


def test_a_model_caught_in_a_loop_is_read_once(make_engine: MakeEngine) -> None:
    probe = make_engine(llm=ScriptedLLM()).ask(AskRequest(question=APOLLO, debug=True))
    launch = _position(probe, "projects/work/apollo.md", "# Apollo > ## Launch")
    line = f"The Apollo launch is scheduled for March 14 [N{launch}].\n"
    llm = ScriptedLLM(f"Here is when:\n{line * 6}The Apollo launch is sch")
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert response.answer.count("March 14") == 1
    assert "again and again" in " ".join(debug_of(response).notes)
    twice = make_engine(llm=ScriptedLLM(line * 2)).ask(AskRequest(question=APOLLO, debug=True))
    assert not any("again and again" in note for note in debug_of(twice).notes)
