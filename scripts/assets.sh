#!/bin/sh
# Rebuilds the vendored browser bundles in static/vendor from the pinned npm
# packages in assets/ (package-lock.json). Needs Node >= 20.12 and npm; the Go build does not.
set -eu
cd "$(dirname "$0")/../assets"
npm ci
node build.mjs
