# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Protobuf's wire format straight to and from the JSON the engine speaks, without messages:

* ``encode``: an engine answer as the bytes of ``from_engine(data, cls).SerializeToString()``
  (``service.codec.to_wire``);
* ``decode``: a request's bytes as ``to_engine(cls.FromString(data))``, the request's JSON as
  ``json_format.MessageToDict`` prints it (``service.codec.request_json``); with ``api``, an
  answer's bytes as ``to_json(cls.FromString(data))``, the API's JSON
  (``service.codec.answer_from_wire``, for the Python gRPC client).

Building the message is most of what an answer costs the server: protobuf's constructor makes an
object for each of a Revesino answer's 60 events, 11 tricks and 12 payments, and then serializes
them (about 45 µs of the 100 a streamed record takes). Written from the JSON as it is, the same
bytes take about 13 µs. A validation result's card and trick events, shared dicts of the games'
tables, come paired with their action's index and are written from their bytes encoded once
(``put_shared``): with the replay's part of it (``engine.record``), a Revesino record's answer
costs the streaming validator 12% fewer instructions, a Tresillo one 6% (callgrind, a pool
process answering batches of 50: 525,000 against 463,000, 429,000 against 402,000).

The encoder knows only what the engine's answers hold: objects of the service's own messages, with int32,
bool and string fields, lists of them and of such objects. Anything else (a key the schema lacks,
a value of another type, an int32 out of range, a null, a Struct) raises ``Doubt``, and the codec
builds the message instead, which then answers or fails exactly as it always did. Fields are
written in field-number order, as protobuf writes them; tests/test_wire.py holds the bytes equal
to protobuf's over every RPC's answers and the edge cases.

Reading a record's message and printing it as JSON took a streamed Revesino record 8 µs, most of
it in making each action's string through protobuf's Python objects; ``decode`` makes the same
dict in about 2. It reads only the canonical form the service's clients write: every field known
and of its wire type, each singular field once, strings valid UTF-8, a Struct handed to protobuf
(``Field.parse``). Anything else (an unknown field, a singular field twice, a group, a truncated
message, invalid UTF-8, a tag or a length written in more than 5 bytes, nesting deeper than 32) raises ``Doubt``, and the codec has protobuf parse
it, which then answers or refuses it exactly as it always did.

Printing a message as the API's JSON (``to_json``) walks protobuf's objects: about 170 µs a
Revesino result, which made the Python gRPC client's stream slower than the REST client's (whose
``json.loads`` takes 55). ``decode`` with ``api`` reads the answer's bytes in about 39, and prints
what ``to_json`` prints: each field in the schema's order (``Type.plan``), a field without presence
at its default when absent, an empty list only where ``to_json`` prints one, a Struct through
``Field.show``.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memmove

cdef extern from "Python.h":
    PyObject* PyDict_GetItemWithError(object, object) except? NULL
    Py_ssize_t PyDict_Size(object)
    const char* PyUnicode_AsUTF8AndSize(object, Py_ssize_t*) except NULL
    bint PyLong_CheckExact(object)
    bint PyUnicode_CheckExact(object)
    bint PyDict_CheckExact(object)
    bint PyList_CheckExact(object)
    long long PyLong_AsLongLongAndOverflow(object, int*) except? -1
    Py_ssize_t PyList_GET_SIZE(object)
    PyObject* PyList_GET_ITEM(object, Py_ssize_t)
    PyObject* PyTuple_GET_ITEM(object, Py_ssize_t)
    bint PyDict_Next(object, Py_ssize_t*, PyObject**, PyObject**)
    bint PyTuple_CheckExact(object)
    Py_ssize_t PyTuple_GET_SIZE(object)
    object PyLong_FromVoidPtr(void*)


class Doubt(Exception):
    """The encoder cannot vouch for this answer: the codec builds the message instead."""


cpdef enum Kind:  # a field's kind (``Field.kind``); Python sees ``Kind.INT32``...
    INT32 = 0
    BOOL = 1
    STRING = 2
    MESSAGE = 3
    OTHER = 4  # anything else: left to protobuf

cdef int MAX_DEPTH = 32


