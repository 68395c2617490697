"""British spellings and their American forms, so that a question and a note meet however
each spells a word: "colour" and "color", "organised" and "organized", "centre" and
"center", "cancelled" and "canceled".

People write their questions in their own English and their notes in whatever English the
tool's documentation used; a word spelled the other way matches nothing in the full-text
index, counts as a question term no note holds, and is missed by every term overlap. So
full-text queries ask for both forms (:func:`spellings`), and the stemmer that every term
comparison goes through reads the American one (:func:`american`).

Only word forms known to differ are mapped: a suffix rule alone would turn "four", "promise"
or "genre" into words they are not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# -our -> -or ("colours", "favourite", "behavioural"); not "four", "hour", "tour", "your".
_OUR = re.compile(
    r"^(arm|behavi|cand|clam|col|endeav|fav|flav|glam|harb|hon|hum|lab|neighb|od|parl|"
    r"rig|rum|sav|splend|tum|val|vap|vig)our"
    r"(s|ed|ing|ings|ful|less|ite|ites|able|ably|er|ers|ist|ists|al|ally|hood|hoods|ly)?$"
)
# -ise -> -ize and -isation -> -ization, for verbs spelled -ize in American English; not
# "advise", "promise", "exercise", "surprise", "precise", which are -ise in both.
_IZE_ROOTS = (
    "alphabet anonym apolog author capital categor central character civil colon container "
    "critic custom decentral deserial digit emphas energ equal final fertil formal general "
    "global harmon hypothes ideal initial internal item jeopard legal local maxim "
    "memor minim mobil modern monet normal optim organ parameter penal personal polar "
    "popular priorit public random rational real recogn reorgan sanit scrutin serial "
    "special stabil standard styl subsid summar symbol sympath synchron desynchron "
    "synthes theor token util vector visual"
)
_IZE = re.compile(
    r"^(" + "|".join(sorted(set(_IZE_ROOTS.split()), key=len, reverse=True)) + r")is"
    r"(e|es|ed|ing|ation|ations|er|ers|able)$"
)
# -yse -> -yze ("analysed", "paralysing"); "analyses" is also the plural of "analysis".
_YZE = re.compile(r"^(anal|catal|dial|electrol|hydrol|paral)ys(e|ed|ing|er|ers)$")
# -re -> -er ("centre", "centred", "metres"); not "genre", "acre", "ogre".
_RE = re.compile(r"^(calib|cent|fib|lit|lust|meag|met|sab|spect|theat)re(s|d)?$")
# a final l doubled before -ed, -ing, -er ("cancelled", "labelling", "modeller").
_LL = re.compile(
    r"^(cancel|channel|counsel|dial|fuel|jewel|label|level|marshal|model|panel|pencil|"
    r"quarrel|shovel|signal|total|travel|tunnel)l(ed|ing|er|ers)$"
)


def _er(found: re.Match[str]) -> str:
    """ "centre" -> "center", "centred" -> "centered", "metres" -> "meters"."""
    ending = found.group(2) or ""
    return f"{found.group(1)}er{'ed' if ending == 'd' else ending}"


_RULES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (_OUR, r"\1or\2"),
    (_IZE, r"\1iz\2"),
    (_YZE, r"\1yz\2"),
    (_RE, _er),
    (_LL, r"\1\2"),
)
_WORDS = {
    "acknowledgement": "acknowledgment",
    "acknowledgements": "acknowledgments",
    "ageing": "aging",
    "aluminium": "aluminum",
    "analogue": "analog",
    "analogues": "analogs",
    "catalogue": "catalog",
    "catalogues": "catalogs",
    "catalogued": "cataloged",
    "defence": "defense",
    "dialogue": "dialog",
    "dialogues": "dialogs",
    "enrol": "enroll",
    "enrolment": "enrollment",
    "fulfil": "fulfill",
    "fulfilment": "fulfillment",
    "grey": "gray",
    "greyed": "grayed",
    "greys": "grays",
    "greyscale": "grayscale",
    "instalment": "installment",
    "judgement": "judgment",
    "judgements": "judgments",
    "licence": "license",
    "licences": "licenses",
    "offence": "offense",
    "programme": "program",
    "programmes": "programs",
    "sceptical": "skeptical",
    "skilful": "skillful",
}


@lru_cache(maxsize=65536)
def american(word: str) -> str:
    """The American spelling of the lower-case ``word`` when it is a British form known to
    differ ("colours" -> "colors", "organisation" -> "organization"), else ``word``."""
    if word in _WORDS:
        return _WORDS[word]
    for pattern, replacement in _RULES:
        changed = pattern.sub(replacement, word, count=1)
        if changed != word:
            return changed
    return word


def spellings(word: str) -> tuple[str, ...]:
    """``word`` (lower case), and its American spelling after it when that differs."""
    us = american(word)
    return (word,) if us == word else (word, us)
