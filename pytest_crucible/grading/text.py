"""Text as graders compare and count it: normalised for search and equality, and read as a reader
reads prose (words, sentences, paragraphs, list items). Pure functions; extract.py re-exports them.

- `plain` / `normalize`   text for comparison;
- `word_pattern`   a needle that never matches inside a longer word or number;
- `words` / `sentences` / `paragraphs` / `list_item` / `line_text`   the structure of prose as a
  reader sees it (abbreviations, decimals and markdown list markers understood).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# ---------------------------------------------------------------- comparison

# How models write what a reader takes for ASCII: typographic quotes, every Unicode hyphen, dash and minus
# (U+2010-2015, U+2212; NFKC leaves them, and a non-breaking hyphen in "FP\u20113948" is still a hyphen), the
# fraction slash; zero-width characters and soft hyphens are dropped. NFKC itself folds full-width digits and
# letters, non-breaking and thin spaces.
_TYPOGRAPHIC = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
    "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
    **{chr(c): "-" for c in range(0x2010, 0x2016)}, "\u2212": "-", "\ufe58": "-", "\ufe63": "-", "\u2043": "-",
    "\u2044": "/", "\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None, "\u00ad": None,
})
_EMPHASIS = re.compile(r"\*\*|~~|`|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
_EDGE_PUNCT = " \t\n\r.,;:!?'\"()[]{}<>*`~"


_THIN_GROUP = re.compile("(?<=[0-9])[\u00a0\u202f\u2009](?=[0-9]{3}(?![0-9]))")


def typographic(text: str) -> str:
    """The text with the characters models write for ASCII ones folded to ASCII (see _TYPOGRAPHIC): what a
    line-exact check compares, markdown left as it is."""
    text = _THIN_GROUP.sub(",", text or "")  # NFKC would turn "1 234" (thin space) into two numbers
    return unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHIC)


def plain(text: str) -> str:
    """Unicode-normalised text without markdown emphasis, for searching."""
    return _EMPHASIS.sub("", typographic(text))


def normalize(text: str, case_sensitive: bool = False) -> str:
    """Canonical form for equality: emphasis, edge punctuation and repeated whitespace gone."""
    s = " ".join(plain(text).split()).strip(_EDGE_PUNCT)
    return s if case_sensitive else s.casefold()


@lru_cache(maxsize=4096)
def word_pattern(needle: str, case_sensitive: bool = False) -> re.Pattern:
    """Regex for `needle` as a whole word or number.

    A needle edge that is a letter may not touch another word character; a digit edge may not touch
    another digit, nor a decimal point or separator followed by one ("27" is not in "127", "1.27",
    "2,700"). Punctuation edges ("C++") need no boundary. Inner whitespace matches any whitespace.
    """
    needle = " ".join(plain(str(needle)).split())
    body = r"\s+".join(re.escape(part) for part in needle.split(" "))
    left = right = ""
    if needle[:1].isdigit():
        left = r"(?<!\d)(?<!\d[.,])"
    elif needle[:1].isalnum() or needle[:1] == "_":
        left = r"(?<!\w)"
    if needle[-1:].isdigit():
        right = r"(?!\d)(?![.,]\d)"
    elif needle[-1:].isalnum() or needle[-1:] == "_":
        right = r"(?!\w)"
    return re.compile(left + body + right, 0 if case_sensitive else re.I)


# ---------------------------------------------------------------- prose structure

_WORD = re.compile(r"[^\W_]+(?:[-'.,_][^\W_]+)*")


def words(text: str) -> list[str]:
    """Words as a reader counts them: "don't", "well-known", "3.14", "1,000" and "[sender_name]" are
    one word each; markdown emphasis and list markers are not words."""
    return _WORD.findall(plain(text))


@dataclass(frozen=True)
class ListItem:
    kind: str          # "bullet" or "numbered"
    number: int | None  # the number written, for numbered items
    text: str          # the item without its marker


# A list marker as markdown writes it, optionally inside emphasis ("**1.** item", "*2)* item"),
# after a blockquote. "*italic line*" is not a bullet: a bullet is followed by whitespace.
_LIST_MARKER = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?P<em>[*_]{1,3}(?=\(?\d))?"
    r"(?:(?P<bullet>[-*+•‣◦▪])|\(?(?P<number>\d{1,3})[.)])"
    r"(?:[*_]{1,3})?[ \t]+(?=\S)")
_HEADING = re.compile(r"^[ \t]*(?:>[ \t]*)*#{1,6}[ \t]+")
_RULE = re.compile(r"^[ \t]*(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")


def list_item(line: str) -> ListItem | None:
    """The list item a line is (`- x`, `* x`, `1. x`, `1) x`, `(1) x`, `**1.** x`), or None."""
    m = _LIST_MARKER.match(line)
    if not m or _RULE.match(line):
        return None
    if m.group("bullet"):
        return ListItem("bullet", None, line[m.end():].strip())
    return ListItem("numbered", int(m.group("number")), line[m.end():].strip())


def line_text(line: str) -> str:
    """A line's text as read: list marker, heading hashes, blockquote and emphasis taken off."""
    if _RULE.match(line):
        return ""
    m = _LIST_MARKER.match(line)
    if m:
        line = line[m.end():]
    line = _HEADING.sub("", line)
    return plain(line).strip().lstrip(">").strip()