cdef class Field:
    """One field: its JSON key, kind, tag, whether it is a list and whether it has presence (a
    proto3 ``optional`` field is written even when 0, "" or false; a field without presence is
    left out then, as protobuf does)."""
    cdef readonly object key
    cdef readonly int kind
    cdef readonly bint repeated
    cdef readonly bint presence
    cdef readonly Type sub
    cdef readonly object parse
    cdef readonly object show
    cdef readonly int number
    cdef unsigned long long tag

    def __init__(self, str key, int number, int kind, bint repeated, bint presence, Type sub=None, parse=None, show=None):
        if kind == MESSAGE and sub is None:
            raise ValueError("a message field needs its Type")
        self.key = key
        self.number = number
        self.kind = kind
        self.repeated = repeated
        self.presence = presence
        self.sub = sub
        self.parse = parse  # an OTHER field's bytes -> its JSON value (decode); None: Doubt
        self.show = show  # the same as the API's JSON prints it (decode with ``api``); None: Doubt
        # Length-delimited: strings, messages and packed lists of numbers.
        self.tag = (<unsigned long long>number << 3) | (2 if (kind == STRING or kind == MESSAGE or repeated) else 0)


cdef enum:
    MAX_FIELDS = 64  # a message with more fields is written by looking each field up (``put_fields``)


cdef class Type:
    """One message type: its fields in field-number order (``fields`` is set once, after the
    types it refers to exist: a type may contain itself). ``keys`` holds the fields' JSON keys
    in the same order, and ``index`` each key's place in it."""
    cdef list _fields
    cdef dict by_number
    cdef tuple keys
    cdef dict index
    cdef list _plan

    def __init__(self):
        self._fields = []
        self.by_number = {}
        self.keys = ()
        self.index = {}
        self._plan = None

    @property
    def plan(self):
        """How ``decode`` with ``api`` prints the message, a tuple a field in the schema's order:
        (its place in ``fields``, its JSON key, what is printed when it is absent (its default;
        ``None``: nothing, or for a list the next item says), when an absent list is printed
        (``EMPTY_ALWAYS``, ``EMPTY_NEVER``, or the place of the field whose presence prints it));
        ``None``: the type is not printed so (``Doubt``)."""
        return self._plan

    @plan.setter
    def plan(self, list plan):
        self._plan = plan

    @property
    def fields(self):
        return self._fields

    @fields.setter
    def fields(self, list fields):
        self._fields = fields
        self.by_number = {(<Field>f).number: (<Field>f, i) for i, f in enumerate(fields)}
        self.keys = tuple([(<Field>f).key for f in fields])
        self.index = {(<Field>f).key: i for i, f in enumerate(fields)}


# ---- the output buffer ---------------------------------------------------------------------

cdef struct Buf:
    char* data
    Py_ssize_t len
    Py_ssize_t cap
    bint dry  # nothing written: the checks only (``check``)


cdef int reserve(Buf* b, Py_ssize_t need) except -1:
    cdef Py_ssize_t cap = b.cap
    cdef char* grown
    if b.len + need <= cap:
        return 0
    while b.len + need > cap:
        cap *= 2
    grown = <char*>realloc(b.data, cap)
    if grown == NULL:
        raise MemoryError()
    b.data = grown
    b.cap = cap
    return 0


cdef inline int put_varint(Buf* b, unsigned long long v) except -1:
    if b.dry:
        return 0
    if b.len + 10 > b.cap:
        reserve(b, 10)
    while v >= 0x80:
        b.data[b.len] = <char>((v & 0x7F) | 0x80)
        b.len += 1
        v >>= 7
    b.data[b.len] = <char>v
    b.len += 1
    return 0


cdef inline int varint_size(unsigned long long v) noexcept:
    cdef int n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


cdef inline Py_ssize_t open_length(Buf* b, unsigned long long tag) except -1:
    """Write a length-delimited field's tag and one byte for its length; the content starts at
    the returned offset (``close_length`` writes the length once known)."""
    put_varint(b, tag)
    put_varint(b, 0)
    return b.len


cdef inline int close_length(Buf* b, Py_ssize_t start) except -1:
    cdef Py_ssize_t n = b.len - start
    cdef int extra = varint_size(<unsigned long long>n) - 1
    if b.dry:
        return 0
    if extra:  # 128 bytes or more: the content moves up to make room for a longer length
        reserve(b, extra)
        memmove(b.data + start + extra, b.data + start, n)
    b.len = start - 1
    put_varint(b, <unsigned long long>n)
    b.len += n
    return 0


# ---- values --------------------------------------------------------------------------------

