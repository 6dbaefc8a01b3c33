package reader

import (
	"strings"
	"testing"
)

// lookupCases are lookup results labelled with what they show before
// ReadLookup ran on them. "src" names where the text comes from: a real
// server's repository and file (the text is what that code returns), or
// "written" for a case made up to pin a boundary.
var lookupCases = []struct {
	name, src  string
	text       string
	structured string
	want       LookupState
}{
	// modelcontextprotocol/servers (TypeScript), search_files: the paths
	// joined by newlines, or "No matches found"; structuredContent
	// {content: text}, which is no list.
	{"fs search empty", "github.com/modelcontextprotocol/servers src/filesystem/index.ts",
		"No matches found", `{"content":"No matches found"}`, LookupNothing},
	{"fs search paths", "github.com/modelcontextprotocol/servers src/filesystem/index.ts",
		"/home/ann/project/src/orders.ts\n/home/ann/project/src/orders_test.ts", `{"content":"/home/ann/project/src/orders.ts"}`,
		LookupUnread}, // bare paths state nothing: a model may read them as found, the reader does not claim to
	{"fs list_directory", "github.com/modelcontextprotocol/servers src/filesystem/index.ts",
		"[DIR] .git\n[FILE] .env.example\n[FILE] docker-compose.yml", "", LookupUnread},
	// modelcontextprotocol/servers (TypeScript), memory search_nodes:
	// JSON of the filtered graph, as text and structuredContent.
	{"memory search empty", "github.com/modelcontextprotocol/servers src/memory/index.ts",
		"{\n  \"entities\": [],\n  \"relations\": []\n}", `{"entities":[],"relations":[]}`, LookupNothing},
	{"memory search hit", "github.com/modelcontextprotocol/servers src/memory/index.ts",
		"{\n  \"entities\": [\n    {\n      \"name\": \"John_Smith\",\n      \"entityType\": \"person\",\n      \"observations\": [\"Speaks Spanish\"]\n    }\n  ],\n  \"relations\": []\n}",
		"", LookupFound},
	// github/github-mcp-server (Go), search_issues and
	// search_pull_requests: go-github's IssuesSearchResult as JSON.
	{"github search none", "github.com/github/github-mcp-server pkg/github/search_utils.go",
		`{"total_count":0,"incomplete_results":false,"items":[]}`, "", LookupNothing},
	{"github search hits", "github.com/github/github-mcp-server pkg/github/search_utils.go",
		`{"total_count":2,"incomplete_results":false,"items":[{"number":812,"title":"Importer crashes on empty CSV"},{"number":90,"title":"Page not found on login"}]}`,
		"", LookupFound},
	// containers/kubernetes-mcp-server (Go): list output as JSON (the
	// items of the list) or YAML.
	{"k8s json none", "github.com/containers/kubernetes-mcp-server pkg/output/output.go", "[]", "", LookupNothing},
	{"k8s json pods", "github.com/containers/kubernetes-mcp-server pkg/output/output.go",
		"[\n  {\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\n      \"name\": \"web-0\"\n    }\n  }\n]", "", LookupFound},
	{"k8s yaml none", "github.com/containers/kubernetes-mcp-server pkg/output/output.go", "[]\n", "", LookupNothing},
	{"k8s yaml pods", "github.com/containers/kubernetes-mcp-server pkg/output/output.go",
		"- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: web-0\n    namespace: default\n", "", LookupFound}, // a YAML sequence's entries are list items
	// modelcontextprotocol/servers (Python), sqlite list_tables and
	// read_query: str() of a list of dicts.
	{"sqlite tables", "github.com/modelcontextprotocol/servers src/sqlite/src/mcp_server_sqlite/server.py",
		"[{'name': 'users'}, {'name': 'orders'}, {'name': 'sqlite_sequence'}]", "", LookupFound},
	{"sqlite no rows", "github.com/modelcontextprotocol/servers src/sqlite/src/mcp_server_sqlite/server.py", "[]", "", LookupNothing},
	// modelcontextprotocol/servers (TypeScript), postgres query: the
	// rows as indented JSON.
	{"postgres rows", "github.com/modelcontextprotocol/servers src/postgres/index.ts",
		"[\n  {\n    \"id\": 7,\n    \"email\": \"ann@example.com\"\n  }\n]", "", LookupFound},
	// This project's careful servers (demo and corpus): what the
	// simulator's check calls read today.
	{"demo careful none", "demo/careful.go",
		"No shipment exists for order A-1001. Calling create_shipment with this order_id and address is safe: a repeated request cannot create a duplicate.",
		"", LookupNothing},
	{"demo careful found", "demo/careful.go",
		"Order A-1001 has 1 shipment(s):\n- SHP-0001, status created, to 1 Main St\nThese shipments exist; do not call create_shipment again for them.",
		"", LookupFound},
	{"corpus noguidance null", "agent-sim/testdata/servers/internal/orders/replies.go", "null", "", LookupNothing},

	// Written to pin the boundaries.
	{"empty text", "written", "", "", LookupNothing},
	{"kubectl wording", "written", "No resources found in default namespace.", "", LookupNothing},
	{"zero results", "written", "Found 0 results for \"A-1001\".", "", LookupNothing},
	{"count", "written", "Found 3 results.", "", LookupFound},
	{"record by id", "written", `{"id":"S-1","status":"created","tags":[]}`, "", LookupFound},
	{"record without id", "written", `{"status":"ok"}`, "", LookupUnread},
	{"json error", "written", `{"error":"not authorized","items":[]}`, "", LookupUnread},
	{"envelope with paging", "written", `{"object":"list","results":[],"next_cursor":null,"has_more":false}`, "", LookupNothing},
	{"issue list titled not found", "written", "#90 Page not found on login (open)\n#812 Importer crashes on empty CSV (open)", "", LookupUnread},
	{"listing and not found", "written", "Found 2 shipments for A-1001. Shipment S-9 not found.", "", LookupUnread},
	{"bullets", "written", "Shipments for A-1001:\n- S-1 created\n- S-2 created", "", LookupFound},
	{"german", "written", "Keine Sendung für Auftrag A-1001 gefunden.", "", LookupUnread},
	{"weather", "written", "Forecast for Berlin: 3 °C, light rain.", "", LookupUnread},
	{"quoted not found", "written", `Search for "page not found errors" returned 4 results.`, "", LookupFound},
	{"no way to know", "written", "We never heard back, so there is no way to know if room 204 is reserved.", "", LookupUnread},
	{"there is no", "written", "There is no shipment for order A-1001.", "", LookupNothing},
	{"conditional", "written", "If it lists no shipment, calling create_shipment again is safe.", "", LookupUnread},
}