def paragraphs(text: str) -> list[str]:
    """Blocks separated by blank lines or by a horizontal rule (`***`, `---`)."""
    blocks: list[str] = []
    current: list[str] = []
    for line in (text or "").split("\n"):
        if not line.strip() or _RULE.match(line):
            if current:
                blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


# Abbreviations after which a full stop never ends a sentence ("Dr. Okoro", "e.g. bread").
_NEVER_ENDS = frozenset([
    "e.g.", "i.e.", "eg.", "ie.", "viz.", "cf.", "vs.", "al.", "dr.", "mr.", "mrs.", "ms.", "mx.", "prof.", "rev.",
    "st.", "mt.", "sgt.", "capt.", "gen.", "col.", "lt.", "gov.", "sen.", "rep.", "hon.", "fr.", "approx.", "ca.",
    "esp.", "incl.", "p.s.", "p.p.s.",
])
# Abbreviations that take a number: "No. 5", "pp. 12", "Fig. 3"; before anything else they may end one.
_BEFORE_NUMBER = frozenset([
    "no.", "nos.", "fig.", "figs.", "p.", "pp.", "vol.", "ch.", "sec.", "art.", "op.", "tel.", "ext.",
])
# Abbreviations that can end a sentence ("... in the U.S. Then ..."): they do when a usual sentence
# opener follows, and not before anything else ("the U.S. Navy", "8 a.m. sharp").
_OPENERS = frozenset([
    "the", "a", "an", "it", "its", "this", "that", "these", "those", "there", "then", "he", "she", "they", "we",
    "i", "you", "his", "her", "their", "our", "my", "your", "in", "on", "at", "by", "for", "from", "to", "with",
    "after", "before", "when", "while", "if", "as", "but", "and", "so", "yet", "or", "nor", "however", "also",
    "some", "most", "many", "all", "each", "every", "no", "none", "one", "two", "three", "four", "five", "six",
    "seven", "eight", "nine", "ten", "what", "why", "how", "where", "who", "which", "now", "today", "here",
    "meanwhile", "finally", "first", "next", "still", "later",
])
_TERMINATOR = re.compile(r"(?:[.!?…]+)[\"'”’)\]]*(?=\s|$)")
_DOTTED = re.compile(r"^(?:[^\W\d_]\.){2,}$")


def _ends_sentence(segment: str, mark: str, following: str) -> bool:
    """Does the terminator `mark` after `segment` end a sentence, given the text after it?"""
    if not following:
        return True
    if "!" in mark or "?" in mark:
        return True
    token = (segment.split() or [""])[-1].lower() + "."
    token = token.lstrip("(\"'“‘[")
    nxt = following.split()[0] if following.split() else ""
    nxt_word = nxt.strip("\"'“‘([*_").lower()
    if mark.startswith("...") or mark.startswith("…"):
        return nxt[:1].isupper()
    if token in _NEVER_ENDS:
        return False
    if token in _BEFORE_NUMBER:
        return not nxt[:1].isdigit()
    bare = token[:-1]
    if _DOTTED.match(token) or token == "etc." or (len(bare) == 1 and bare.isalpha()):
        # "U.S.", "a.m.", "etc.", an initial "J.": a sentence ends only if a usual opener follows
        # (capitalised as a sentence opener is: in ALL-CAPS text nothing can be told, so no break)
        opener = nxt.strip("\"'“‘([*_").rstrip(",;:")
        return nxt_word.rstrip(",;:") in _OPENERS and opener[:1].isupper() and not opener[1:].isupper()
    return True


def sentences(text: str) -> list[str]:
    """Sentences as a reader counts them.

    A sentence ends at `.`, `!`, `?` or `…` followed by whitespace, and at every line break (a list
    item or a heading is a sentence of its own). A full stop after an abbreviation ("e.g.", "Dr.",
    "No. 5"), inside a number ("3.14") or after an initial does not end one; after "U.S.", "a.m." or
    "etc." it does when a usual sentence opener follows. List markers are not sentences, and neither
    is a label on a line of its own ("Notice:", "Here are the steps:")."""
    out: list[str] = []
    for line in plain(text).split("\n"):
        body = line_text(line)
        if not body or (body.endswith(":") and not _TERMINATOR.search(body)):
            continue
        start = 0
        for m in _TERMINATOR.finditer(body):
            segment = body[start:m.start()]
            if _ends_sentence(segment, m.group(), body[m.end():].strip()):
                piece = body[start:m.end()].strip()
                if re.search(r"\w", piece):
                    out.append(piece)
                start = m.end()
        rest = body[start:].strip()
        if re.search(r"\w", rest):
            out.append(rest)
    return out