cdef inline long long as_int32(object v) except? -1:
    cdef int overflow = 0
    cdef long long i
    if not PyLong_CheckExact(v):  # (a bool is not an int32 here: json_format refuses it)
        raise Doubt()
    i = PyLong_AsLongLongAndOverflow(v, &overflow)
    if overflow or i < -2147483648 or i > 2147483647:
        raise Doubt()
    return i


cdef int put_string(Buf* b, unsigned long long tag, object v, bint presence) except -1:
    cdef Py_ssize_t n
    cdef const char* s
    if not PyUnicode_CheckExact(v):
        raise Doubt()
    try:
        s = PyUnicode_AsUTF8AndSize(v, &n)
    except UnicodeEncodeError:  # a lone surrogate: protobuf refuses it, in its own words
        raise Doubt()
    if (n == 0 and not presence) or b.dry:
        return 0
    put_varint(b, tag)
    put_varint(b, <unsigned long long>n)
    reserve(b, n)
    memcpy(b.data + b.len, s, n)
    b.len += n
    return 0


cdef int put_message(Buf* b, unsigned long long tag, object v, Type t, int depth) except -1:
    cdef Py_ssize_t start
    if not PyDict_CheckExact(v):
        raise Doubt()
    start = open_length(b, tag)
    put_fields(b, <dict>v, t, depth + 1)
    close_length(b, start)
    return 0


cdef int put_list(Buf* b, Field f, object v, int depth) except -1:
    cdef Py_ssize_t i, n, start
    cdef object item
    if not PyList_CheckExact(v):
        raise Doubt()
    n = PyList_GET_SIZE(v)
    if n == 0:
        return 0
    if f.kind == STRING:
        for i in range(n):
            put_string(b, f.tag, <object>PyList_GET_ITEM(v, i), True)
    elif f.kind == MESSAGE:
        for i in range(n):
            item = <object>PyList_GET_ITEM(v, i)
            if PyTuple_CheckExact(item):
                put_shared(b, f, <tuple>item)
            else:
                put_message(b, f.tag, item, f.sub, depth)
    elif f.kind == INT32:  # packed
        start = open_length(b, f.tag)
        for i in range(n):
            put_varint(b, <unsigned long long>as_int32(<object>PyList_GET_ITEM(v, i)))
        close_length(b, start)
    else:
        raise Doubt()
    return 0


# A shared event (``engine.record``: a dict of a game's tables, never changed, its ``action``
# None) comes to the encoder paired with the index of its action, as the replay leaves it for the
# wire (``engine.api.validate(events=WIRE)``). Its fields before ``action`` and after it are
# encoded once, kept here by the event's id with the event itself (so that the id cannot be
# another object's while kept), and each pair is written as those bytes with ``action`` between
# them: the bytes protobuf writes for the event with its ``action`` set.
cdef dict _shared = {}  # id(event) -> (event, its type, bytes before action, action's Field, bytes after it)
MAX_SHARED = 16384  # past this many shared events, the others are encoded at each use


cdef int put_shared(Buf* b, Field f, tuple pair) except -1:
    cdef object event, key
    cdef PyObject* found
    cdef tuple parts
    cdef bytes head, tail
    cdef Field action
    cdef long long i
    if f.sub is None or PyTuple_GET_SIZE(pair) != 2:
        raise Doubt()
    event = <object>PyTuple_GET_ITEM(pair, 0)
    key = PyLong_FromVoidPtr(<void*>event)
    found = PyDict_GetItemWithError(_shared, key)
    if found != NULL and (<tuple>found)[0] is event and (<tuple>found)[1] is f.sub:
        parts = <tuple>found
    else:
        parts = shared_parts(event, f.sub)
        if len(_shared) < MAX_SHARED:
            _shared[key] = parts
    head, action, tail = parts[2], parts[3], parts[4]
    i = as_int32(<object>PyTuple_GET_ITEM(pair, 1))
    if b.dry:
        return 0
    put_varint(b, f.tag)
    put_varint(b, <unsigned long long>(len(head) + varint_size(action.tag) + varint_size(<unsigned long long>i) + len(tail)))
    put_bytes(b, head)
    put_varint(b, action.tag)
    put_varint(b, <unsigned long long>i)
    put_bytes(b, tail)
    return 0


