# The Spark session of internal/testkit/sparktest: one SparkSession (local,
# small), driven by JSON lines. Requests come on stdin, one a line:
#   {"sql": ["stmt", ...]}
# and each answer goes on file descriptor 3 (stdout and stderr belong to
# Spark's logs), one a line: the columns and rows of the last statement,
# or the error:
#   {"columns": [...], "rows": [[...], ...]}  |  {"error": "..."}
# The first line on fd 3 says the session is ready: {"ready": "<version>"}.
import base64
import datetime
import decimal
import json
import os
import sys

from pyspark.sql import Row, SparkSession

answers = os.fdopen(3, "w", buffering=1)


def plain(v):
    """A value of a collected row as JSON can carry it."""
    if isinstance(v, Row):
        return {k: plain(x) for k, x in v.asDict(recursive=False).items()}
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (datetime.datetime, datetime.date)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode()
    return v


def main():
    conf = json.loads(os.environ["SPARKTEST_CONF"])
    builder = SparkSession.builder.master(conf.pop("spark.master", "local[1]")).appName("ontoindex-sparktest")
    for k, v in conf.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    answers.write(json.dumps({"ready": spark.version}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        try:
            columns, rows = [], []
            for stmt in req["sql"]:
                df = spark.sql(stmt)
                columns = df.columns
                rows = [[plain(v) for v in r] for r in df.collect()]
            answer = {"columns": columns, "rows": rows}
        except Exception as e:  # the statement's error goes back to the test
            answer = {"error": str(e)[:8000]}
        answers.write(json.dumps(answer) + "\n")
    spark.stop()


main()
