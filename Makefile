# rmsidecar — build, test, lint. Tools are installed into .tools/ at pinned versions.
GO            ?= go
VERSION       ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN           := bin/rmsidecar
TOOLS         := $(CURDIR)/.tools
STATICCHECK_VERSION := v0.8.2
MOCKGEN_VERSION     := v0.6.0
FUZZTIME      ?= 30s
PKGS          := ./...

.PHONY: tidy-check all build yarn-plugin test-plugins test test-short test-cluster lint vet staticcheck fmt-check mocks fuzz bench bench-sim paper-learning paper-dynamicmr paper-tmar paper-speculation speculation-sweep prescheduling-shapes pgo demo sim-demo docker-config-check clean tools

all: build yarn-plugin

# PGO_PROFILE (made by `make pgo`, not committed): when it exists, `make build` is profile-guided.
# It lies outside cmd/rmsidecar so that `go test` (-pgo=auto) never picks it up.
PGO_PROFILE   ?= bin/rmsidecar.pgo

build: ## build bin/rmsidecar (profile-guided when $(PGO_PROFILE) exists: make pgo)
	$(GO) build -pgo=$(if $(wildcard $(PGO_PROFILE)),$(PGO_PROFILE),off) -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/rmsidecar

MVN           ?= mvn -q -B

yarn-plugin: ## build the Hadoop plug-ins jar (yarn-plugin/target/rmsidecar-yarn-plugin.jar; Maven Central only)
	$(MVN) -f yarn-plugin/pom.xml package -DskipTests

test-plugins: ## the Hadoop plug-ins' JUnit tests, then their jar
	$(MVN) -f yarn-plugin/pom.xml package

test: ## unit and integration tests with the race detector
	$(GO) test -race -count=1 $(PKGS)

test-short: ## quick tests without the race detector
	$(GO) test -count=1 -short $(PKGS)

test-cluster: ## the real-cluster suite: real HDFS, YARN (with the plug-ins) and Kafka from Maven Central jars
	bash integration/cluster/test.sh

lint: vet staticcheck fmt-check tidy-check docker-config-check ## go vet, staticcheck, gofmt, go mod tidy, docker/ and monitoring files

vet:
	$(GO) vet $(PKGS)

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TOOLS)/mockgen:
	GOBIN=$(TOOLS) $(GO) install go.uber.org/mock/mockgen@$(MOCKGEN_VERSION)

tools: $(TOOLS)/staticcheck $(TOOLS)/mockgen

staticcheck: $(TOOLS)/staticcheck
	$(TOOLS)/staticcheck $(PKGS)

tidy-check:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

mocks: $(TOOLS)/mockgen ## regenerate gomock mocks (go:generate directives)
	PATH=$(TOOLS):$$PATH $(GO) generate ./...

fuzz: ## every fuzz target, one after another, FUZZTIME each (default 30s; FUZZTIME=5m for longer)
	GO=$(GO) bash scripts/fuzz.sh $(FUZZTIME)

bench: ## benchmarks that print figures
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

pgo: ## record CPU profiles (FB-2009 day under yarn, tmar, dhsa-pi; bench --quick) into $(PGO_PROFILE) for make build; docs/simulator.md
	GO=$(GO) PGO_OUT=$(PGO_PROFILE) bash scripts/pgo/profile.sh

bench-sim: ## simulator scale: wall, sim s per wall s, allocations and bytes per attempt at 300 / 3,000 / 10,000 nodes (SIM_STACK=tmar for another stack); docs/performance.md
	$(GO) test -run='^$$' -bench='^BenchmarkScale$$' -benchtime=1x -timeout=60m ./sim/

paper-learning: ## learning scheduler: each claim of Dhok & Varma beside the measured number (paper harness, then the simulator scenarios); figures in docs/figures
	$(GO) test -count=1 -run '^TestPaperClaims$$' -v ./policy/learning -args -paper -paper.out=$(CURDIR)/docs/figures
	$(GO) run ./scripts/paper-learning-sim

paper-speculation: ## SAMR, ERUL, MCP/exMCP, SEPB: each claim beside the measured number, per-stack backups and waste (SEEDS=5)
	$(GO) run ./scripts/paper-speculation -seeds $(or $(SEEDS),5)

speculation-sweep: ## LATE, SAMR, ERUL, exMCP vs none and stock YARN on N random heterogeneous scenarios (N=100; worst cases saved in out/sweep-worst)
	$(GO) run ./scripts/speculation-sweep -n $(or $(N),100) -csv out/sweep.csv -save-worst out/sweep-worst

paper-tmar: ## TMaR: each claim of Jeddi & Fazlossadat beside the measured number (SEEDS=3)
	$(GO) run ./scripts/paper-tmar -seeds $(or $(SEEDS),3)

paper-dynamicmr: ## DynamicMR (DHSA, Slot PreScheduling): each claim of Tang et al. beside the measured number (SEEDS=5)
	$(GO) run ./scripts/paper-dynamicmr -seeds $(or $(SEEDS),5)

prescheduling-shapes: ## Slot PreScheduling across the issue 19 shapes, both forms: node locality, Jain and makespan changes with CIs (SEEDS=10; YARN_ARGS='hold_fraction: 0.25')
	$(GO) run ./scripts/prescheduling-shapes -seeds $(or $(SEEDS),10) $(if $(YARN_ARGS),-yarn-args '$(YARN_ARGS)')

demo: build ## the live sidecar in embedded demo mode: in-process Kafka fed by a simulated cluster (Ctrl-C to stop)
	$(BIN) run --log-format console

sim-demo: build ## the simulator on a repository scenario: no speculation, stock YARN, LATE and SAMR (report in out/sim-demo)
	$(BIN) sim --scenario scenarios/samr-sort.yaml --policies none,yarn,late,samr --out out/sim-demo

docker-config-check: ## validate docker/compose.yaml and the sidecar config it mounts (no Docker engine needed)
	$(GO) test -count=1 ./docker/

clean:
	rm -rf bin .tools yarn-plugin/target
