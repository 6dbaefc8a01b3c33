package api

import (
	"maps"
	"net/http"
)

// The OpenAPI document is Go data rather than an embedded file so that
// it sits next to the handlers it describes and shares their constants.
// openapi_test.go walks the router and checks that every route is
// described, and runs every example request against the handlers,
// validating both the example and the response against the schemas.

// obj is a JSON object in the document.
type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func content(schema obj, example any) obj {
	c := obj{"schema": schema}
	if example != nil {
		c["example"] = example
	}
	return obj{"application/json": c}
}

func jsonBody(schema string, example any) obj {
	return obj{"required": true, "content": content(ref(schema), example)}
}

func resp(desc, schema string) obj {
	r := obj{"description": desc}
	if schema != "" {
		r["content"] = content(ref(schema), nil)
	}
	return r
}

// errResps are the error responses every authenticated operation can
// give, merged with an operation's own.
func errResps(codes ...string) obj {
	out := obj{
		"401": resp("The token is missing or wrong.", "ErrorBody"),
		"403": resp("Refused: a non-loopback Host without a token, a cross-origin request, or (per operation) a safety rule.", "ErrorBody"),
	}
	desc := map[string]string{
		"400": "The body or a parameter is invalid; field, line and column locate the mistake.",
		"404": "No such upstream, fault or run.",
		"409": "The name is taken, or the upstream is disabled, or its address is in use.",
		"413": "The body is larger than the server's limit.",
		"415": "The Content-Type is not accepted.",
		"429": "Too many runs in progress.",
		"503": "The server is shutting down.",
	}
	for _, c := range codes {
		out[c] = resp(desc[c], "ErrorBody")
	}
	return out
}

func merge(objs ...obj) obj {
	out := obj{}
	for _, o := range objs {
		maps.Copy(out, o)
	}
	return out
}

func op(id, tag, summary string, params []obj, body obj, responses obj) obj {
	o := obj{"operationId": id, "tags": []string{tag}, "summary": summary, "responses": responses}
	if len(params) > 0 {
		o["parameters"] = params
	}
	if body != nil {
		o["requestBody"] = body
	}
	return o
}

func pathParam(name, desc, example string) obj {
	return obj{"name": name, "in": "path", "required": true, "description": desc,
		"schema": obj{"type": "string"}, "example": example}
}

func queryParam(name, desc string, schema obj) obj {
	return obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

// OpenAPI returns the OpenAPI 3.1 document of the API.
func OpenAPI() map[string]any {
	return obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       "mcpchaos control API",
			"version":     "1",
			"description": "Change faults while the system runs, stream what the proxies do, run the agent simulator. See docs/api.md.",
		},
		"servers":    []obj{{"url": "http://" + DefaultAddr}},
		"security":   []obj{{"bearer": []string{}}},
		"paths":      openAPIPaths(),
		"components": obj{"schemas": merge(openAPISchemas(), liveSchemas()), "securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer"}}},
	}
}

// openapi serves the document, encoded once by New.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.doc)
}
