# The README's test command is `make test`; .ci/run calls it.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOBIN       ?= $(shell $(GO) env GOPATH)/bin

.PHONY: test lint fmt-check vet staticcheck unit build demo bench fuzz image

test: lint unit

lint: fmt-check vet staticcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	@test -x $(GOBIN)/staticcheck || $(GO) install $(STATICCHECK)
	$(GOBIN)/staticcheck ./...

unit:
	$(GO) test -race -count=1 -timeout 15m ./...

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/mcpchaos ./cmd/mcpchaos

demo:
	$(GO) run ./cmd/mcpchaos demo

# The container image (Dockerfile): FROM scratch plus the static binary,
# built here so that nothing is pulled. IMAGE=name:tag overrides the tag.
IMAGE ?= mcpchaos:dev
DOCKER ?= docker

image:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o bin/docker/mcpchaos ./cmd/mcpchaos
	$(DOCKER) build -t $(IMAGE) .

bench:
	bash bench/run.sh

# Short fuzzing of every parser; `make test` runs their seed corpora.
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzCompile -fuzztime $(FUZZTIME) ./rules
	$(GO) test -run '^$$' -fuzz FuzzParseFault -fuzztime $(FUZZTIME) ./inject
	$(GO) test -run '^$$' -fuzz FuzzRelayFraming -fuzztime $(FUZZTIME) ./inject
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./config
	$(GO) test -run '^$$' -fuzz FuzzParseScenario -fuzztime $(FUZZTIME) -fuzzminimizetime 3s ./agent-sim
	$(GO) test -run '^$$' -fuzz FuzzExtract -fuzztime $(FUZZTIME) ./agent-sim
	$(GO) test -run '^$$' -fuzz FuzzReplyFrame -fuzztime $(FUZZTIME) ./agent-sim
	$(GO) test -run '^$$' -fuzz FuzzExpandVars -fuzztime $(FUZZTIME) ./agent-sim
	$(GO) test -run '^$$' -fuzz FuzzAPIBodies -fuzztime $(FUZZTIME) ./api
