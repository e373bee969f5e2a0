# SPDX-License-Identifier: Apache-2.0
"""A small dlt pipeline into Redshift with S3 staging: run by test_s3_dlt.py in dlt's own
venv, configured through dlt's environment variables (the destination's credentials,
the staging bucket and its endpoint). argv[1] is the staging file format."""
import os
import sys

import dlt

fmt = sys.argv[1]


@dlt.resource(name="events", write_disposition="append", primary_key="id")
def events():
    for i in range(1000):
        yield {"id": i, "kind": ["click", "view"][i % 2], "amount": i * 0.5, "attrs": {"x": i, "tag": f"t{i % 3}"}}


@dlt.resource(name="users", write_disposition="merge", primary_key="user_id")
def users(run):
    for i in range(20):
        yield {"user_id": i, "name": f"user {i}", "version": run}


pipeline = dlt.pipeline(pipeline_name="slicehouse_" + fmt, destination="redshift", staging="filesystem",
                        dataset_name="dlt_" + fmt, pipelines_dir=os.environ["PIPELINES_DIR"])
print(pipeline.run([events(), users(1)], loader_file_format=fmt))
# A second run merges into users (a staging table, DELETE ... USING, INSERT).
print(pipeline.run(users(2), loader_file_format=fmt))
