"""A folder the question names scopes it, and the words naming it are not searched."""

from __future__ import annotations

import pytest

from notecite.retrieve.named_folder import named_folder

FOLDERS = ["life/recipes", "life/travel", "life/work/meetings", "docs/user/recipes"]
RECIPES = ("life/recipes", "docs/user/recipes")
MEETINGS = ("life/work/meetings",)


@pytest.mark.parametrize(
    ("question", "searched", "folders"),
    [
        (
            "What's in my Recipes folder that freezes well?",
            "What's that freezes well?",
            RECIPES,
        ),
        ("Anything in my recipe folder with ginger?", "Anything with ginger?", RECIPES),
        ("Anything in the life/travel folder on Lisbon?", "Anything on Lisbon?", ("life/travel",)),
        ("In the folder travel, when does it renew?", "when does it renew?", ("life/travel",)),
        ("What is under the folder `work/meetings` on deploys?", "What is on deploys?", MEETINGS),
        ("What did we decide in our meetings folder?", "What did we decide?", MEETINGS),
    ],
)
def test_a_folder_the_vaults_have_is_taken_out_of_the_question(
    question: str, searched: str, folders: tuple[str, ...]
) -> None:
    found = named_folder(question, FOLDERS)
    assert (found.question, found.folders) == (searched, folders)


@pytest.mark.parametrize(
    "question",
    [
        "How do I set up a smart folder in the side bar?",  # no folder of the vaults
        "How can I count the notes under my projects folder from a query?",
        "Which folder do my daily notes end up in?",  # asks about a folder, names none
        "What's in my recipes?",  # no "folder": the word may be a topic
    ],
)
def test_words_that_name_no_folder_of_the_vaults_stay(question: str) -> None:
    found = named_folder(question, FOLDERS)
    assert (found.question, found.folders) == (question, ())
