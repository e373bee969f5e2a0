# SPDX-License-Identifier: Apache-2.0
"""moto's S3 server, as the tests and benchmarks start it.

Usage: python3 Tests/integration/moto_s3_server.py -H 127.0.0.1 -p PORT
(the same arguments as `python3 -m moto.server`).

One change to moto: a ranged GET (`Range: bytes=a-b`) reads only the bytes it
asks for. Stock moto 5 copies the whole object out of its buffer for every
ranged GET and then slices the copy, so reading a 1 GB object in 8 MB ranges
moves 128 GB inside the server (about 19 MB/s here) — real S3 and every
S3-compatible store serve a range in time proportional to the range. Nothing
else about moto's S3 API (listing, multipart, errors, signatures) is changed.

And one addition to moto's Glue: GetPartitions honours `ExcludeColumnSchema`, as
Glue's API documents it (each partition's column list left out of the answer); moto
ignores the parameter and always sends the columns.
"""

import sys
import threading

from moto.s3 import models as s3_models
from moto.s3 import responses as s3_responses

_ranged = threading.local()


class _Window:
    """What a ranged GET sees as the object's body: its length, and slices read
    from the key's buffer at their offset rather than from a copy of it all."""

    def __init__(self, key):
        self._key = key
        self._size = key.contentsize

    def __len__(self):
        return self._size

    def __bool__(self):
        return self._size > 0

    def __getitem__(self, item):
        if not isinstance(item, slice):
            raise TypeError("a ranged body is only sliced")
        start, stop, step = item.indices(self._size)
        if step != 1:
            raise TypeError("a ranged body is sliced with step 1")
        with self._key.lock:
            buffer = self._key._value_buffer
            buffer.seek(start)
            return buffer.read(max(0, stop - start))


_plain_value = s3_models.FakeKey.value


def _value(self):
    if getattr(_ranged, "on", False):
        return _Window(self)
    return _plain_value.fget(self)


s3_models.FakeKey.value = property(_value, _plain_value.fset)

_plain_get_object = s3_responses.S3Response.get_object


def _get_object(self):
    spec = self.headers.get("range") or self.headers.get("Range") or ""
    single = spec.startswith("bytes=") and "," not in spec and not self._get_int_param("partNumber")
    _ranged.on = single
    try:
        status, headers, body = _plain_get_object(self)
    finally:
        _ranged.on = False
    if isinstance(body, _Window) and status != 200:
        body = body[0:len(body)]
    return status, headers, body


s3_responses.S3Response.get_object = _get_object

# If the range cannot be honoured, moto answers 200 with the whole body.
_plain_handle_range = s3_responses.S3Response._handle_range_header


def _handle_range_header(self, request, response_headers, response_content):
    status, headers, content = _plain_handle_range(self, request, response_headers, response_content)
    if isinstance(content, _Window):
        content = content[0:len(content)]
    return status, headers, content


s3_responses.S3Response._handle_range_header = _handle_range_header

from moto.core.responses import ActionResult
from moto.glue import responses as glue_responses

_plain_get_partitions = glue_responses.GlueResponse.get_partitions


def _get_partitions(self):
    result = _plain_get_partitions(self)
    if self.parameters.get("ExcludeColumnSchema") and isinstance(result, ActionResult):
        partitions = result.result.get("Partitions", []) if isinstance(result.result, dict) else []
        for p in partitions:
            # A copy: moto's answer shares the stored partition's dictionaries.
            if isinstance(p.get("StorageDescriptor"), dict):
                p["StorageDescriptor"] = {k: v for k, v in p["StorageDescriptor"].items() if k != "Columns"}
    return result


glue_responses.GlueResponse.get_partitions = _get_partitions

if __name__ == "__main__":
    from moto.server import main

    sys.exit(main(sys.argv[1:]))
