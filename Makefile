# Loam's entry points. `make test` is what CI runs (.ci/run calls it).
GO  ?= go
BIN := bin/loam

# Every package but wire/ (tested on its own under -race), regress/ and
# clients/ (which need the server built first).
MODULE    = $(shell $(GO) list -m)
UNIT_PKGS = $(shell $(GO) list ./... | grep -Ev '^$(MODULE)/(wire|regress|clients)(/|$$)')

.PHONY: weed test-s3-storage test-s3 fuzz-diff build run test bench bench-ops bench-upkeep bench-short bench-update bench-pgbench bench-ingest bench-query bench-query-100m bench-tpch bench-obs bench-s3 bench-postgres fmt vet clean psql postgres fmt-check unit race regress clients clients-deps clients-python clients-node pgjdbc

build:
	$(GO) build -o $(BIN) ./cmd/loam

# The embedded defaults: ./loam-data (SQLite metastore, file:// warehouse),
# Postgres wire on 127.0.0.1:5433, HTTP on 127.0.0.1:8181.
run: build
	./$(BIN) serve

test: psql postgres pgjdbc clients-deps weed fmt-check vet unit race regress clients test-s3-storage

# SeaweedFS, the S3 server the tests run on loopback (storage/s3test),
# built from its Go module; see scripts/build-weed.sh.
WEED_VERSION ?= v0.0.0-20261109003541-7506e5f91cd6
WEED := bin/weed
weed: $(WEED)
$(WEED):
	WEED_VERSION=$(WEED_VERSION) GO=$(GO) scripts/build-weed.sh $(WEED)

# The storage, link, upkeep, crash, erasure and outside-reader tests again
# with every warehouse in a bucket of a real S3 server (storage/s3test).
S3_STORAGE_PKGS = ./storage/... ./crash/ ./regress/erasure/ ./sql/engine/ ./meta/rest/
test-s3-storage: build weed
	LOAM_TEST_WAREHOUSE=s3 LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 30m $(S3_STORAGE_PKGS)
	# The REST catalog and external tables end to end, outside readers included.
	LOAM_TEST_WAREHOUSE=s3 LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m -run 'REST|External' ./cmd/loam/

# The whole suite with the warehouse on the S3 server.
test-s3: build weed
	LOAM_TEST_WAREHOUSE=s3 $(MAKE) unit regress clients

# The regress suite drives the server with psql: install Debian's client if
# it is missing (CI runs as root on a fresh Debian 12 machine).
psql:
	@command -v psql >/dev/null 2>&1 || { \
	  echo "psql not found: installing Debian's postgresql-client"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-client; }
	@# psql's banner test gives it a terminal through script(1) (util-linux).
	@command -v script >/dev/null 2>&1 || { \
	  echo "script not found: installing Debian's bsdutils"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q bsdutils; }

# meta's tests run the PostgreSQL half of the metastore suite on a
# throwaway cluster (meta/pgtest: initdb into a temp dir, as the
# unprivileged user loamtest when run as root). Install Debian's server if
# its binaries are missing, and stop the default cluster the package starts
# on 5432: the tests start their own.
PG_BINDIR ?= /usr/lib/postgresql/15/bin
postgres:
	@[ -x $(PG_BINDIR)/initdb ] || { \
	  echo "PostgreSQL 15 server not found: installing Debian's postgresql-15"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 && \
	  { $$sudo pg_ctlcluster 15 main stop 2>/dev/null || $$sudo service postgresql stop 2>/dev/null || true; }; }

# clients/jdbc compiles a Java program against Debian's PgJDBC: install the
# driver, and a JDK when javac is missing.
PGJDBC_JAR ?= /usr/share/java/postgresql.jar
pgjdbc:
	@{ [ -f $(PGJDBC_JAR) ] && command -v javac >/dev/null 2>&1; } || { \
	  echo "PgJDBC or javac not found: installing Debian's libpostgresql-jdbc-java and openjdk-17-jdk-headless"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q libpostgresql-jdbc-java openjdk-17-jdk-headless; }

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then \
	  echo "gofmt would change these files (run make fmt):"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test $(UNIT_PKGS)

