#!/usr/bin/env bash
# Runs the in-process MongoDB wire-compatible server the tests use (mongo-java-server, in memory)
# as a standalone process, for trying the mongo store by hand:
#   bash scripts/mongo-test-server.sh [PORT]      # default 27017; prints "listening on PORT"
# then point a config at mongodb://127.0.0.1:PORT/leasehold. Stop it with Ctrl-C.
# It is a test server, not MongoDB: see docs/stores/mongo.md for what it does not do.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-27017}
cpfile=$(mktemp)
# in the reactor, the last module built (adapters-mongo) writes the file last
mvn -B -ntp -q -pl adapters-mongo -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$cpfile" >/dev/null
cp="adapters-mongo/target/test-classes:adapters-mongo/target/classes:$(cat "$cpfile")"
rm -f "$cpfile"
exec java -cp "$cp" dev.leasehold.store.mongo.testserver.MongoTestServerMain "$port" 127.0.0.1
