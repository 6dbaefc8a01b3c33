// Package api is mcpchaos's control API: a JSON API under /v1, served by
// `mcpchaos serve`, that changes faults while the system runs (from
// scripts, CI or a game-day runbook), streams what the proxies do, runs
// the agent simulator and counts its verdicts.
//
// Routes (docs/api.md has curl examples; GET /openapi.json describes every
// route, and a test keeps the two in step):
//
//	GET    /healthz                          liveness, no auth
//	GET    /metrics                          Prometheus text format
//	GET    /openapi.json                     the OpenAPI 3.1 document
//	GET    /v1/upstreams                     list upstreams
//	POST   /v1/upstreams                     create an upstream (a proxy)
//	GET    /v1/upstreams/{name}              one upstream
//	PUT    /v1/upstreams/{name}              replace its spec (restarts the proxy)
//	PATCH  /v1/upstreams/{name}              change some fields of its spec
//	DELETE /v1/upstreams/{name}              remove it and its faults
//	POST   /v1/upstreams/{name}/enable       reopen a disabled proxy
//	POST   /v1/upstreams/{name}/disable      stop its proxy (connections refused)
//	GET|POST /v1/upstreams/{name}/faults     the upstream's faults
//	GET|PUT|PATCH|DELETE /v1/upstreams/{name}/faults/{fault}
//	GET|POST|PUT /v1/faults                  every fault (PUT replaces them all)
//	GET|PUT|PATCH|DELETE /v1/faults/{name}
//	POST   /v1/halt                          remove every fault, heal connections
//	GET    /v1/events                        Server-Sent Events
//	GET|POST /v1/runs, GET|DELETE /v1/runs/{id}   simulator runs
//	GET    /v1/audit                         the audit trail
//	GET    /v1/kinds                         fault kinds and their parameters
//	GET    /v1/examples, /v1/examples/{name} the embedded example scenarios
//	GET    /, /dashboard/{file}              the game-day dashboard (static)
//
// The request and response bodies are this package's own types ([Fault],
// [Upstream], [Run], ...), not the domain types of the rules and inject
// packages, so that the wire format stays stable when those change.
//
// Safety, because this API breaks things on purpose: every fault has a
// TTL (a default, capped by a maximum); the server refuses to listen off
// loopback without a bearer token ([CheckBind]); an allowlist can restrict
// which targets an upstream may point at; every change is audited; and
// without a token, requests whose Host is not loopback or whose Origin is
// another site are refused, so a web page cannot drive the API through
// the operator's browser.
package api
