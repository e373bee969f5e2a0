# SPDX-License-Identifier: Apache-2.0
"""pyiceberg's PyArrow file IO, writing through boto3's single PUT: pyarrow's S3 file
system completes every upload as a multipart upload, whose answer from moto it cannot
parse (reads go through pyarrow as usual). Named by `py-io-impl` in the tests' catalogs."""
import io

import boto3
from pyiceberg.io import OutputFile, OutputStream
from pyiceberg.io.pyarrow import PyArrowFileIO


class _Upload(io.BytesIO):
    def __init__(self, client, bucket, key):
        super().__init__()
        self._client, self._bucket, self._key = client, bucket, key

    def close(self):
        if not self.closed:
            self._client.put_object(Bucket=self._bucket, Key=self._key, Body=self.getvalue())
        super().close()


class _Output(OutputFile):
    def __init__(self, location, file_io):
        super().__init__(location)
        self._io = file_io
        self._bucket, _, self._key = location.split("://", 1)[1].partition("/")

    def __len__(self):
        return self._io.s3.head_object(Bucket=self._bucket, Key=self._key)["ContentLength"]

    def exists(self):
        try:
            self._io.s3.head_object(Bucket=self._bucket, Key=self._key)
            return True
        except Exception:
            return False

    def to_input_file(self):
        return self._io.new_input(self.location)

    def create(self, overwrite: bool = False) -> OutputStream:
        if not overwrite and self.exists():
            raise FileExistsError(self.location)
        return _Upload(self._io.s3, self._bucket, self._key)


class MotoFileIO(PyArrowFileIO):
    def __init__(self, properties=None):
        super().__init__(properties or {})
        p = self.properties
        self.s3 = boto3.client("s3", endpoint_url=p.get("s3.endpoint"), aws_access_key_id=p.get("s3.access-key-id"),
                               aws_secret_access_key=p.get("s3.secret-access-key"),
                               region_name=p.get("s3.region", "us-east-1"))

    def new_output(self, location):
        if location.startswith("s3://"):
            return _Output(location, self)
        return super().new_output(location)
