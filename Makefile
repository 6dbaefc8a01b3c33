# The README's test command is `make test`; .ci/run calls it.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOBIN       ?= $(shell $(GO) env GOPATH)/bin

.PHONY: test lint fmt-check vet staticcheck unit build demo bench bench-front fuzz image

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

# What an MCP front (wrap, serve's mcp upstreams) costs a tool call.
bench-front:
	bash bench/front.sh

# Short fuzzing of every parser: every Fuzz target of every package, found
# with `go test -list`, so a new target is fuzzed without being listed here.
# `make test` runs their seed corpora.
FUZZTIME ?= 30s
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$f ($$pkg)"; \
			$(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s $$pkg; \
		done; \
	done
