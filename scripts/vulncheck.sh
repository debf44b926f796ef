#!/usr/bin/env bash
# govulncheck when its database answers; on a machine without it (no
# internet), say so and pass: the check is advice, the build does not need it.
set -euo pipefail
cd "$(dirname "$0")/.."
db="${GOVULNDB:-https://vuln.go.dev}"
if ! curl -sf --max-time 10 -o /dev/null "$db/index/db.json"; then
  echo "govulncheck: skipped, the vulnerability database at $db cannot be reached"
  exit 0
fi
exec go run golang.org/x/vuln/cmd/govulncheck@v1.9.0 ./...