cdef tuple shared_parts(object event, Type t):
    """A shared event's entry of ``_shared``; ``Doubt`` unless it is one (a dict whose ``action``
    is None, of a type whose ``action`` is an optional int32)."""
    cdef Field action, f
    if not PyDict_CheckExact(event) or "action" not in event or event["action"] is not None or "action" not in t.index:
        raise Doubt()
    action = <Field>t._fields[t.index["action"]]
    if action.kind != INT32 or action.repeated or not action.presence:
        raise Doubt()
    head, tail = {}, {}
    for k, v in (<dict>event).items():
        if k == "action":
            continue
        if k not in t.index:
            raise Doubt()
        f = <Field>t._fields[t.index[k]]
        (head if f.number < action.number else tail)[k] = v
    return (event, t, encode(head, t), action, encode(tail, t))


cdef inline int put_bytes(Buf* b, bytes data) except -1:
    cdef Py_ssize_t n = len(data)
    reserve(b, n)
    memcpy(b.data + b.len, <const char*>data, n)
    b.len += n
    return 0


cdef int put_fields(Buf* b, dict data, Type t, int depth) except -1:
    """The fields of ``data`` in field-number order. The dict's entries are read in its own order
    and each is placed by its key (the engine's keys and the fields' are the same interned
    strings, so a key is found by identity among ``t.keys``, else looked up in ``t.index``);
    then the fields present are written in order. A key the schema lacks raises ``Doubt``."""
    cdef PyObject* values[MAX_FIELDS]
    cdef Py_ssize_t n = len(t._fields), pos = 0, i, j
    cdef PyObject* key
    cdef PyObject* value
    cdef PyObject* found
    cdef tuple keys = t.keys
    if depth > MAX_DEPTH:
        raise Doubt()
    if n > MAX_FIELDS:
        return put_fields_by_lookup(b, data, t, depth)
    for i in range(n):
        values[i] = NULL
    while PyDict_Next(data, &pos, &key, &value):
        j = 0
        while j < n and <PyObject*>PyTuple_GET_ITEM(keys, j) != key:
            j += 1
        if j == n:  # not the same string object: by its value
            found = PyDict_GetItemWithError(t.index, <object>key)
            if found == NULL:  # a key the schema lacks
                raise Doubt()
            j = <object>found
        values[j] = value
    for i in range(n):
        if values[i] != NULL:
            put_field(b, <Field>t._fields[i], <object>values[i], depth)
    return 0


cdef int put_fields_by_lookup(Buf* b, dict data, Type t, int depth) except -1:
    """``put_fields`` for a message of more than ``MAX_FIELDS`` fields: each field looked up."""
    cdef Field f
    cdef PyObject* found
    cdef Py_ssize_t seen = 0
    for f in t._fields:
        found = PyDict_GetItemWithError(data, f.key)
        if found == NULL:
            continue
        seen += 1
        put_field(b, f, <object>found, depth)
    if seen != PyDict_Size(data):  # a key the schema lacks
        raise Doubt()
    return 0


cdef int put_field(Buf* b, Field f, object v, int depth) except -1:
    cdef long long i
    if v is None:
        raise Doubt()
    if f.repeated:
        put_list(b, f, v, depth)
    elif f.kind == INT32:
        i = as_int32(v)
        if i != 0 or f.presence:
            put_varint(b, f.tag)
            put_varint(b, <unsigned long long>i)
    elif f.kind == STRING:
        put_string(b, f.tag, v, f.presence)
    elif f.kind == BOOL:
        if v is not True and v is not False:
            raise Doubt()
        if v is True or f.presence:
            put_varint(b, f.tag)
            put_varint(b, 1 if v is True else 0)
    elif f.kind == MESSAGE:
        put_message(b, f.tag, v, f.sub, depth)
    else:
        raise Doubt()
    return 0


def encode(data, Type t):
    """``data`` (a message's JSON, as the engine answers it) as the wire bytes of ``t``'s
    message; ``Doubt`` when the encoder cannot vouch for it."""
    cdef Buf b
    if not PyDict_CheckExact(data):
        raise Doubt()
    b.cap = 4096
    b.len = 0
    b.dry = False
    b.data = <char*>malloc(b.cap)
    if b.data == NULL:
        raise MemoryError()
    try:
        put_fields(&b, <dict>data, t, 0)
        return PyBytes_FromStringAndSize(b.data, b.len)
    finally:
        free(b.data)


