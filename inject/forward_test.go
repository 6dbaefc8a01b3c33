package inject

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/rules"
)

func okHandler(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	_, _ = io.WriteString(w, "ok "+r.Host+" "+r.URL.RequestURI())
}

// A plain-HTTP request through the forward proxy reaches the host it
// names (through resolve), with the Host its client wrote and its target
// in origin form, and becomes an exchange of an upstream named by the
// host, reached via the forward upstream.
func TestForwardPlainHTTP(t *testing.T) {
	up := startFwdUpstream(t, okHandler, nil)
	rig := newFwdRig(t, ForwardSpec{Resolve: resolveTo("ledger.example.test:80", up)})
	c := rig.client(t, nil)
	for range 2 { // the second request rides the idle relay's kept connection
		resp, err := c.Get("http://ledger.example.test/charges?x=1")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "ok ledger.example.test /charges?x=1" {
			t.Fatalf("got %d %q; want 200 from the upstream, Host ledger.example.test, origin-form target", resp.StatusCode, b)
		}
		e := rig.waitEvent(t, EventExchange)
		if e.Upstream != "ledger.example.test" || e.Host != "ledger.example.test" || e.Via != "fwd" ||
			e.Protocol != ProtocolHTTP || e.Path != "/charges" || !e.Committed {
			t.Fatalf("exchange event %+v; want upstream and host ledger.example.test via fwd, committed", e)
		}
	}
	info, err := rig.reg.Upstream("fwd")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Hosts) != 1 || info.Hosts[0].Name != "ledger.example.test" || len(info.Hosts[0].Ways) != 1 ||
		info.Hosts[0].Ways[0].Dial != up.addr || info.Hosts[0].Ways[0].Way != "http" {
		t.Fatalf("hosts %+v; want ledger.example.test reached over http, dialled at %s", info.Hosts, up.addr)
	}
}

// Rules reach a destination by its host, by the forward upstream's name
// and by a declared friendly name, with its own rules.
func TestForwardRulesByHostAndName(t *testing.T) {
	up := startFwdUpstream(t, okHandler, nil)
	rig := newFwdRig(t, ForwardSpec{
		Resolve: map[string]string{"ledger.example.test:80": up.addr, "other.example.test:80": up.addr},
		Hosts:   []ForwardHost{{Name: "ledger", Host: "Ledger.Example.Test"}},
	})
	c := rig.client(t, nil)
	get := func(u string) int {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	rig.put(t, rules.Rule{Name: "by-name", Upstream: "ledger", When: `path == "/a"`,
		Fault: rules.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 501}}})
	rig.put(t, rules.Rule{Name: "by-host", When: `host == "other.example.test" && path == "/b"`,
		Fault: rules.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 502}}})
	rig.put(t, rules.Rule{Name: "by-via", Upstream: "fwd", When: `path == "/c"`,
		Fault: rules.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 503}}})
	for _, tc := range []struct {
		url  string
		want int
	}{
		{"http://ledger.example.test/a", 501}, {"http://other.example.test/a", 200},
		{"http://other.example.test/b", 502}, {"http://ledger.example.test/b", 200},
		{"http://ledger.example.test/c", 503}, {"http://other.example.test/c", 503},
	} {
		if got := get(tc.url); got != tc.want {
			t.Errorf("GET %s: %d; want %d", tc.url, got, tc.want)
		}
	}
	for _, e := range rig.events(EventInjection) {
		if strings.Contains(e.Path, "a") && e.Upstream != "ledger" {
			t.Errorf("injection %+v: want upstream ledger (the declared name)", e)
		}
	}
	// A rule may name a declared destination before any traffic, and
	// one reached since; not a host nobody declared or reached.
	if _, err := rig.reg.PutRule(rules.Rule{Name: "x", Upstream: "nowhere.example.test",
		Fault: rules.FaultSpec{Kind: "latency", Params: map[string]any{"delay": "1ms"}}}); !errors.Is(err, ErrUnknownUpstream) {
		t.Errorf("a rule naming an unknown host: %v; want ErrUnknownUpstream", err)
	}
	rig.put(t, rules.Rule{Name: "y", Upstream: "other.example.test",
		Fault: rules.FaultSpec{Kind: "latency", Params: map[string]any{"delay": "1ms"}}})
}

// A keep-alive connection may name another host in a later request: it
// is served by that host's upstream.
func TestForwardKeepAliveOtherHost(t *testing.T) {
	up := startFwdUpstream(t, okHandler, nil)
	rig := newFwdRig(t, ForwardSpec{Resolve: map[string]string{"a.example.test:80": up.addr, "b.example.test:80": up.addr}})
	c := rig.rawDial(t, "GET http://a.example.test/1 HTTP/1.1\r\nHost: a.example.test\r\n\r\n"+
		"GET http://b.example.test/2 HTTP/1.1\r\nHost: b.example.test\r\n\r\n")
	br := bufio.NewReader(c)
	for _, want := range []string{"ok a.example.test /1", "ok b.example.test /2"} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if string(b) != want {
			t.Fatalf("got %q; want %q", b, want)
		}
	}
	var ups []string
	for _, e := range rig.events(EventExchange) {
		ups = append(ups, e.Upstream)
	}
	if strings.Join(ups, ",") != "a.example.test,b.example.test" {
		t.Errorf("exchanges of %v; want a.example.test then b.example.test", ups)
	}
}

// What a forward proxy cannot serve is answered, with a Proxy-Status
// naming why, and bounded: an origin-form request, a head over the
// bound, a CONNECT without a port, a host beyond max_hosts.
func TestForwardRefusesBadRequests(t *testing.T) {
	up := startFwdUpstream(t, okHandler, nil)
	rig := newFwdRig(t, ForwardSpec{MaxHosts: 1, Resolve: map[string]string{"a.example.test:80": up.addr}})
	for _, tc := range []struct {
		name, req string
		status    int
		perr      string
	}{
		{"origin form", "GET /x HTTP/1.1\r\nHost: a\r\n\r\n", 400, "http_request_error"},
		{"https scheme", "GET https://a.example.test/ HTTP/1.1\r\nHost: a\r\n\r\n", 400, "http_request_error"},
		{"connect without port", "CONNECT a.example.test HTTP/1.1\r\n\r\n", 400, "http_request_error"},
		{"head too long", "CONNECT a.example.test:443 HTTP/1.1\r\nX: " + strings.Repeat("x", maxForwardHead) + "\r\n\r\n", 431, "http_request_error"},
		{"first host", "GET http://a.example.test/ HTTP/1.1\r\nHost: a.example.test\r\nConnection: close\r\n\r\n", 200, ""},
		{"over max_hosts", "GET http://b.example.test/ HTTP/1.1\r\nHost: b.example.test\r\n\r\n", 403, "proxy_configuration_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rig.rawDial(t, tc.req)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(resp.Header.Get("Proxy-Status"), tc.perr) {
				t.Errorf("got %d, Proxy-Status %q; want %d with %s", resp.StatusCode, resp.Header.Get("Proxy-Status"), tc.status, tc.perr)
			}
		})
	}
}
