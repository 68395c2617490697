"""Each reason to abstain, and the LLM calls it saves."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite.chat import ChatRequest
from notecite.embed.hashing import HashEmbedder
from notecite.errors import LLMTimeoutError
from notecite.generate.answer import QUOTED_LABEL, REWRITTEN_LABEL
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.generate.reading import NOT_ANSWERED
from notecite.pipeline import AMBIGUOUS_ANSWER, NO_CONTEXT_ANSWER, NO_NOTES_ANSWER
from notecite.schemas.ask import AskRequest
from notecite.testing import DelegatingEmbedder, ScriptedLLM
from tests.ask.conftest import MakeEngine

APOLLO = "When is the Apollo launch scheduled?"
UNRELATED = "quantum chromodynamics lattice gauge"
LLM_RANKING = {"folder_ranking": "llm"}  # the model picks folders (not the default)


def test_an_empty_index_abstains_without_calling_the_llm(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    llm = ScriptedLLM()
    engine = make_engine(llm=llm, indexed=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    engine.add_vault("v1", empty)
    engine.index()

    response = engine.ask(AskRequest(question=APOLLO, debug=True))

    assert response.abstained
    assert response.abstain_reason == "no_notes"  # its own reason: nothing to search at all
    assert response.answer == NO_NOTES_ANSWER
    assert response.references == []
    assert response.error is None
    assert llm.calls == []
    assert response.debug is not None
    assert response.debug.retrieved_chunks == []


def test_no_vault_at_all_abstains_without_calling_the_llm(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM()
    response = make_engine(llm=llm, indexed=False).ask(AskRequest(question=APOLLO))
    assert (response.abstained, response.abstain_reason) == (True, "no_notes")
    assert response.answer == NO_NOTES_ANSWER
    assert llm.calls == []


def test_an_unrelated_question_abstains_without_asking_for_an_answer(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM()
    engine = make_engine(llm=llm, ask={"folder_ranking": False})

    response = engine.ask(AskRequest(question=UNRELATED, debug=True))

    assert (response.abstained, response.abstain_reason) == (True, "no_relevant_context")
    assert response.references == []
    assert llm.calls == []
    assert response.debug is not None
    assert not any(c.kept for c in response.debug.retrieved_chunks)


def test_nothing_relevant_names_what_no_note_mentions(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM()
    engine = make_engine(llm=llm, ask={"folder_ranking": False})

    response = engine.ask(AskRequest(question="Which country won the 2018 FIFA World Cup?"))

    assert (response.abstained, response.abstain_reason) == (True, "no_relevant_context")
    assert response.answer == f'{NO_CONTEXT_ANSWER[:-1]}: they don\'t mention "FIFA World Cup".'
    assert llm.calls == []
    # no name of its own: said as before
    plain = engine.ask(AskRequest(question="What should I cook for dinner tonight?"))
    assert (plain.abstain_reason, plain.answer) == ("no_relevant_context", NO_CONTEXT_ANSWER)
    reply = engine.chat(ChatRequest(message="Which country won the 2018 FIFA World Cup?"))
    assert reply.answer.endswith(': they don\'t mention "FIFA World Cup".')


def test_with_folder_ranking_only_the_folders_are_asked_about(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM()
    response = make_engine(llm=llm, ask=LLM_RANKING).ask(AskRequest(question=UNRELATED))
    assert response.abstain_reason == "no_relevant_context"
    assert len(llm.folder_calls) == 1
    assert llm.answer_calls == []


@pytest.mark.parametrize("question", ["what is it?", "Tell me about my notes, please.", "?!"])
def test_a_question_of_stopwords_only_is_ambiguous(make_engine: MakeEngine, question: str) -> None:
    llm = ScriptedLLM()
    embedder = DelegatingEmbedder(HashEmbedder())
    engine = make_engine(llm=llm, embedder=embedder)

    response = engine.ask(AskRequest(question=question, debug=True))

    assert response.abstained
    assert response.abstain_reason == "ambiguous_question"
    assert response.answer == AMBIGUOUS_ANSWER
    assert response.references == []
    assert llm.calls == []
    assert embedder.queries == []  # nothing was searched
    assert response.debug is not None
    assert response.debug.retrieved_chunks == []


def test_an_unsupported_answer_abstains_with_the_lines_closest_to_the_question(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM("The launch is next spring, in the big hall.")
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    # no claim held up: insufficient_information, with the closest lines to read, cited
    assert response.abstained
    assert response.abstain_reason == "insufficient_information"
    assert response.answer.startswith(QUOTED_LABEL)
    assert "next spring" not in response.answer  # the claim no line supports is gone
    assert "The Apollo launch is scheduled for March 14 at the Lisbon office [N1]." in (
        response.answer
    )
    first = response.references[0]
    assert (first.cid, first.rel_path) == ("N1", "projects/work/apollo.md")
    assert first.quote == ("The Apollo launch is scheduled for March 14 at the Lisbon office.")
    assert response.debug is not None
    assert any("closest to the question quoted" in note for note in response.debug.notes)
    assert not response.debug.uncited_references


@pytest.mark.parametrize(
    "written", ["The launch is next spring, in the big hall.", "The launch is on May 2 [N9]."]
)
def test_without_quoting_an_unsupported_answer_gets_the_fallback(
    make_engine: MakeEngine, written: str
) -> None:
    llm = ScriptedLLM(written)
    engine = make_engine(llm=llm, ask={"quote_unsupported": False})
    response = engine.ask(AskRequest(question=APOLLO, debug=True))

    assert response.abstained
    assert response.abstain_reason == "insufficient_information"
    assert response.answer == FALLBACK_ANSWER
    assert "[N9]" not in response.answer
    assert response.debug is not None
    kept = [c for c in response.debug.retrieved_chunks if c.kept]
    assert [r.rel_path for r in response.references] == [c.rel_path for c in kept]
    assert response.debug.uncited_references
    assert any("fallback" in note for note in response.debug.notes)
    assert response.debug.invalid_citations == (["N9"] if "[N9]" in written else [])


def test_an_unsupported_answer_with_no_line_near_the_question_gets_the_fallback(
    make_engine: MakeEngine,
) -> None:
    # the question shares no word with any line of the notes it was given: nothing to quote
    llm = ScriptedLLM("The launch is next spring, in the big hall.")
    everything = {"answerability_gate": False, "vector_threshold": 0.0, "final_threshold": 0.0}
    engine = make_engine(llm=llm, ask=everything)
    response = engine.ask(AskRequest(question="Whereabouts is the liftoff happening?"))

    assert llm.answer_calls  # the model wrote, and grounding removed what it wrote
    assert response.references
    assert response.abstain_reason == "insufficient_information"
    assert response.answer == FALLBACK_ANSWER


def test_an_answer_saying_the_notes_lack_it_is_kept(make_engine: MakeEngine) -> None:
    text = "Your notes do not mention who is flying to the Apollo launch."
    llm = ScriptedLLM(text)
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert response.abstained
    assert response.abstain_reason == "insufficient_information"
    assert response.answer == text
    assert response.references  # what was read is still shown
    assert response.debug is not None
    assert response.debug.uncited_references
    assert not any("fallback" in note for note in response.debug.notes)


def test_an_answer_saying_the_context_lacks_it_speaks_of_the_notes(
    make_engine: MakeEngine,
) -> None:
    # the reader never saw a "context": the model's name for its prompt is their notes
    llm = ScriptedLLM(
        "The context does not provide the guest list. Since the provided context mentions "
        "no flights, I cannot answer based on the given information."
    )
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO))

    assert response.abstain_reason == "insufficient_information"
    assert response.answer == (
        "Your notes do not provide the guest list. Since your notes mention no flights, I "
        "cannot answer based on your notes."
    )


def test_a_cited_answer_does_not_abstain(make_engine: MakeEngine) -> None:
    answer = "The Apollo launch is scheduled for March 14 [N1]."
    response = make_engine(llm=ScriptedLLM(answer)).ask(AskRequest(question=APOLLO))
    assert not response.abstained
    assert response.abstain_reason is None
    assert response.answer == answer


def test_a_name_the_notes_never_mention_is_said_plainly_without_asking_the_model(
    make_engine: MakeEngine,
) -> None:
    """A near miss: on topic (the Apollo launch), but Twitch occurs in no note. A model would
    answer "yes, it is streamed on Twitch [N1]" from the launch note; notecite says the notes
    don't mention it, and lists the closest notes."""
    llm = ScriptedLLM("Yes, the launch is streamed on Twitch [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    response = engine.ask(
        AskRequest(question="Is the Apollo launch streamed on Twitch?", debug=True)
    )

    assert (response.abstained, response.abstain_reason) == (True, "not_mentioned")
    assert response.answer.startswith('Your notes don\'t mention "Twitch"')
    assert "projects/work/apollo.md" in {r.rel_path for r in response.references}
    assert response.debug is not None
    assert response.debug.missing_terms == ["Twitch"]
    assert llm.calls == []


