package api_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpchaos/mcpchaos/api"
)

// openAPIDoc returns the document as plain JSON values.
func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	raw, err := json.Marshal(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return doc.(map[string]any)
}

var httpMethods = []string{"get", "put", "post", "patch", "delete"}

// TestOpenAPICoversRoutes: every route of the router is described, and
// every described operation is a route.
func TestOpenAPICoversRoutes(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	doc := openAPIDoc(t)
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v", doc["openapi"])
	}
	paths := doc["paths"].(map[string]any)
	// The dashboard's static files are a page for people, not API: the
	// document describes the JSON API only (dashboard_test.go tests them).
	routes := slices.DeleteFunc(walkRoutes(t, f.srv), func(r string) bool {
		return r == "GET /" || r == "GET /dashboard/*"
	})
	var described []string
	ids := map[string]bool{}
	for p, item := range paths {
		for _, m := range httpMethods {
			if o, ok := item.(map[string]any)[m]; ok {
				described = append(described, strings.ToUpper(m)+" "+p)
				id := o.(map[string]any)["operationId"].(string)
				if ids[id] {
					t.Errorf("operationId %q is used twice", id)
				}
				ids[id] = true
			}
		}
	}
	for _, r := range routes {
		if !slices.Contains(described, r) {
			t.Errorf("route %s is not in the OpenAPI document", r)
		}
	}
	for _, d := range described {
		if !slices.Contains(routes, d) {
			t.Errorf("the OpenAPI document describes %s, which is not a route", d)
		}
	}
	// The served document is this one.
	status, body := f.call(t, "GET", "/openapi.json", "", "")
	served, _ := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if status != 200 || served == nil || served.(map[string]any)["openapi"] != "3.1.0" {
		t.Errorf("GET /openapi.json: %d %.200s", status, body)
	}
}

// exampleOrder runs every operation once, in an order where each finds
// what it needs; extra queries keep streams and waits finite.
var exampleOrder = []struct{ op, query string }{
	{"GET /healthz", ""}, {"GET /metrics", ""}, {"GET /openapi.json", ""},
	{"POST /v1/upstreams", ""}, {"GET /v1/upstreams", ""}, {"GET /v1/upstreams/{name}", ""},
	{"PUT /v1/upstreams/{name}", ""}, {"PATCH /v1/upstreams/{name}", ""},
	{"POST /v1/upstreams/{name}/faults", ""}, {"GET /v1/upstreams/{name}/faults", ""},
	{"GET /v1/upstreams/{name}/faults/{fault}", ""}, {"PUT /v1/upstreams/{name}/faults/{fault}", ""},
	{"PATCH /v1/upstreams/{name}/faults/{fault}", ""}, {"POST /v1/upstreams/{name}/faults/{fault}/extend", ""},
	{"POST /v1/upstreams/{name}/faults/{fault}/reset", ""}, {"DELETE /v1/upstreams/{name}/faults/{fault}", ""},
	{"POST /v1/faults", ""}, {"GET /v1/faults", ""}, {"GET /v1/faults/{name}", ""},
	{"PUT /v1/faults/{name}", ""}, {"PATCH /v1/faults/{name}", ""}, {"POST /v1/faults/{name}/extend", ""},
	{"POST /v1/faults/{name}/reset", ""}, {"PUT /v1/faults", ""},
	{"DELETE /v1/faults/{name}", ""},
	{"POST /v1/upstreams/{name}/disable", ""}, {"POST /v1/upstreams/{name}/enable", ""}, {"POST /v1/halt", ""},
	{"GET /v1/events", "?follow=false&replay=20"},
	{"POST /v1/runs", ""}, {"GET /v1/runs", ""}, {"GET /v1/runs/{id}", "?wait=1m"}, {"DELETE /v1/runs/{id}", ""},
	{"GET /v1/audit", ""}, {"GET /v1/kinds", ""}, {"GET /v1/examples", ""}, {"GET /v1/examples/{name}", ""},
	{"POST /v1/live/reports", ""}, {"GET /v1/live/sessions", ""}, {"GET /v1/live/calls", "?since=1h&limit=10"}, {"GET /v1/live/report", "?since=1h&format=json"},
	{"DELETE /v1/upstreams/{name}", ""},
}

// TestOpenAPIExamples sends every operation's example request to the
// handlers: the example must validate against its schema, the status must
// be a documented success, and the response must validate against the
// documented schema of that status.
func TestOpenAPIExamples(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	doc := openAPIDoc(t)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	paths := doc["paths"].(map[string]any)
	seen := map[string]bool{}
	for _, step := range exampleOrder {
		method, p, _ := strings.Cut(step.op, " ")
		item, _ := paths[p].(map[string]any)
		o, ok := item[strings.ToLower(method)].(map[string]any)
		if !ok {
			t.Fatalf("%s is not in the document", step.op)
		}
		seen[step.op] = true
		url := p
		params, _ := item["parameters"].([]any)
		for _, prm := range params {
			pm := prm.(map[string]any)
			url = strings.ReplaceAll(url, "{"+pm["name"].(string)+"}", pm["example"].(string))
		}
		ct, body := "", ""
		if rb, ok := o["requestBody"].(map[string]any); ok {
			ct, body = exampleBody(t, c, step.op, rb)
		}
		status, resp := f.call(t, method, url+step.query, ct, body)
		checkResponse(t, c, step.op, o, status, resp)
	}
	for p, item := range paths {
		for _, m := range httpMethods {
			if _, ok := item.(map[string]any)[m]; ok && !seen[strings.ToUpper(m)+" "+p] {
				t.Errorf("%s %s has no step in exampleOrder", strings.ToUpper(m), p)
			}
		}
	}
}

// exampleBody returns a request body's example and media type, after
// validating a JSON example against its schema.
func exampleBody(t *testing.T, c *jsonschema.Compiler, op string, rb map[string]any) (string, string) {
	t.Helper()
	content := rb["content"].(map[string]any)
	if y, ok := content["application/yaml"].(map[string]any); ok {
		return "application/yaml", y["example"].(string)
	}
	j := content["application/json"].(map[string]any)
	ex, ok := j["example"]
	if !ok {
		t.Fatalf("%s: the request body has no example", op)
	}
	validate(t, c, op+" example", j["schema"].(map[string]any), ex)
	data, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	return "application/json", string(data)
}

func checkResponse(t *testing.T, c *jsonschema.Compiler, op string, o map[string]any, status int, body string) {
	t.Helper()
	resps := o["responses"].(map[string]any)
	r, ok := resps[strconv.Itoa(status)].(map[string]any)
	if !ok || status >= 300 {
		t.Errorf("%s: status %d is not a documented success: %.300s", op, status, body)
		return
	}
	content, _ := r["content"].(map[string]any)
	j, ok := content["application/json"].(map[string]any)
	if !ok {
		return
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		t.Errorf("%s: response is not JSON: %v", op, err)
		return
	}
	validate(t, c, op+" response", j["schema"].(map[string]any), v)
}

// validate checks v against schema, a $ref into the document's
// components. (The few inline schemas are bare types: object, string.)
func validate(t *testing.T, c *jsonschema.Compiler, what string, schema map[string]any, v any) {
	t.Helper()
	ref, ok := schema["$ref"].(string)
	if !ok {
		return
	}
	loc := "mem://openapi.json" + ref
	sch, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("%s: compiling %s: %v", what, loc, err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not match its schema: %v", what, err)
	}
}