def check(data, Type t):
    """Raise ``Doubt`` unless ``encode`` would vouch for ``data``; write nothing. REST prints an
    answer the encoder vouches for as it is (``codec.as_json``)."""
    cdef Buf b
    if not PyDict_CheckExact(data):
        raise Doubt()
    b.data = NULL
    b.len = b.cap = 0
    b.dry = True
    put_fields(&b, <dict>data, t, 0)


# ---- reading -------------------------------------------------------------------------------

cdef extern from "Python.h":
    object PyUnicode_DecodeUTF8(const char*, Py_ssize_t, const char*)

cdef object _UNSET = object()
cdef enum:
    ALWAYS = -2  # an absent list printed empty (``Type.plan``)
    NEVER = -1
EMPTY_ALWAYS = ALWAYS
EMPTY_NEVER = NEVER


cdef struct Reader:
    const unsigned char* at
    const unsigned char* end


cdef inline unsigned long long get_varint(Reader* r) except? 0xFFFFFFFFFFFFFFFF:
    cdef unsigned long long v = 0
    cdef int shift = 0
    cdef unsigned char byte
    while True:
        if r.at >= r.end or shift > 63:  # truncated, or longer than 10 bytes
            raise Doubt()
        byte = r.at[0]
        r.at += 1
        v |= <unsigned long long>(byte & 0x7F) << shift
        if byte < 0x80:
            return v
        shift += 7


cdef inline unsigned long long get_varint32(Reader* r) except? 0xFFFFFFFFFFFFFFFF:
    """A tag or a length: protobuf reads these in at most 5 bytes (a value's varint may take 10),
    and refuses the message when one takes more, even if the bytes past the fifth are padding."""
    cdef const unsigned char* start = r.at
    cdef unsigned long long v = get_varint(r)
    if r.at - start > 5 or v > 0xFFFFFFFF:
        raise Doubt()
    return v


cdef inline Py_ssize_t get_length(Reader* r) except -1:
    cdef unsigned long long n = get_varint32(r)
    if n > <unsigned long long>(r.end - r.at):
        raise Doubt()
    return <Py_ssize_t>n


cdef inline object get_int32(unsigned long long v):
    # protobuf keeps the low 32 bits; only the canonical forms are read here
    if v <= 0x7FFFFFFF:
        return <long long>v
    if v >= 0xFFFFFFFF80000000:
        return <long long>v  # (two's complement: a negative int32, sign-extended to 64 bits)
    raise Doubt()


# Short strings recur from record to record (a record's actions, "0 1o", "2 quedo", are a few
# hundred strings in all): the last string read for each of CACHE_SLOTS hashes of their bytes is
# kept and given again, one string object shared by every dict that holds it (strings are
# immutable), its hash already computed for the engine's lookups.
DEF CACHE_SLOTS = 4096
DEF CACHED_BYTES = 16


cdef struct Cached:
    PyObject* text  # a reference held, or NULL
    Py_ssize_t length
    unsigned char data[CACHED_BYTES]


cdef Cached _cache[CACHE_SLOTS]


cdef object new_string(const unsigned char* at, Py_ssize_t n):
    try:
        return PyUnicode_DecodeUTF8(<const char*>at, n, "strict")
    except UnicodeDecodeError:
        raise Doubt()


cdef object get_string(Reader* r):
    cdef Py_ssize_t n = get_length(r)
    cdef const unsigned char* at = r.at
    cdef unsigned int h = 2166136261u
    cdef Py_ssize_t i
    cdef Cached* slot
    cdef object text
    r.at += n
    if n > CACHED_BYTES:
        return new_string(at, n)
    for i in range(n):  # FNV-1a
        h = (h ^ at[i]) * 16777619u
    slot = &_cache[h & (CACHE_SLOTS - 1)]
    if slot.text != NULL and slot.length == n and memcmp(slot.data, at, n) == 0:
        return <object>slot.text
    text = new_string(at, n)
    Py_XDECREF(slot.text)
    Py_INCREF(text)
    slot.text = <PyObject*>text
    slot.length = n
    memcpy(slot.data, at, n)
    return text


