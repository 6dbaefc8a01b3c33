package api_test

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/api"
)

func TestAllowlistPatterns(t *testing.T) {
	a, err := api.ParseAllowlist([]string{"10.0.0.0/8", "192.168.1.20", "[::1]:5432", "db.staging", "*.svc.internal:80*", "api.staging:8080"})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"10.1.2.3:5432":             true,
		"11.1.2.3:5432":             false,
		"192.168.1.20:1":            true,
		"192.168.1.21:1":            false,
		"[::1]:5432":                true,
		"[::1]:5433":                false,
		"db.staging:5432":           true,
		"DB.Staging:5432":           true,
		"db.staging.evil:5432":      false,
		"carrier.svc.internal:80":   true,
		"carrier.svc.internal:8080": true,
		"carrier.svc.internal:443":  false,
		"api.staging:8080":          true,
		"api.staging:8081":          false,
		"localhost:5432":            false, // names are not resolved
		"garbage":                   false,
	}
	for target, want := range cases {
		if got := a.Allows(target); got != want {
			t.Errorf("Allows(%q) = %v, want %v", target, got, want)
		}
	}
	var all *api.Allowlist
	if !all.Allows("anything:1") {
		t.Error("a nil allowlist must allow everything")
	}
	if none, _ := api.ParseAllowlist(nil); none.Allows("127.0.0.1:1") {
		t.Error("an empty allowlist must allow nothing")
	}
	for _, bad := range []string{"a b", "10.0.0.0/99x", "host:[", "[::1]:"} {
		if _, err := api.ParseAllowlist([]string{bad}); err == nil {
			t.Errorf("ParseAllowlist(%q) accepted it", bad)
		}
	}
}

// TestAllowlistRefusesTarget: creating or re-pointing an upstream outside
// the allowlist is a 403, audited; inside it works.
func TestAllowlistRefusesTarget(t *testing.T) {
	allow, err := api.ParseAllowlist([]string{"127.0.0.1:9000-9999", "127.0.0.1:9"})
	if err == nil {
		t.Fatal("a port range is not a pattern; want an error")
	}
	allow, err = api.ParseAllowlist([]string{"127.0.0.1:9", "*.staging:*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f := setup(t, tr, nil, api.Options{Allow: allow})
			cases := []errorCase{
				{name: "outside", method: "POST", path: "/v1/upstreams", ct: "application/json",
					body: `{"name":"bank","protocol":"http","target":"http://10.0.0.1:443"}`, status: 403, code: api.CodeForbidden, field: "target"},
				{name: "url default port", method: "POST", path: "/v1/upstreams", ct: "application/json",
					body: `{"name":"bank","protocol":"http","target":"http://127.0.0.1"}`, status: 403, code: api.CodeForbidden, field: "target"},
			}
			for _, c := range cases {
				status, body := f.call(t, c.method, c.path, c.ct, c.body)
				checkError(t, c, status, body)
			}
			status, body := f.call(t, "POST", "/v1/upstreams", "application/json", `{"name":"ok","target":"127.0.0.1:9"}`)
			if status != 201 {
				t.Fatalf("inside the allowlist: %d %s", status, body)
			}
			status, body = f.call(t, "PATCH", "/v1/upstreams/ok", "application/json", `{"target":"10.0.0.1:9"}`)
			checkError(t, errorCase{name: "patch outside", status: 403, code: api.CodeForbidden, field: "target"}, status, body)
			status, body = f.call(t, "PATCH", "/v1/upstreams/ok", "application/json", `{"target":"db.staging:5432"}`)
			if status != 200 {
				t.Fatalf("patch inside the allowlist: %d %s", status, body)
			}
			entries, err := f.client.Audit(t.Context(), 0)
			if err != nil {
				t.Fatal(err)
			}
			denied := 0
			for _, e := range entries {
				if e.Action == "upstream.denied" && e.Status == 403 {
					denied++
				}
			}
			if denied != 3 {
				t.Errorf("%d denials audited, want 3: %+v", denied, entries)
			}
		})
	}
}
