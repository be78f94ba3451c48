#!/usr/bin/env bash
# Builds the vendored pgvector (vendor/pgvector) against the local PostgreSQL server and installs it, unless the
# server already offers the `vector` extension. Needs root (apt-get, make install) and the server running.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(psql -h 127.0.0.1 -U postgres -d postgres -Atc "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'" 2>/dev/null || echo 0)" = "1" ]; then
  exit 0
fi
major="$(ls /etc/postgresql | sort -n | tail -n1)"
# pg_config can come from libpq-dev alone: the server headers are what the build needs
if ! command -v pg_config >/dev/null || [ "$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')" != "$major" ] \
  || [ ! -f "$(pg_config --includedir-server)/postgres.h" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "postgresql-server-dev-$major" >/dev/null 2>&1 \
    || { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends "postgresql-server-dev-$major" >/dev/null 2>&1; }
fi
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
cp -r vendor/pgvector/. "$build"
# OPTFLAGS="": no -march=native, so the library runs on any x86-64 the server may move to.
make -C "$build" OPTFLAGS="" >/dev/null
make -C "$build" OPTFLAGS="" install >/dev/null
