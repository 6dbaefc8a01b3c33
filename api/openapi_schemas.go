package api

import (
	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/inject"
)

// The schemas describe the types of types_*.go, field for field; objects
// the server writes refuse additional properties, so that a test catches
// a field added to a type but not here.

func object(required []string, props obj) obj {
	o := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// outcomeNames lists inject's outcomes, for the Outcome enum.
func outcomeNames() []string {
	var out []string
	for _, o := range inject.Outcomes() {
		out = append(out, string(o))
	}
	return out
}

func arrayOf(items obj) obj { return obj{"type": "array", "items": items} }

func nullable(typ string) obj { return obj{"type": []string{typ, "null"}} }

func openAPISchemas() obj {
	str := obj{"type": "string"}
	integer := obj{"type": "integer"}
	boolean := obj{"type": "boolean"}
	number := obj{"type": "number"}
	dateTime := obj{"type": "string", "format": "date-time"}
	counts := obj{"type": "object", "additionalProperties": integer}
	return obj{
		"ErrorBody": object([]string{"error"}, obj{"error": ref("Error")}),
		"Error": object([]string{"code", "message"}, obj{
			"code": obj{"type": "string", "enum": []string{CodeInvalidJSON, CodeInvalidField, CodeInvalidExpression, CodeInvalidScenario,
				CodeNotFound, CodeConflict, CodeBodyTooLarge, CodeUnsupportedMedia, CodeUnauthorized, CodeForbidden,
				CodeMethodNotAllowed, CodeTooManyRuns, CodeRunsDisabled, CodeUnavailable, CodeInternal}},
			"message": str,
			"field":   obj{"type": "string", "description": `The offending field's path: "ttl", "fault.delay", "when", "upstreams[0].target".`},
			"line":    obj{"type": "integer", "minimum": 1, "description": "1-based, inside the field (when) or the body."},
			"column":  obj{"type": "integer", "minimum": 1},
		}),
		"Health": object([]string{"status", "upstreams", "faults", "runs"}, obj{"status": str, "upstreams": integer, "faults": integer,
			"runs": obj{"type": "boolean", "description": "Whether POST /v1/runs is enabled (serve --runs)."}}),

		"UpstreamRequest": object(nil, merge(obj{
			"name":     str,
			"protocol": obj{"type": "string", "enum": []string{"tcp", "http", "mcp", "forward"}},
			"listen":   obj{"type": "string", "description": "host:port of the proxy; empty: a free loopback port (create) or the current one (update)."},
			"target":   obj{"type": "string", "description": "host:port, or http://host:port; required except for a forward upstream, which has none."},
		}, forwardProps(str, integer, boolean))),
		"ForwardSettings": object(nil, forwardProps(str, integer, boolean)),
		"ForwardHost":     object([]string{"host"}, obj{"name": str, "host": str}),
		"UpstreamHost": object([]string{"name", "host", "declared", "ways"}, obj{
			"name": str, "host": str, "declared": boolean,
			"ways": arrayOf(object([]string{"port", "way", "protocol", "dial", "refusing"}, obj{
				"port": str, "way": obj{"type": "string", "enum": []string{"http", "https", "tunnel"}},
				"protocol": obj{"type": "string", "enum": []string{"http", "tcp"}}, "dial": str, "refusing": boolean,
			})),
		}),
		"UpstreamPatch": object(nil, obj{"protocol": obj{"type": "string", "enum": []string{"tcp", "http", "mcp", "forward"}}, "listen": str, "target": str}),
		"Upstream": object([]string{"name", "protocol", "listen", "target", "enabled", "refusing", "faults"}, obj{
			"name": str, "protocol": str, "listen": str, "target": str,
			"enabled": boolean, "refusing": boolean, "faults": integer,
			"warnings": obj{"type": "array", "items": str, "description": "Set on a create or update that deserves a second look (a proxy on every interface)."},
			"forward":  ref("ForwardSettings"),
			"hosts":    merge(arrayOf(ref("UpstreamHost")), obj{"description": "A forward upstream's destinations, declared or reached."}),
			"ca_cert":  obj{"type": "string", "description": "PEM certificate of the CA a forward upstream that intercepts TLS signs with: what the server must trust. Never the key."},
		}),
		"UpstreamList": object([]string{"upstreams"}, obj{"upstreams": arrayOf(ref("Upstream"))}),
		"Deleted":      object([]string{"name", "faults_removed"}, obj{"name": str, "faults_removed": integer}),
		"HaltResult": object([]string{"faults_removed", "upstreams_enabled"}, obj{
			"faults_removed": integer, "upstreams_enabled": arrayOf(str), "errors": arrayOf(str),
		}),

		"FaultSpec": obj{"type": "object", "required": []string{"kind"}, "additionalProperties": true,
			"description": "The kind and its parameters, flat (see `mcpchaos faults`).",
			"properties": obj{"kind": obj{"type": "string",
				"enum": inject.KindNames()}}},
		"FaultRequest": object([]string{"fault"}, obj{
			"name": str, "upstream": str,
			"when":        obj{"type": "string", "description": "An expr-lang condition; empty: always."},
			"fault":       ref("FaultSpec"),
			"probability": obj{"type": "number", "minimum": 0, "maximum": 1},
			"limit":       obj{"type": "integer", "minimum": 0},
			"ttl":         obj{"type": "string", "description": `A Go duration ("30s") from when the fault is first added; at most the server's maximum. A new ttl on an existing fault counts from its added_at.`},
			"enabled":     boolean,
		}),
		"FaultPatch": object(nil, obj{
			"upstream": str, "when": str, "fault": ref("FaultSpec"),
			"probability": obj{"type": "number", "minimum": 0, "maximum": 1},
			"limit":       obj{"type": "integer", "minimum": 0}, "ttl": str, "enabled": boolean,
		}),
		"FaultExtend": object([]string{"ttl"}, obj{
			"ttl": obj{"type": "string", "description": `How long from now the fault lives ("10m"); at most the server's maximum.`},
		}),
		"Fault": object([]string{"name", "fault", "probability", "enabled", "state", "hits", "added_at", "expires_at", "expires_in_seconds"}, obj{
			"name": str, "upstream": str, "when": str, "fault": ref("FaultSpec"),
			"probability": number, "limit": integer, "ttl": str, "enabled": boolean,
			"state":              obj{"type": "string", "enum": []string{StateActive, StateDisabled, StateExpired, StateExhausted}},
			"hits":               integer,
			"added_at":           dateTime,
			"expires_at":         merge(nullable("string"), obj{"format": "date-time"}),
			"expires_in_seconds": nullable("number"),
		}),
		"FaultList": object([]string{"faults"}, obj{"faults": arrayOf(ref("Fault"))}),
		"FaultSet":  object([]string{"faults"}, obj{"faults": arrayOf(ref("FaultRequest"))}),

		"Event": object([]string{"seq", "time", "type"}, obj{
			"seq": integer, "time": dateTime,
			"type": obj{"type": "string", "enum": []string{"conn_open", "conn_close", "exchange", "injection", EventDropped,
				"call", "session_open", "session_close"}},
			"upstream": str, "protocol": str, "host": str, "via": str, "conn": integer, "request": integer, "rule": str, "fault": str,
			"method": str, "path": str, "status": integer, "committed": boolean, "reached": boolean, "client_status": integer, "body_hash": str, "outcome": ref("Outcome"), "server_knows": boolean,
			"bytes_up": integer, "bytes_down": integer, "tool": str, "call": integer, "attempt": integer,
			"session": str, "open_calls": integer, "candidates": arrayOf(integer),
			"channel": str, "code": integer, "verdict": str,
			"count": integer, "detail": str,
		}),
		"AuditEntry": object([]string{"seq", "time", "who", "remote", "action", "status"}, obj{
			"seq": integer, "time": dateTime, "who": obj{"type": "string", "enum": []string{"token", "anonymous", WhoLive}},
			"remote": str, "actor": str, "action": str, "target": str, "detail": str, "status": integer,
			"live": ref("LiveAudit"),
		}),
		"LiveAudit": object([]string{"front", "session", "verdict", "tool", "calls", "loop_calls", "duplicates"}, obj{
			"front": str, "session": str, "client": str, "verdict": obj{"type": "string", "enum": []string{grade.VerdictLoop, grade.VerdictDuplicate}},
			"tool": str, "calls": integer, "loop_calls": integer, "duplicates": integer, "evidence": str,
		}),
		"AuditList": object([]string{"entries"}, obj{"entries": arrayOf(ref("AuditEntry"))}),

		"RunProgress": object([]string{"done", "total"}, obj{"done": integer, "total": integer}),
		"RunSummary": object([]string{"runs", "converged", "failed", "findings", "by_id"}, obj{
			"runs": integer, "converged": integer, "failed": integer, "findings": counts, "by_id": counts, "worst": str,
		}),
		"Run": object([]string{"id", "status", "scenario", "submitted_at", "progress"}, obj{
			"id":       str,
			"status":   obj{"type": "string", "enum": []string{RunRunning, RunDone, RunFailed, RunCancelled}},
			"scenario": str, "submitted_at": dateTime, "finished_at": dateTime,
			"progress": ref("RunProgress"), "error": str, "summary": ref("RunSummary"),
			"report": obj{"type": "object", "description": "The report, as `mcpchaos run --format json` writes it (docs/report.md)."},
		}),
		"RunList": object([]string{"runs"}, obj{"runs": arrayOf(ref("Run"))}),

		"KindParam": object([]string{"name", "type", "doc"}, obj{
			"name":     str,
			"type":     obj{"type": "string", "enum": []string{"duration", "string", "integer", "number", "boolean", "object"}},
			"doc":      str,
			"default":  obj{"description": "The value used when the parameter is left out; absent when it is the type's zero value."},
			"required": boolean,
			"choices":  merge(arrayOf(str), obj{"description": "The values this kind accepts (direction, mode)."}),
			"min":      obj{"type": []string{"integer", "string"}, "description": "Lower bound: a number, or a duration string."},
			"max":      obj{"type": []string{"integer", "string"}, "description": "Upper bound: a number, or a duration string (durations: the server's --max-fault-duration)."},
		}),
		"KindBehavior": object([]string{"text"}, obj{
			"protocol": obj{"type": "string", "enum": []string{"tcp", "http", "mcp"}}, "direction": obj{"type": "string", "enum": []string{"request", "response", "both"}}, "text": str,
		}),
		"KindOutcome": object([]string{"params", "protocol", "outcome", "server_knows"}, obj{
			"params": obj{"type": "object"}, "protocol": obj{"type": "string", "enum": []string{"tcp", "http", "mcp"}},
			"outcome": ref("Outcome"), "server_knows": boolean,
		}),
		"Outcome": obj{"type": "string", "enum": outcomeNames(), "description": "What a fault leaves the server with (docs/faults.md, Outcomes)."},
		"Kind": object([]string{"name", "summary", "tcp", "http", "mcp", "params", "behavior", "outcomes"}, obj{
			"name": obj{"type": "string", "enum": inject.KindNames()}, "summary": str, "tcp": boolean, "http": boolean, "mcp": boolean,
			"params": arrayOf(ref("KindParam")), "behavior": arrayOf(ref("KindBehavior")), "outcomes": arrayOf(ref("KindOutcome")),
		}),
		"KindList": object([]string{"kinds"}, obj{"kinds": arrayOf(ref("Kind"))}),
		"Example": object([]string{"name", "scenario"}, obj{
			"name":     obj{"type": "string", "description": "The file's name without .yaml; GET /v1/examples/{name} returns it."},
			"scenario": str, "description": str,
		}),
		"ExampleList": object([]string{"examples"}, obj{"examples": arrayOf(ref("Example"))}),
	}
}

// forwardProps are the fields of a forward upstream's settings.
func forwardProps(str, integer, boolean obj) obj {
	return obj{
		"intercept_tls": merge(boolean, obj{"description": "Terminate CONNECT tunnels with certificates of a CA made for the upstream (see ca_cert)."}),
		"upstream_ca":   merge(str, obj{"description": "PEM CA certificates trusted, besides the system's roots, for intercepted upstreams."}),
		"resolve":       merge(arrayOf(str), obj{"description": "HOST:PORT=ADDR entries: the address dialled for a destination."}),
		"hosts":         arrayOf(ref("ForwardHost")),
		"max_hosts":     merge(integer, obj{"minimum": 0, "description": "Bound on destinations (0: 64)."}),
	}
}

// liveSchemas describe front's Call, Session and Report, and the bodies
// of /v1/live/*.
func liveSchemas() obj {
	str := obj{"type": "string"}
	integer := obj{"type": "integer"}
	boolean := obj{"type": "boolean"}
	dateTime := obj{"type": "string", "format": "date-time"}
	var channels []string
	for _, c := range front.Channels() {
		channels = append(channels, string(c))
	}
	channel := obj{"type": "string", "enum": channels}
	return obj{
		"LiveCall": object([]string{"session", "seq", "id", "tool", "attempt", "channel", "text", "start", "elapsed_ns"}, obj{
			"session": str, "seq": integer, "n": obj{"type": "integer", "description": "The call's number in the recorder: events' call."},
			"id":   obj{"type": "string", "description": "The JSON-RPC request id, as the client wrote it."},
			"tool": str, "args": obj{"type": "object"}, "args_omitted": boolean, "attempt": integer,
			"channel": channel, "code": integer, "text": str, "truncated": boolean, "structured": obj{},
			"detail": str, "input_required": boolean, "continues": boolean,
			"start": dateTime, "elapsed_ns": integer, "progress": integer, "overlap": integer,
			"tamper":  object([]string{"rule", "mode"}, obj{"rule": str, "mode": obj{"type": "string", "enum": []string{"protocol_error", "drop"}}, "code": integer}),
			"verdict": str, "findings": arrayOf(str),
		}),
		"LiveSession": object([]string{"id", "front", "transport", "start", "calls"}, obj{
			"id": str, "front": str, "transport": obj{"type": "string", "enum": []string{"stdio", "http"}},
			"client": str, "server": str, "protocol": str, "command": arrayOf(str),
			"start": dateTime, "end": dateTime, "reason": str, "calls": integer, "tools": arrayOf(ref("LiveTool")),
			"verdict": str, "findings": arrayOf(str),
		}),
		"LiveTool": object([]string{"name"}, obj{
			"name": str, "description": str, "params": arrayOf(str), "required": arrayOf(str),
			"read_only": boolean, "idempotent": boolean, "destructive": boolean, "input_schema": obj{},
		}),
		"LiveReport": object([]string{"type"}, obj{
			"type":    obj{"type": "string", "enum": []string{"session_open", "session_update", "call_start", "call_end", "session_close"}},
			"session": ref("LiveSession"), "call": ref("LiveCall"),
		}),
		"LiveReportBatch":  object([]string{"reports"}, obj{"reports": arrayOf(ref("LiveReport"))}),
		"LiveReportResult": object([]string{"accepted"}, obj{"accepted": integer}),
		"LiveStats": object([]string{"open", "calls", "sessions", "numbered", "dropped"}, obj{
			"open": integer, "calls": integer, "sessions": integer, "numbered": integer, "dropped": integer,
		}),
		"LiveSessionList": object([]string{"sessions", "stats"}, obj{"sessions": arrayOf(ref("LiveSession")), "stats": ref("LiveStats")}),
		"LiveCallList":    object([]string{"calls"}, obj{"calls": arrayOf(ref("LiveCall"))}),
	}
}