cdef object get_other(Reader* r, object read):
    """A length-delimited field of another kind (a Struct, a Value) as ``read`` (``Field.parse``
    or ``Field.show``) makes it of its bytes; ``Doubt`` for bytes it cannot read."""
    cdef Py_ssize_t length = get_length(r)
    cdef object value
    try:
        value = read(PyBytes_FromStringAndSize(<const char*>r.at, length))
    except Exception:
        raise Doubt()
    r.at += length
    return value


cdef dict get_fields(const unsigned char* at, Py_ssize_t n, Type t, int depth, bint api):
    cdef Reader r
    cdef unsigned long long key, v, last
    cdef Py_ssize_t length, index = 0
    cdef int wire
    cdef Field f
    cdef object value, entry
    cdef list values, items
    cdef Reader inner
    cdef dict out
    if depth > MAX_DEPTH:
        raise Doubt()
    r.at = at
    r.end = at + n
    values = [_UNSET] * len(t._fields)
    last = 0
    while r.at < r.end:
        key = get_varint32(&r)
        wire = key & 7
        if key < 8:  # field number 0: never valid
            raise Doubt()
        if key != last:  # (a list's items come one after another under the same tag)
            entry = t.by_number.get(key >> 3)
            if entry is None:  # an unknown field
                raise Doubt()
            f = <Field>entry[0]
            index = entry[1]
            last = key
        if f.repeated:
            items = values[index] if values[index] is not _UNSET else None
            if items is None:
                items = []
                values[index] = items
            if f.kind == STRING and wire == 2:
                items.append(get_string(&r))
            elif f.kind == MESSAGE and wire == 2:
                length = get_length(&r)
                items.append(get_fields(r.at, length, f.sub, depth + 1, api))
                r.at += length
            elif f.kind == INT32 and wire == 2:  # packed
                length = get_length(&r)
                inner.at = r.at
                inner.end = r.at + length
                while inner.at < inner.end:
                    items.append(get_int32(get_varint(&inner)))
                r.at += length
            elif f.kind == INT32 and wire == 0:
                items.append(get_int32(get_varint(&r)))
            elif wire == 2 and (f.show if api else f.parse) is not None:  # (Structs or Values: protobuf reads each)
                items.append(get_other(&r, f.show if api else f.parse))
            else:
                raise Doubt()
            continue
        if values[index] is not _UNSET:  # a singular field given twice (protobuf merges, or keeps the last)
            raise Doubt()
        if f.kind == INT32 and wire == 0:
            value = get_int32(get_varint(&r))
        elif f.kind == BOOL and wire == 0:
            v = get_varint(&r)
            if v > 1:
                raise Doubt()
            value = v == 1
        elif f.kind == STRING and wire == 2:
            value = get_string(&r)
        elif f.kind == MESSAGE and wire == 2:
            length = get_length(&r)
            value = get_fields(r.at, length, f.sub, depth + 1, api)
            r.at += length
        elif wire == 2 and (f.show if api else f.parse) is not None:  # (a Struct: protobuf reads it)
            value = get_other(&r, f.show if api else f.parse)
        else:
            raise Doubt()
        values[index] = value
    if api:
        return printed(values, t)
    # As MessageToDict prints it: the set fields by number; an empty list, or a field without
    # presence holding its default (0, "", false), is not set.
    out = {}
    for index in range(len(t._fields)):
        value = values[index]
        if value is _UNSET:
            continue
        f = <Field>t._fields[index]
        if f.repeated:
            if not value:
                continue
        elif not f.presence and f.kind != MESSAGE and not value:
            continue
        out[f.key] = value
    return out


cdef dict printed(list values, Type t):
    """A message's fields read (``values``, ``_UNSET`` where absent) as ``to_json`` prints them."""
    cdef dict out = {}
    cdef tuple step
    cdef object value
    cdef Py_ssize_t index, empty
    if t._plan is None:
        raise Doubt()
    for step in t._plan:
        index = step[0]
        value = values[index]
        if value is not _UNSET:
            out[step[1]] = value
        elif step[2] is not None:
            out[step[1]] = step[2]
        else:
            empty = step[3]
            if empty == ALWAYS or (empty >= 0 and values[empty] is not _UNSET):
                out[step[1]] = []
    return out


def decode(bytes data, Type t, bint api=False):
    """A message's bytes as its JSON (``MessageToDict``'s; with ``api``, ``to_json``'s), for the
    canonical form the encoder reads; ``Doubt`` for anything else."""
    return get_fields(<const unsigned char*><const char*>data, len(data), t, 0, api)