race:
	$(GO) test -race ./wire/... ./storage/... ./meta/...
	# The scan's file readers run concurrently with sessions sharing the column cache.
	$(GO) test -race -run 'TestScanCache' ./sql/engine/

# One fresh server per regress/sql/*.sql; see regress/regress_test.go.
comma := ,
empty :=
space := $(empty) $(empty)
SLT_OWN = $(subst $(space),$(comma),$(notdir $(wildcard regress/slt/testdata/*.slt)))

regress: build
	# Imports flow down the floors of ../shared/DESIGN.md: wire → sql → exec → storage, meta beside.
	$(GO) test -count=1 ./regress/layering/
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 30m ./regress/
	# pg_catalog and information_schema: the same column names and types as
	# a throwaway PostgreSQL 15 gives (and the same rows where comparable).
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/catalog/
	# Roles and privileges: multi-session scripts on Loam and a throwaway
	# PostgreSQL 15, compared statement by statement (regress/privileges).
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/privileges/
	# Go's drivers (pgx, database/sql via pgx's stdlib, lib/pq) against a fresh
	# server and a throwaway PostgreSQL 15: the same transcript from both.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/goclients/
	# Grafana's PostgreSQL data source: its probes, schema queries and panel
	# queries as its macros expand them, and docs/grafana's dashboard, on
	# Loam and a throwaway PostgreSQL 15.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/grafana/
	# LLM-observability products' schemas (Langfuse, Helicone, OpenLLMetry,
	# eval results) and ~90 of their dashboard queries on Loam and a
	# throwaway PostgreSQL 15, both protocols, before and after CHECKPOINT;
	# known differences are listed in regress/obs/gaps_test.go.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -run TestObservabilityDashboards -timeout 10m ./regress/obs/
	# Random schemas, rows and queries on Loam and a throwaway PostgreSQL 15
	# (fixed seed, a few thousand queries): every difference fails, with its
	# reduced sqllogictest record. See regress/difffuzz and fuzz-diff.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 15m -run TestDiffFuzz ./regress/difffuzz/
	# Random INSERT, UPDATE … FROM, DELETE … USING, upserts, MERGE and
	# TRUNCATE, in blocks that commit or roll back, with CHECKPOINTs and
	# VACUUMs between: tags and whole tables compared after each statement.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 15m -run TestDMLFuzz ./regress/difffuzz/
	# PostgreSQL 15's pg_dump of an application schema (plain and custom
	# format) restored into fresh Loam servers with psql and pg_restore;
	# rows and sequences compared (docs/migrating.md).
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/migrate/
	# PostgreSQL 15's pg_dump against Loam (plain, custom, -s, -a, -t, -n)
	# restored into fresh Loam servers (tables, Loam clauses, keys, rows
	# compared) and its schema into a throwaway PostgreSQL 15.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/dump/
	# PostgreSQL 15's pgbench: -i and its TPC-B-like script with 8 clients
	# in each query mode on Loam and a throwaway PostgreSQL 15; the
	# balances agree after each run.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/pgbench/
	# Erasure: DELETE then VACUUM leaves no byte of the deleted rows under
	# the data directory or the warehouse.
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 10m ./regress/erasure/
	# -v: the sqllogictest closing line ("sqllogictest: N passed, N failed").
	LOAM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 10m ./regress/slt/
	# The project's own .slt files hold PostgreSQL 15's answers: check them there.
	SLT_POSTGRES=1 SLT_FILES=$(SLT_OWN) $(GO) test -count=1 -timeout 10m -run 'TestPostgres$$' ./regress/slt/

# The differential fuzzer for as long as wanted: make fuzz-diff SEED=7 N=200000
# (GATES=open also generates the shapes of known differences, KNOWN.md).
SEED  ?= 1
N     ?= 100000
GATES ?=
MAXFAIL ?= 100
fuzz-diff: build postgres
	DIFFFUZZ_SEED=$(SEED) DIFFFUZZ_N=$(N) DIFFFUZZ_GATES=$(GATES) DIFFFUZZ_MAXFAIL=$(MAXFAIL) LOAM_BIN=$(CURDIR)/$(BIN) \
	  $(GO) test -count=1 -v -timeout 0 -run TestDiffFuzz ./regress/difffuzz/

# Real drivers against a fresh server, each also run against a throwaway
# PostgreSQL 15 that checks the expectations; see clients/clients_test.go and clients/jdbc/.
clients: build postgres pgjdbc clients-deps
	LOAM_BIN=$(CURDIR)/$(BIN) PGJDBC_JAR=$(PGJDBC_JAR) $(GO) test -count=1 -timeout 10m ./clients/...

clients-deps: clients-python clients-node

# psycopg2, psycopg 3, SQLAlchemy 1.4 and pandas 1.5 are Debian's packages,
# for Debian's /usr/bin/python3.
clients-python:
	@/usr/bin/python3 -c 'import psycopg2, psycopg, sqlalchemy, pandas' 2>/dev/null || { \
	  echo "psycopg2/psycopg 3/SQLAlchemy/pandas not found: installing Debian's python3-psycopg2 python3-psycopg python3-sqlalchemy python3-pandas"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-psycopg2 python3-psycopg python3-sqlalchemy python3-pandas; }

# node-postgres from npm at package-lock.json's versions; npm ci again only
# when the lock file changes.
clients-node: clients/node/node_modules/.package-lock.json

clients/node/node_modules/.package-lock.json: clients/node/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  echo "npm not found: installing Debian's nodejs and npm"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm; }
	cd clients/node && npm ci --no-audit --no-fund
	@touch $@

# Not part of test: Loam's ingest, then its dashboard queries, upkeep,
# short queries (bench-short) and row-level changes (bench-update), against a
# throwaway PostgreSQL 15 and (queries) DuckDB; see bench/README.md
# (BENCH_ROWS, BENCH_QUERY_ROWS, … tune them). Installs Debian's PostgreSQL 15
# server when its binaries are missing. The query benchmark is a module of
# its own (bench/query: DuckDB is linked there only), which `go list ./...`,
# `go vet ./...` and so `make test` leave out.
# One after the other even under make -j: the benchmarks share the cores.
bench: bench-postgres
	$(MAKE) bench-ops
	$(GO) run ./bench/cmd/ingestbench
	$(GO) -C bench/query run .
	$(GO) run ./bench/cmd/upkeepbench -duration $(UPKEEP_DURATION)
	$(GO) run ./bench/cmd/shortbench
	$(GO) run ./bench/cmd/updatebench
	$(GO) -C bench/query run ./obsbench
	$(MAKE) bench-pgbench
	$(MAKE) bench-s3
	$(MAKE) bench-tpch TPCH_SF=1
	$(MAKE) bench-tpch TPCH_SF=10

# Per-operator micro-benchmarks (filter, project, hash aggregate, hash
# join, sort over 1M rows, in ns a row) beside the previous commit's:
# bench/results/ops-<commit>.txt; see bench/opsbench.sh.
bench-ops:
	GO=$(GO) bench/opsbench.sh

bench-ingest: bench-postgres
	$(GO) run ./bench/cmd/ingestbench

bench-query: bench-postgres
	$(GO) -C bench/query run .

# Table upkeep under a trickle of writes (docs/upkeep.md): 50 single-row
# INSERTs a second for UPKEEP_DURATION with the link committing every second;
# data files, metadata/ bytes and a full-scan aggregate every minute.
UPKEEP_DURATION ?= 30m
bench-upkeep:
	$(GO) run ./bench/cmd/upkeepbench -duration $(UPKEEP_DURATION)

# Short queries through pgx (bench/cmd/shortbench): pgbench-style point
# selects, prepared and not, and single-row autocommit INSERTs, on Loam and
# a throwaway PostgreSQL 15; queries/s and latency (BENCH_SHORT_* tune it).
bench-short: bench-postgres
	$(GO) run ./bench/cmd/shortbench

# Row-level changes (bench/cmd/updatebench): single-row upserts/s over 8
# connections, one UPDATE … WHERE of 1% of 10M rows, and how soon an upsert
# is seen by the next query and by iceberg-go reading the table, on Loam and
# a throwaway PostgreSQL 15 (BENCH_UPSERT_*, BENCH_UPDATE_* tune it).
bench-update: bench-postgres
	$(GO) run ./bench/cmd/updatebench

# PostgreSQL 15's pgbench (bench/cmd/pgbenchbench): pgbench -i -s N, then
# its TPC-B-like script at -c 8 -j 2 -T PGBENCH_DURATION in simple and
# prepared modes, on Loam and a throwaway PostgreSQL 15 side by side; the
# report goes to bench/results/pgbench-<PGBENCH_LABEL>.txt.
PGBENCH_SCALES   ?= 1,10
PGBENCH_DURATION ?= 30s
PGBENCH_LABEL    ?= latest
bench-pgbench: build bench-postgres
	$(GO) run ./bench/cmd/pgbenchbench -loam-bin $(CURDIR)/$(BIN) -scales $(PGBENCH_SCALES) -duration $(PGBENCH_DURATION) -out bench/results/pgbench-$(PGBENCH_LABEL).txt

# TPC-H (bench/query/tpch): dbgen's data at scale factor TPCH_SF loaded
# through COPY into Loam and an indexed PostgreSQL 15, the 22 queries on
# both and on DuckDB reading Loam's Parquet files, answers compared with
# PostgreSQL's; the report goes to bench/results/tpch-sf<SF>-<TPCH_LABEL>.txt
# and .json. TPCH_DATA=<dir> keeps the generated tables for the next run.
TPCH_SF    ?= 1
TPCH_LABEL ?= latest
bench-tpch: bench-postgres
	TPCH_SF=$(TPCH_SF) TPCH_LABEL=$(TPCH_LABEL) $(GO) -C bench/query run ./tpch

# Ingest and query figures with the warehouse on S3 (one SeaweedFS on
# loopback, bin/weed) next to file://, measured in one run
# (bench/cmd/s3bench): COPY rows/s, CHECKPOINT time, dashboard queries
# cold and warm. The report goes to bench/results/s3-<S3_LABEL>.txt.
S3_LABEL ?= latest
S3_ROWS ?= 1000000
bench-s3: build weed
	$(GO) run ./bench/cmd/s3bench -loam-bin $(CURDIR)/$(BIN) -rows $(S3_ROWS) -out bench/results/s3-$(S3_LABEL).txt

# An LLM-observability dashboard (bench/query/obsbench): JSON attributes,
# traces joined to observations and scores, subqueries; Loam against an
# indexed PostgreSQL 15 over ~540,000 rows (OBS_TRACES=60000).
bench-obs: bench-postgres
	$(GO) -C bench/query run ./obsbench

# The dashboard queries over 100M rows, with Loam's peak RSS.
bench-query-100m: bench-postgres
	BENCH_QUERY_ROWS=100000000 $(GO) -C bench/query run .

bench-postgres:
	@[ -x /usr/lib/postgresql/15/bin/initdb ] || [ -n "$$BENCH_PG_BIN" ] || { \
	  echo "PostgreSQL 15 server not found: installing Debian's postgresql-15"; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15; }

fmt:
	gofmt -l -w .

# Leaves ./loam-data alone: it is the data of `make run`.
clean:
	rm -rf bin regress/results
