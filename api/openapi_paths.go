package api

func openAPIPaths() obj {
	upstream := pathParam("name", "The upstream's name.", "carrier")
	fault := pathParam("name", "The fault's name.", "slow-posts")
	nested := pathParam("fault", "The fault's name.", "lost-replies")
	runID := pathParam("id", "The run's id.", "run-1")
	example := pathParam("name", "The example's name (GET /v1/examples).", "careful-unreachable")
	str := obj{"type": "string"}

	upstreamExample := obj{"name": "carrier", "protocol": "http", "listen": "127.0.0.1:0", "target": "http://127.0.0.1:9000"}
	faultExample := obj{"name": "slow-posts", "upstream": "carrier", "when": `method == "POST"`,
		"fault": obj{"kind": "latency", "delay": "250ms"}, "probability": 0.5, "ttl": "5m"}
	nestedExample := obj{"name": "lost-replies", "fault": obj{"kind": "response_lost", "mode": "hang"}, "limit": 3, "ttl": "2m"}
	ok := func(desc, schema string) obj { return obj{"200": resp(desc, schema)} }
	created := func(desc, schema string) obj { return obj{"201": resp(desc, schema)} }

	return obj{
		"/healthz": obj{"get": merge(op("health", "meta", "Liveness; needs no token.", nil, nil, ok("Alive.", "Health")),
			obj{"security": []obj{}})},
		"/metrics": obj{"get": op("metrics", "meta", "Prometheus metrics (text format): injections, exchanges, tool verdicts and findings.", nil, nil,
			merge(obj{"200": obj{"description": "Metrics.", "content": obj{"text/plain": obj{"schema": str}}}}, errResps()))},
		"/openapi.json": obj{"get": op("openapi", "meta", "This document.", nil, nil,
			merge(obj{"200": obj{"description": "The OpenAPI document.", "content": obj{"application/json": obj{"schema": obj{"type": "object"}}}}}, errResps()))},

		"/v1/upstreams": obj{
			"get": op("listUpstreams", "upstreams", "List upstreams, enabled or not.", nil, nil, merge(ok("The upstreams.", "UpstreamList"), errResps())),
			"post": op("createUpstream", "upstreams", "Create an upstream: start a proxy in front of its target. 403 when the target is outside the allowlist.", nil,
				jsonBody("UpstreamRequest", upstreamExample), merge(created("The upstream.", "Upstream"), errResps("400", "409", "413", "415"))),
		},
		"/v1/upstreams/{name}": obj{
			"parameters": []obj{upstream},
			"get":        op("getUpstream", "upstreams", "One upstream.", nil, nil, merge(ok("The upstream.", "Upstream"), errResps("404"))),
			"put": op("replaceUpstream", "upstreams", "Replace the upstream's spec; the proxy restarts (open connections end) on the same address unless listen is given.", nil,
				jsonBody("UpstreamRequest", obj{"protocol": "http", "target": "http://127.0.0.1:9001"}),
				merge(ok("The upstream.", "Upstream"), errResps("400", "404", "409", "413", "415"))),
			"patch": op("patchUpstream", "upstreams", "Change some fields of the upstream's spec; the proxy restarts.", nil,
				jsonBody("UpstreamPatch", obj{"target": "http://127.0.0.1:9002"}),
				merge(ok("The upstream.", "Upstream"), errResps("400", "404", "409", "413", "415"))),
			"delete": op("deleteUpstream", "upstreams", "Remove the upstream, its proxy and its faults.", nil, nil,
				merge(ok("What was removed.", "Deleted"), errResps("404"))),
		},
		"/v1/upstreams/{name}/enable": obj{"parameters": []obj{upstream},
			"post": op("enableUpstream", "upstreams", "Start a disabled upstream's proxy again, on its address.", nil, nil,
				merge(ok("The upstream.", "Upstream"), errResps("404", "409")))},
		"/v1/upstreams/{name}/disable": obj{"parameters": []obj{upstream},
			"post": op("disableUpstream", "upstreams", "Stop the upstream's proxy: connections are refused as by a dead upstream, until enable or halt.", nil, nil,
				merge(ok("The upstream.", "Upstream"), errResps("404")))},
		"/v1/upstreams/{name}/faults": obj{"parameters": []obj{upstream},
			"get": op("listUpstreamFaults", "faults", "The upstream's faults.", nil, nil, merge(ok("The faults.", "FaultList"), errResps("404"))),
			"post": op("createUpstreamFault", "faults", "Add a fault to the upstream.", nil, jsonBody("FaultRequest", nestedExample),
				merge(created("The fault, with its expiry.", "Fault"), errResps("400", "404", "409", "413", "415"))),
		},
		"/v1/upstreams/{name}/faults/{fault}": obj{"parameters": []obj{upstream, nested},
			"get": op("getUpstreamFault", "faults", "One of the upstream's faults.", nil, nil, merge(ok("The fault.", "Fault"), errResps("404"))),
			"put": op("replaceUpstreamFault", "faults", "Create or replace one of the upstream's faults.", nil,
				jsonBody("FaultRequest", obj{"fault": obj{"kind": "http_error", "status": 503, "headers": obj{"Retry-After": "30"}}, "ttl": "2m"}),
				merge(ok("The replaced fault.", "Fault"), created("The new fault.", "Fault"), errResps("400", "404", "409", "413", "415"))),
			"patch": op("patchUpstreamFault", "faults", "Change some fields of one of the upstream's faults.", nil, jsonBody("FaultPatch", obj{"probability": 0.25}),
				merge(ok("The fault.", "Fault"), errResps("400", "404", "409", "413", "415"))),
			"delete": op("deleteUpstreamFault", "faults", "Remove one of the upstream's faults.", nil, nil,
				merge(obj{"204": obj{"description": "Removed."}}, errResps("404"))),
		},
		"/v1/upstreams/{name}/faults/{fault}/extend": obj{"parameters": []obj{upstream, nested},
			"post": op("extendUpstreamFault", "faults", "Make one of the upstream's faults expire ttl from now; its hits stay.", nil,
				jsonBody("FaultExtend", obj{"ttl": "10m"}), merge(ok("The fault, with its new expiry.", "Fault"), errResps("400", "404", "413", "415")))},
		"/v1/upstreams/{name}/faults/{fault}/reset": obj{"parameters": []obj{upstream, nested},
			"post": op("resetUpstreamFault", "faults", "Zero the hit count of one of the upstream's faults, so that its limit counts again.", nil, nil,
				merge(ok("The fault.", "Fault"), errResps("404")))},

		"/v1/faults": obj{
			"get": op("listFaults", "faults", "Every fault, with expiry and hit count.", []obj{queryParam("upstream", "Only this upstream's faults.", str)}, nil,
				merge(ok("The faults.", "FaultList"), errResps())),
			"post": op("createFault", "faults", "Add a fault; upstream empty means every upstream. 409 if the name is taken.", nil,
				jsonBody("FaultRequest", faultExample), merge(created("The fault, with its expiry.", "Fault"), errResps("400", "409", "413", "415"))),
			"put": op("replaceFaults", "faults", "Replace every fault with the given set; unchanged faults keep their hits and expiry.", nil,
				jsonBody("FaultSet", obj{"faults": []obj{faultExample}}), merge(ok("The new set.", "FaultList"), errResps("400", "409", "413", "415"))),
		},
		"/v1/faults/{name}": obj{"parameters": []obj{fault},
			"get": op("getFault", "faults", "One fault.", nil, nil, merge(ok("The fault.", "Fault"), errResps("404"))),
			"put": op("replaceFault", "faults", "Create or replace a fault.", nil,
				jsonBody("FaultRequest", obj{"upstream": "carrier", "fault": obj{"kind": "timeout", "direction": "response"}, "ttl": "1m"}),
				merge(ok("The replaced fault.", "Fault"), created("The new fault.", "Fault"), errResps("400", "409", "413", "415"))),
			"patch": op("patchFault", "faults", "Change some fields of a fault. enabled and ttl keep its hits (a new ttl counts from added_at); other changes make a new fault: hits and TTL restart.", nil,
				jsonBody("FaultPatch", obj{"enabled": false}), merge(ok("The fault.", "Fault"), errResps("400", "404", "409", "413", "415"))),
			"delete": op("deleteFault", "faults", "Remove a fault.", nil, nil, merge(obj{"204": obj{"description": "Removed."}}, errResps("404"))),
		},
		"/v1/faults/{name}/extend": obj{"parameters": []obj{fault},
			"post": op("extendFault", "faults", "Make a fault expire ttl from now (at most the server's maximum); its hits stay. Re-submitting a fault never extends it.", nil,
				jsonBody("FaultExtend", obj{"ttl": "10m"}), merge(ok("The fault, with its new expiry.", "Fault"), errResps("400", "404", "413", "415")))},
		"/v1/faults/{name}/reset": obj{"parameters": []obj{fault},
			"post": op("resetFault", "faults", "Zero a fault's hit count, so that its limit counts again; its expiry stays.", nil, nil,
				merge(ok("The fault.", "Fault"), errResps("404")))},
		"/v1/halt": obj{"post": op("halt", "faults", "Remove every fault and enable every disabled upstream: held connections heal at once.", nil, nil,
			merge(ok("What was undone.", "HaltResult"), errResps()))},
		"/v1/events": obj{"get": op("events", "events", "Server-Sent Events: one per connection, exchange and injection (data: an Event). A client that falls behind gets an event \"dropped\" and is closed; reconnect with Last-Event-ID.",
			[]obj{
				queryParam("type", "Comma-separated event types to keep.", str),
				queryParam("upstream", "Comma-separated upstreams to keep.", str),
				queryParam("replay", "First send the last N remembered events.", obj{"type": "integer", "minimum": 0}),
				queryParam("follow", "false ends the stream after the replay.", obj{"type": "boolean"}),
				queryParam("last_event_id", "Resume after this event (as the Last-Event-ID header).", obj{"type": "integer", "minimum": 0}),
				{"name": "Last-Event-ID", "in": "header", "required": false, "description": "Resume after this event.", "schema": str},
			}, nil,
			merge(obj{"200": obj{"description": "The stream.", "content": obj{"text/event-stream": obj{"schema": str}}}}, errResps("400", "503")))},
		"/v1/runs": obj{
			"get": op("listRuns", "runs", "Runs in progress and recently finished (reports left out).", nil, nil, merge(ok("The runs.", "RunList"), errResps())),
			"post": op("startRun", "runs", "Start the agent simulator on a scenario (YAML or JSON body). 403 (runs_disabled) unless serve was started with --runs; 400 naming the field when the scenario dials outside the allowlist.",
				[]obj{
					queryParam("seed", "The run's seed (default: the server's).", obj{"type": "integer", "minimum": 0}),
					queryParam("persona", "Comma-separated personas instead of the scenario's.", str),
					queryParam("host", "Comma-separated host profiles instead of the scenario's.", str),
					queryParam("name", "The document's name in error messages.", str),
				},
				obj{"required": true, "content": obj{
					"application/yaml": obj{"schema": str, "example": runExample},
					"application/json": obj{"schema": obj{"type": "object"}},
				}},
				merge(obj{"202": resp("The run, started.", "Run")}, errResps("400", "413", "415", "429", "503"))),
		},
		"/v1/runs/{id}": obj{"parameters": []obj{runID},
			"get": op("getRun", "runs", "A run's status and, once finished, its report.",
				[]obj{queryParam("wait", "Wait up to this long (at most 1m) for the run to finish, e.g. 30s.", str)}, nil,
				merge(ok("The run.", "Run"), errResps("400", "404"))),
			"delete": op("deleteRun", "runs", "Cancel a running run (202) or forget a finished one (204).", nil, nil,
				merge(obj{"202": resp("Cancelling.", "Run"), "204": obj{"description": "Forgotten."}}, errResps("404"))),
		},
		"/v1/kinds": obj{"get": op("listKinds", "faults", "The fault kinds: the protocols each applies to, its parameters, their types and defaults.", nil, nil,
			merge(ok("The kinds.", "KindList"), errResps()))},
		"/v1/examples": obj{"get": op("listExamples", "runs", "The example scenarios built into the binary (the demo matrix); POST one's YAML to /v1/runs to run it.", nil, nil,
			merge(ok("The examples.", "ExampleList"), errResps()))},
		"/v1/examples/{name}": obj{"parameters": []obj{example},
			"get": op("getExample", "runs", "An example scenario's file.", nil, nil,
				merge(obj{"200": obj{"description": "The scenario, as YAML.", "content": obj{"application/yaml": obj{"schema": str}}}}, errResps("404")))},
		"/v1/live/reports": obj{"post": op("liveReports", "live", "Take what `mcpchaos wrap --report` saw of its session: the recorder numbers the calls, has the proxies attribute upstream traffic to each while it is open, and publishes them (events call, session_open, session_close). Checked whole: a bad report refuses the batch, naming its field.",
			nil, jsonBody("LiveReportBatch", obj{"reports": []obj{
				{"type": "session_open", "session": obj{"id": "wrap-4242-1767225600000", "front": "wrap", "transport": "stdio", "start": "2026-01-01T00:00:00Z", "calls": 0}},
				{"type": "call_start", "call": obj{"session": "wrap-4242-1767225600000", "seq": 1, "id": "3", "tool": "create_shipment",
					"args": obj{"order_id": "A-1001"}, "attempt": 1, "channel": "success", "text": "", "start": "2026-01-01T00:00:01Z", "elapsed_ns": 0}},
			}}), merge(ok("How many reports were taken.", "LiveReportResult"), errResps("400", "413", "415")))},
		"/v1/live/sessions": obj{"get": op("liveSessions", "live", "The live sessions the recorder remembers (mcp upstreams' and wrappers'), in the order they started, with its counters.",
			[]obj{queryParam("limit", "At most this many of the latest sessions.", obj{"type": "integer", "minimum": 0})}, nil,
			merge(ok("The sessions.", "LiveSessionList"), errResps("400")))},
		"/v1/live/calls": obj{"get": op("liveCalls", "live", "The live calls the recorder remembers, oldest first.",
			[]obj{
				queryParam("session", "Only this session's calls.", str),
				queryParam("since", "Only calls started since: an RFC 3339 time, or a duration back from now (1h).", str),
				queryParam("limit", "At most this many of the latest calls.", obj{"type": "integer", "minimum": 0}),
			}, nil, merge(ok("The calls.", "LiveCallList"), errResps("400")))},
		"/v1/live/report": obj{"get": op("liveReport", "live", "The game-day report: the live sessions observed since a time, graded (findings, retry loop MC002, duplicated writes MC003) and written in `mcpchaos run`'s report formats, one run per session (scenario: the front and session ID, persona: live, host: the client's name).",
			[]obj{
				queryParam("since", "Sessions still open or ended since: an RFC 3339 time, or a duration back from now; at most 720h back. Default 1h.", str),
				queryParam("format", "The report's format. Default text.", obj{"type": "string", "enum": []string{"text", "json", "markdown", "html"}}),
			}, nil, merge(obj{"200": obj{"description": "The report.", "content": obj{
				"text/plain": obj{"schema": str}, "application/json": obj{"schema": obj{"type": "object"}},
				"text/markdown": obj{"schema": str}, "text/html": obj{"schema": str}}}}, errResps("400")))},
		"/v1/audit": obj{"get": op("audit", "audit", "The audit trail: every change, who made it and when (oldest first).",
			[]obj{queryParam("limit", "At most this many of the latest entries.", obj{"type": "integer", "minimum": 0})}, nil,
			merge(ok("The entries.", "AuditList"), errResps("400")))},
	}
}

// runExample is a scenario small enough to document; its server is a
// command the operator's machine has.
const runExample = `name: careful / unreachable
server:
  command: ["{{ mcpchaos }}", "demo-server", "--variant", "careful"]
  env:
    CARRIER_URL: '{{ upstream "carrier" }}'
upstreams:
  - name: carrier
    protocol: http
    target: builtin:carrier
rules:
  - name: carrier down
    upstream: carrier
    fault: {kind: unreachable, mode: refuse}
agent:
  personas: [diligent]
  hosts: [raw]
  budget: 4
steps:
  - tool: create_shipment
    args: {order_id: A-1001, address: "1 Main St"}
`
