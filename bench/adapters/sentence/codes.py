"""The ASCII sentence protocol's codes for what the bench names in words
(docs/adapters.md, section 4): bets, refusal reasons, error codes and NAK
reasons. Each table maps one bench word to one code and back; a word with no
code travels escaped (``~word``, or ``eNN`` for a numeric code the adapter
does not know), so that every message the bench can say is carried and
decodes to exactly what was sent."""

from __future__ import annotations

from bench.protocol.messages import FieldError, is_token

ESCAPE = "~"

# A bet is a family and, after ':', arguments separated by '-' (``total:11``,
# ``corner:1-2-4-5``); its code is the family's and the arguments after '.'
# (``TOT.11``, ``COR.1.2.4.5``).
BET_FAMILIES = {
    # dice (Sic Bo, Lightning Dice)
    "small": "SML", "big": "BIG", "low": "LOW", "high": "HIG", "any-double": "ADB", "any-triple": "ATR",
    "total": "TOT", "triple": "TRI", "double": "DBL", "combo": "CMB", "single": "SGL",
    # roulette
    "straight": "STR", "split": "SPL", "street": "STT", "corner": "COR", "six-line": "SXL", "dozen": "DOZ",
    "column": "COL", "red": "RED", "black": "BLK", "odd": "ODD", "even": "EVN", "1-18": "MAN", "19-36": "PAS",
    # Dice-Ology side bets
    "little-ones": "LTL", "big-ones": "BGO", "boom-or-bust": "BOB",
}
_BET_FAMILY_OF = {code: family for family, code in BET_FAMILIES.items()}

REFUSALS = {"wrong-round": "R1", "duplicate-id": "R2", "betting-closed": "R3", "bad-stake": "R4",
            "unknown-bet": "R5"}
_REFUSAL_OF = {code: word for word, code in REFUSALS.items()}

ERRORS = {"version": "21", "game-mismatch": "22", "out-of-turn": "23", "bad-sensor": "24", "unexpected": "25"}
_ERROR_OF = {code: word for word, code in ERRORS.items()}

NAK_CODES = {"bad-crc": "E01", "no-end": "E02", "bad-syntax": "E03", "unknown-type": "E04", "wrong-game": "E05",
             "wrong-sender": "E06", "missing-field": "E07", "extra-field": "E08", "bad-value": "E09",
             "too-long": "E10", "byte-timeout": "E11", "frame-timeout": "E12", "non-ascii": "E13",
             "control-char": "E14", "bad-seq": "E15", "no-crc": "E16"}
_NAK_OF = {code: word for word, code in NAK_CODES.items()}


def bet_code(bet: str) -> str:
    family, colon, arguments = bet.partition(":")
    args = arguments.split("-") if colon else []
    code = BET_FAMILIES.get(family)
    if code is None or any(not a or "." in a for a in args):
        return ESCAPE + bet
    return ".".join([code, *args])


def bet_name(code: str) -> str:
    if code.startswith(ESCAPE):
        name = code[1:]
    else:
        head, *args = code.split(".")
        family = _BET_FAMILY_OF.get(head)
        if family is None:
            raise FieldError(f"unknown bet code {head!r}")
        name = family + (":" + "-".join(args) if args else "")
    if not is_token(name):
        raise FieldError(f"bet {code!r} is not a bet name")
    return name


def _coder(table: dict[str, str], inverse: dict[str, str], what: str, numeric: str | None = None):
    """(encode, decode) of a word table. Unknown words travel escaped
    (``~word``); in a numeric table (codes ``NN`` or ``ENN``) an unknown code
    decodes as ``eNN`` and encodes back from it."""
    def encode(word: str) -> str:
        if word in table:
            return table[word]
        if numeric:
            if len(word) == 3 and word[0] == "e" and word[1:].isdigit():
                return word[1:] if numeric == "NN" else "E" + word[1:]
            raise ValueError(f"{what} {word!r} has no code in this protocol")
        return ESCAPE + word

    def decode(code: str) -> str:
        if code in inverse:
            return inverse[code]
        digits = code if numeric == "NN" else code[1:] if numeric == "ENN" and code[:1] == "E" else None
        if digits is not None and len(digits) == 2 and digits.isdigit():
            return "e" + digits
        if not numeric and code.startswith(ESCAPE) and is_token(code[1:]):
            return code[1:]
        raise FieldError(f"unknown {what} code {code!r}")
    return encode, decode


refusal_code, refusal_word = _coder(REFUSALS, _REFUSAL_OF, "refusal reason")
error_code, error_word = _coder(ERRORS, _ERROR_OF, "error", numeric="NN")
nak_code, nak_word = _coder(NAK_CODES, _NAK_OF, "NAK reason", numeric="ENN")
