# Types of the compiled encoder and decoder (service/_wire.pyx) for mypy.
from enum import IntEnum
from typing import Any

class Doubt(Exception): ...

class Kind(IntEnum):
    INT32 = 0
    BOOL = 1
    STRING = 2
    MESSAGE = 3
    OTHER = 4

class Field:
    key: str
    kind: int
    repeated: bool
    presence: bool
    sub: Type | None
    number: int
    parse: Any
    show: Any
    def __init__(self, key: str, number: int, kind: int, repeated: bool, presence: bool, sub: Type | None = ...,
                 parse: Any = ..., show: Any = ...) -> None: ...

class Type:
    fields: list[Field]
    plan: list[tuple[int, str, Any, int]] | None
    def __init__(self) -> None: ...

MAX_SHARED: int
EMPTY_ALWAYS: int
EMPTY_NEVER: int

def encode(data: Any, t: Type) -> bytes: ...
def check(data: Any, t: Type) -> None: ...
def decode(data: bytes, t: Type, api: bool = ...) -> dict[str, Any]: ...
