"""British and American spellings, so that a question and a note meet however each spells
a word: "colour" and "color", "organised" and "organized", "centre" and "center",
"cancelled" and "canceled".

People write their questions in their own English and their notes in whatever English the
tool's documentation used (the Dendron vault writes "customise" and "behaviour"); a word
spelled the other way matches nothing in the full-text index, counts as a question term no
note holds, and is missed by every term overlap. So full-text queries ask for both forms
(:func:`spellings`), and the stemmer that every term comparison goes through reads the
American one (:func:`american`).

Only word forms known to differ are mapped: a suffix rule alone would turn "four", "promise"
or "genre" into words they are not.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _either(words: str) -> str:
    """A regular-expression alternation of the space-separated ``words``, longest first."""
    return "|".join(sorted(set(words.split()), key=len, reverse=True))


# -our / -or ("colours", "favourite", "behavioural"); not "four", "hour", "tour", "your".
_OUR_ROOTS = _either(
    "arm behavi cand clam col endeav fav flav glam harb hon hum lab neighb od parl rig rum "
    "sav splend tum val vap vig"
)
_OUR_ENDINGS = "s|ed|ing|ings|ful|less|ite|ites|able|ably|er|ers|ist|ists|al|ally|hood|hoods|ly"
# -ise / -ize and -isation / -ization, for verbs spelled -ize in American English; not
# "advise", "promise", "exercise", "surprise", "precise", which are -ise in both.
_IZE_ROOTS = _either(
    "alphabet anonym apolog author capital categor central character civil colon container "
    "critic custom decentral deserial digit emphas energ equal final fertil formal general "
    "global harmon hypothes ideal initial internal item jeopard legal local maxim "
    "memor minim mobil modern monet normal optim organ parameter penal personal polar "
    "popular priorit public random rational real recogn reorgan sanit scrutin serial "
    "special stabil standard styl subsid summar symbol sympath synchron desynchron "
    "synthes theor token util vector visual"
)
_IZE_ENDINGS = "e|es|ed|ing|ation|ations|er|ers|able"
# -yse / -yze ("analysed", "paralysing"); "analyses" is also the plural of "analysis".
_YZE_ROOTS = _either("anal catal dial electrol hydrol paral")
_YZE_ENDINGS = "e|ed|ing|er|ers"
# -re / -er ("centre", "centred", "metres"); not "genre", "acre", "ogre".
_RE_ROOTS = _either("calib cent fib lit lust meag met sab spect theat")
# a final l doubled before -ed, -ing, -er ("cancelled", "labelling", "modeller").
_LL_ROOTS = _either(
    "cancel channel counsel dial fuel jewel label level marshal model panel pencil quarrel "
    "shovel signal total travel tunnel"
)


# (roots, British infix, American infix, endings): "colour" is col + our + "", "color" is
# col + or + "", "centred" is cent + red + "" and "centered" cent + ered + "".
_PAIRS = (
    (_OUR_ROOTS, "our", "or", f"(?:{_OUR_ENDINGS})?"),
    (_IZE_ROOTS, "is", "iz", _IZE_ENDINGS),
    (_YZE_ROOTS, "ys", "yz", _YZE_ENDINGS),
    (_RE_ROOTS, "re", "er", "s?"),
    (_RE_ROOTS, "red", "ered", ""),
    (_LL_ROOTS, "l", "", "ed|ing|er|ers"),
)
Rule = tuple[re.Pattern[str], str]


def _rules(to_american: bool) -> tuple[Rule, ...]:
    """Each pair as a pattern of one spelling and the replacement that writes the other."""
    return tuple(
        (re.compile(rf"^({roots}){source}({endings})$"), rf"\1{target}\2")
        for roots, uk, us, endings in _PAIRS
        for source, target in ((uk, us) if to_american else (us, uk),)
    )


_TO_AMERICAN = _rules(to_american=True)
_TO_BRITISH = _rules(to_american=False)

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


# "program" is the British spelling too, of software; "programme" is only the other sense
_TO_BRITISH_WORDS = {us: uk for uk, us in _WORDS.items() if us not in {"program", "programs"}}


def _respelled(word: str, words: dict[str, str], rules: tuple[Rule, ...]) -> str:
    if word in words:
        return words[word]
    for pattern, replacement in rules:
        changed = pattern.sub(replacement, word, count=1)
        if changed != word:
            return changed
    return word


@lru_cache(maxsize=65536)
def american(word: str) -> str:
    """The American spelling of the lower-case ``word`` when it is a British form known to
    differ ("colours" -> "colors", "organisation" -> "organization"), else ``word``."""
    return _respelled(word, _WORDS, _TO_AMERICAN)


@lru_cache(maxsize=65536)
def british(word: str) -> str:
    """The British spelling of the lower-case ``word`` when it is an American form known to
    differ ("colors" -> "colours", "organization" -> "organisation"), else ``word``."""
    return _respelled(word, _TO_BRITISH_WORDS, _TO_BRITISH)


def spellings(word: str) -> tuple[str, ...]:
    """``word`` (lower case), and its spelling in the other English after it when that
    differs ("colour" -> colour, color; "color" -> color, colour)."""
    other = american(word)
    if other == word:
        other = british(word)
    return (word,) if other == word else (word, other)