def test_a_name_in_a_question_written_without_capitals_is_still_a_name(
    make_engine: MakeEngine,
) -> None:
    """ "is the apollo launch streamed on vimeo": no capital marks "vimeo" as a name, but
    English does not know the word and no note holds it, so the notes don't mention it."""
    llm = ScriptedLLM("Yes, the launch is streamed on vimeo [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    response = engine.ask(AskRequest(question="is the apollo launch streamed on vimeo", debug=True))
    assert (response.abstained, response.abstain_reason) == (True, "not_mentioned")
    assert response.answer.startswith('Your notes don\'t mention "vimeo"')
    assert llm.calls == []


def test_a_name_the_asker_gives_their_own_note_is_not_searched_for(
    make_engine: MakeEngine,
) -> None:
    """ "Zeta" is the name the asker wants: no note holds it, and none need to."""
    llm = ScriptedLLM("The Apollo budget is 40000 euros [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    question = "Can I copy the Apollo budget into a new note called Zeta Budget?"
    response = engine.ask(AskRequest(question=question, debug=True))
    assert not response.abstained
    assert response.debug is not None
    assert response.debug.missing_terms == []
    assert response.debug.searched_question == (
        "Can I copy the Apollo budget into a new note called ?"
    )
    assert llm.calls  # the model was asked


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        # "my note budget-2025" names the asker's note
        (
            "Can I copy the Apollo budget into my note budget-2025?",
            "Can I copy the Apollo budget into my note ?",
        ),
        # "a note like apollo.budget.q3" gives an example of the asker's own
        (
            "Can a note like apollo.budget.q3 show the Apollo budget?",
            "Can a note like  show the Apollo budget?",
        ),
        # "a name like 'Zeta Budget Notes'", in single quotes: the asker's example
        (
            "Can the Apollo budget go in a new note with a name like 'Zeta Budget Notes'?",
            "Can the Apollo budget go in a new note with a name like ?",
        ),
    ],
)
def test_a_name_of_the_askers_own_that_no_note_holds_is_not_searched_for(
    make_engine: MakeEngine, question: str, searched: str
) -> None:
    """No note holds the name, so it is neither a missing term ("Your notes don't mention
    ...", which would settle the question as a near miss) nor searched for."""
    llm = ScriptedLLM("The Apollo budget is 40000 euros [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    response = engine.ask(AskRequest(question=question, debug=True))
    assert not response.abstained
    assert response.debug is not None
    assert response.debug.missing_terms == []
    assert response.debug.searched_question == searched
    assert llm.calls


def test_a_name_after_my_note_that_a_note_holds_stays_in_the_question(
    make_engine: MakeEngine,
) -> None:
    """'a note "Apollo risks"' names a note of the vault: it is searched for as written."""
    llm = ScriptedLLM("The Apollo budget is 40000 euros [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    question = 'Does a note "Apollo risks" list the Apollo budget?'
    response = engine.ask(AskRequest(question=question, debug=True))
    assert response.debug is not None
    assert response.debug.searched_question is None


def test_a_misspelt_word_is_searched_as_the_word_the_notes_hold(
    make_engine: MakeEngine,
) -> None:
    """ "lanuch" is in no note and in no dictionary; the notes hold "launch", one swap away:
    the question is searched, judged and answered as "When is the Apollo launch?"."""
    llm = ScriptedLLM("The Apollo launch is scheduled for March 14 [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    response = engine.ask(AskRequest(question="When is the Apollo lanuch?", debug=True))
    assert not response.abstained
    assert response.debug is not None
    assert response.debug.searched_question == "When is the Apollo launch?"
    assert "read 'lanuch' as 'launch': no note holds 'lanuch'" in response.debug.notes
    cited = [r for r in response.references if r.cid]
    assert cited
    assert cited[0].rel_path == "projects/work/apollo.md"
    # the model is asked the question as read
    (call,) = llm.answer_calls
    assert call.messages[-1].content.endswith("Question: When is the Apollo launch?")


def test_a_name_the_notes_do_mention_is_answered(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM("The launch is at the Lisbon office [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    response = engine.ask(AskRequest(question="Is the Apollo launch in Lisbon?", debug=True))
    assert not response.abstained
    assert response.debug is not None
    assert response.debug.missing_terms == []


def test_a_name_the_notes_write_as_its_adjective_is_mentioned(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    """ "the Canadian office" over a note that says "Canada": the notes mention it."""
    vault = tmp_path / "offices"
    vault.mkdir()
    (vault / "offices.md").write_text(
        "# Offices\n\nThe Canada office in Toronto opens at 8 and hosts the launch review.\n"
    )
    llm = ScriptedLLM("The Toronto office opens at 8 [N1].")
    engine = make_engine(llm=llm, indexed=False, ask={"folder_ranking": False})
    engine.add_vault("v1", vault)
    engine.index()
    for question in ("When does the Canadian office open?", "When does the Canada office open?"):
        response = engine.ask(AskRequest(question=question, debug=True))
        assert response.abstain_reason != "not_mentioned", question
        assert response.debug is not None
        assert response.debug.missing_terms == []
        assert "not mention" not in llm.answer_calls[-1].messages[-1].content  # no hint


def test_a_name_the_notes_never_mention_skips_auto_rag_and_its_model_calls(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM("Yes, it is streamed on Twitch [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": "off", "auto_rag": "always"})
    response = engine.ask(
        AskRequest(question="Is the Apollo launch streamed on Twitch?", debug=True)
    )
    assert response.abstain_reason == "not_mentioned"
    assert response.debug is not None
    assert not response.debug.auto_rag.triggered
    assert llm.calls == []  # no HyDE, no rewrite, no answer


def test_a_name_the_notes_lack_among_several_they_hold_is_a_detail_the_model_is_told(
    make_engine: MakeEngine,
) -> None:
    """One absent name of four (Slack, beside Maria, Apollo and Lisbon) does not settle the
    question: the notes hold the rest of it. The model answers, told that the notes don't
    mention Slack."""
    llm = ScriptedLLM("Maria moved the Apollo launch review to Thursday [N1].")
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    question = "Did Maria move the Apollo launch review in Lisbon, as the Slack thread says?"
    response = engine.ask(AskRequest(question=question, debug=True))

    assert not response.abstained
    assert "Thursday" in response.answer
    assert response.debug is not None
    assert response.debug.missing_terms == ["Slack"]  # the debug view still shows it
    (call,) = llm.answer_calls
    assert 'The notes above do not mention "Slack"' in call.messages[-1].content


def test_a_model_that_copies_the_absent_terms_hint_is_shown_saying_it_plainly(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM('The notes above do not mention "Slack": say so, and claim nothing about it.')
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    question = "Did Maria move the Apollo launch review in Lisbon, as the Slack thread says?"
    response = engine.ask(AskRequest(question=question))
    assert response.abstained
    assert response.answer == 'Your notes don\'t mention "Slack".'
    first, second = llm.answer_calls  # asked again without the hint, and it copied it again
    assert "do not mention" in first.messages[-1].content
    assert "do not mention" not in second.messages[-1].content
    llm.answers = ['The notes do not mention "Slack": say so and claim nothing about it.']
    again = engine.ask(AskRequest(question=question))
    assert again.answer == 'Your notes don\'t mention "Slack".'  # copied a little loosely


def test_a_model_that_copies_the_hint_is_asked_once_more_without_it(
    make_engine: MakeEngine,
) -> None:
    """What it then answers from the notes comes after the plain sentence, cited."""
    llm = ScriptedLLM(
        'The notes above do not mention "Slack": say so, and claim nothing about it.',
        "Maria moved the Apollo launch review to Thursday [N1].",
    )
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    question = "Did Maria move the Apollo launch review in Lisbon, as the Slack thread says?"
    streamed: list[str] = []
    response = engine.ask(AskRequest(question=question), on_token=streamed.append)

    assert not response.abstained
    assert response.answer == (
        'Your notes don\'t mention "Slack". Maria moved the Apollo launch review to Thursday [N1].'
    )
    assert [r.cid for r in response.references] == ["N1"]
    _, retry = llm.answer_calls
    assert "do not mention" not in retry.messages[-1].content
    assert "".join(streamed).endswith("Thursday [N1].")  # both attempts were streamed


def test_a_model_that_says_the_hint_back_as_its_whole_answer_is_asked_again(
    make_engine: MakeEngine,
) -> None:
    """'The notes do not mention "Slack".' and nothing else: the hint said back without its
    instruction is no answer to the question, which is asked once more without it."""
    llm = ScriptedLLM(
        'The notes do not mention "Slack".',
        "Maria moved the Apollo launch review to Thursday [N1].",
    )
    engine = make_engine(llm=llm, ask={"folder_ranking": False})
    question = "Did Maria move the Apollo launch review in Lisbon, as the Slack thread says?"
    response = engine.ask(AskRequest(question=question))

    assert not response.abstained
    assert response.answer.endswith("Maria moved the Apollo launch review to Thursday [N1].")
    assert response.answer.startswith("Your notes don't mention")
    _, retry = llm.answer_calls
    assert "do not mention" not in retry.messages[-1].content


def test_an_answer_the_model_finds_no_ground_for_in_the_notes_is_replaced_by_an_abstention(
    make_engine: MakeEngine,
) -> None:
    """The reading check: after the answer (streamed as it is written), the model is asked
    whether the notes hold what the question asks for; a P(yes) under the threshold replaces
    the answer with the abstention, the notes it read as references; debug shows the score."""
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.2)
    engine = make_engine(llm=llm, ask={"reading_threshold": 0.5})
    streamed: list[str] = []

    response = engine.ask(AskRequest(question=APOLLO, debug=True), streamed.append)

    assert "".join(streamed) == "The Apollo launch is on March 14 [N1]."  # streamed as before
    assert (response.abstained, response.abstain_reason) == (True, "insufficient_information")
    assert response.answer == NOT_ANSWERED
    assert response.references  # the notes it read, to look at
    assert all(r.quote is None for r in response.references)
    (answer_call,) = llm.answer_calls
    (checked,) = llm.yes_calls
    # the check reads the answer's own prompt, so the model has the context in its cache
    assert checked[:-1] == answer_call.messages[:-1]
    assert checked[-1].content.startswith(answer_call.messages[-1].content)
    assert response.debug is not None
    assert response.debug.reading == 0.2
    assert response.debug.raw_answer == "The Apollo launch is on March 14 [N1]."
    assert response.debug.timings_ms.reading_check is not None
    assert any("did not find the answer" in note for note in response.debug.notes)


def test_a_model_that_finds_the_answer_in_the_notes_goes_on_to_write_it(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.8)
    engine = make_engine(llm=llm, ask={"reading_threshold": 0.5})

    response = engine.ask(AskRequest(question=APOLLO, debug=True))

    assert not response.abstained
    assert "March 14" in response.answer
    assert len(llm.yes_calls) == 1
    assert response.debug is not None
    assert response.debug.reading == 0.8


def test_quoted_lines_are_not_put_to_the_reading_check(make_engine: MakeEngine) -> None:
    # the quote is an abstention already: a "no" would only take away the lines it shows
    llm = ScriptedLLM("The launch is next spring, in the big hall.", yes=0.2)
    engine = make_engine(llm=llm, ask={"reading_threshold": 0.5})

    response = engine.ask(AskRequest(question=APOLLO))

    assert llm.yes_calls == []
    assert response.abstained
    assert response.answer.startswith(QUOTED_LABEL)
    assert "March 14" in response.answer


def test_the_reading_check_can_be_turned_off(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].", yes=0.0)
    engine = make_engine(llm=llm, ask={"reading_check": False})
    response = engine.ask(AskRequest(question=APOLLO, debug=True))
    assert not response.abstained
    assert llm.yes_calls == []
    assert response.debug is not None
    assert response.debug.reading is None


def test_a_yes_or_no_question_is_not_put_to_the_reading_check(make_engine: MakeEngine) -> None:
    """Its answer may well be "no": a small model cannot tell that from a missing answer."""
    llm = ScriptedLLM("No, the Apollo launch is scheduled for March 14 [N1].", yes=0.0)
    engine = make_engine(llm=llm, ask={"reading_threshold": 0.5})
    response = engine.ask(AskRequest(question="Is the Apollo launch in April?"))
    assert not response.abstained
    assert "March 14" in response.answer
    assert llm.yes_calls == []


def test_an_answer_that_abstains_anyway_is_not_put_to_the_reading_check(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM("The notes do not say when the launch is.", yes=0.0)
    engine = make_engine(llm=llm, ask={"reading_threshold": 0.5})
    response = engine.ask(AskRequest(question=APOLLO))
    assert response.abstained
    assert llm.yes_calls == []


def test_an_answer_that_did_not_hold_up_is_written_again_from_the_closest_lines(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM(
        "The launch is next spring, in the big hall.",
        "The Apollo launch is on March 14, at the Lisbon office [N1].",
    )
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    # the second prompt's sources hold only the quoted lines
    first, again = (call.messages[-1].content for call in llm.answer_calls)
    assert "March 14 at the Lisbon office" in again
    assert len(again) < len(first)
    assert not response.abstained
    written, _, lines = response.answer.partition(f"\n\n{REWRITTEN_LABEL}\n")
    assert written == "The Apollo launch is on March 14, at the Lisbon office [N1]."
    assert "The Apollo launch is scheduled for March 14 at the Lisbon office [N1]." in lines
    assert "next spring" not in response.answer
    assert response.references[0].rel_path == "projects/work/apollo.md"
    assert response.debug is not None
    assert response.debug.raw_answer == "The launch is next spring, in the big hall."
    assert response.debug.raw_rewritten.startswith("The Apollo launch is on March 14")
    assert any("written again from the lines" in note for note in response.debug.notes)


@pytest.mark.parametrize(
    "again",
    [
        "The launch is in the big hall [N1].",  # still no line supports it
        "The lines above do not say when the Apollo launch is.",  # says they do not answer
    ],
)
def test_a_rewrite_that_does_not_hold_up_leaves_the_abstention(
    make_engine: MakeEngine, again: str
) -> None:
    llm = ScriptedLLM("The launch is next spring, in the big hall.", again)
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert len(llm.answer_calls) == 2
    assert response.abstained
    assert response.abstain_reason == "insufficient_information"
    assert response.answer.startswith(QUOTED_LABEL)
    assert response.debug is not None
    assert response.debug.raw_rewritten == again


def test_the_rewrite_can_be_turned_off(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(
        "The launch is next spring, in the big hall.", "The Apollo launch is on March 14 [N1]."
    )
    engine = make_engine(llm=llm, ask={"rewrite_from_quotes": False})
    response = engine.ask(AskRequest(question=APOLLO))
    assert len(llm.answer_calls) == 1
    assert response.abstained
    assert response.answer.startswith(QUOTED_LABEL)


def test_a_rewrite_that_fails_leaves_the_abstention_with_its_lines(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM(
        "The launch is next spring, in the big hall.", LLMTimeoutError("the model timed out")
    )
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert len(llm.answer_calls) == 2
    assert response.abstained
    assert response.error is None  # the first answer was written: only the retry failed
    assert response.answer.startswith(QUOTED_LABEL)
    assert "March 14" in response.answer
    assert response.references[0].rel_path == "projects/work/apollo.md"