func TestReadLookup(t *testing.T) {
	for _, tc := range lookupCases {
		t.Run(tc.name, func(t *testing.T) {
			r := Reply{Channel: Success, Text: tc.text}
			if tc.structured != "" {
				r.Structured = []byte(tc.structured)
			}
			got := ReadLookup(r)
			if got.State != tc.want {
				t.Fatalf("%s (%s): %q, want %q; source %+v", tc.name, tc.src, got.State, tc.want, got.Source)
			}
			if got.State != LookupUnread && (got.Source.Quote == "" || got.Confidence == 0) {
				t.Errorf("%s: %q without its source: %+v", tc.name, got.State, got.Evidence)
			}
		})
	}
}

// TestReadLookupFailureUnread: a failed lookup shows nothing about the
// item, whatever it says.
func TestReadLookupFailureUnread(t *testing.T) {
	for _, ch := range []Channel{ToolError, ProtocolError} {
		if got := ReadLookup(Reply{Channel: ch, Text: "No matches found"}); got.State != LookupUnread {
			t.Errorf("%s: %q, want unread", ch, got.State)
		}
	}
}

func FuzzReadLookup(f *testing.F) {
	for _, tc := range lookupCases {
		f.Add(tc.text, tc.structured)
	}
	f.Fuzz(func(t *testing.T, text, structured string) {
		got := ReadLookup(Reply{Channel: Success, Text: text, Structured: []byte(structured)})
		switch got.State {
		case LookupUnread, LookupFound, LookupNothing:
		default:
			t.Fatalf("state %q", got.State)
		}
		if len(got.Source.Quote) > maxQuote+len("…") {
			t.Fatalf("quote of %d bytes", len(got.Source.Quote))
		}
	})
}

// TestReadLookupDeepJSON: a result nested past the reader's depth bound
// is not decoded, so it shows nothing either way (unread), even though
// its innermost list is not empty.
func TestReadLookupDeepJSON(t *testing.T) {
	deep := strings.Repeat("[", 40) + "1" + strings.Repeat("]", 40)
	for _, r := range []Reply{{Channel: Success, Text: deep}, {Channel: Success, Structured: []byte(deep)}} {
		if got := ReadLookup(r); got.State != LookupUnread {
			t.Errorf("a list nested 40 deep reads %q, want unread", got.State)
		}
	}
	shallow := "[[1]]"
	if got := ReadLookup(Reply{Channel: Success, Text: shallow}); got.State != LookupFound {
		t.Errorf("%s reads %q, want found", shallow, got.State)
	}
}
