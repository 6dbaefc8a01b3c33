package inject

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A forward spec is checked like any upstream's: each error names the
// field.
func TestForwardSpecValidate(t *testing.T) {
	pki := newTestPKI(t)
	for _, tc := range []struct {
		name  string
		spec  UpstreamSpec
		field string
	}{
		{"a target", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Target: "x:1"}, "target"},
		{"forward settings on http", UpstreamSpec{Name: "f", Protocol: ProtocolHTTP, Target: "x:1", Forward: &ForwardSpec{}}, "protocol"},
		{"a host with a port", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{Hosts: []ForwardHost{{Host: "a:1"}}}}, "hosts[0].host"},
		{"a host twice", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{Hosts: []ForwardHost{{Host: "a"}, {Name: "b", Host: "A"}}}}, "hosts[1]"},
		{"a name with a slash", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{Hosts: []ForwardHost{{Name: "a/b", Host: "a"}}}}, "hosts[0].name"},
		{"its own name", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{Hosts: []ForwardHost{{Name: "f", Host: "a"}}}}, "hosts[0].name"},
		{"a bad resolve", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{Resolve: map[string]string{"a:1": "b"}}}, "resolve"},
		{"max_hosts", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{MaxHosts: MaxMaxHosts + 1}}, "max_hosts"},
		{"hosts over max_hosts", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{MaxHosts: 1, Hosts: []ForwardHost{{Host: "a"}, {Host: "b"}}}}, "hosts"},
		{"an upstream_ca that is no certificate", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{UpstreamCA: []byte("nope")}}, "upstream_ca"},
		{"a key as upstream_ca", UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{
			UpstreamCA: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}})}}, "upstream_ca"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var se *SpecError
			if err := tc.spec.Validate(); !errors.As(err, &se) || se.Field != tc.field {
				t.Errorf("Validate: %v; want an error on %s", err, tc.field)
			}
		})
	}
	ok := UpstreamSpec{Name: "f", Protocol: ProtocolForward, Forward: &ForwardSpec{
		UpstreamCA: pki.CertPEM, Hosts: []ForwardHost{{Name: "ledger", Host: "ledger.example.test"}, {Host: "10.0.0.1"}},
		Resolve: map[string]string{"ledger.example.test:443": "127.0.0.1:8443"}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bare := UpstreamSpec{Name: "f", Protocol: ProtocolForward}
	if err := bare.Validate(); err != nil || bare.Forward == nil {
		t.Fatalf("a bare forward upstream: %v, forward %v; want valid, with the zero ForwardSpec", err, bare.Forward)
	}
}

func TestParseResolve(t *testing.T) {
	for in, want := range map[string]string{
		"Ledger.Example.Test:443=127.0.0.1:8443": "ledger.example.test:443 127.0.0.1:8443",
		"api.example.test:443=10.0.0.2":          "api.example.test:443 10.0.0.2:443",
		"[::1]:80=[::1]:81":                      "[::1]:80 [::1]:81",
		"api:80=::1":                             "api:80 [::1]:80",
	} {
		from, to, err := ParseResolve(in)
		if err != nil || from+" "+to != want {
			t.Errorf("ParseResolve(%q) = %q %q, %v; want %s", in, from, to, err, want)
		}
	}
	for _, bad := range []string{"a:443", "a=b", "a:443=b:x", ":443=b", "a:443=", "a:443=b c"} {
		if _, _, err := ParseResolve(bad); err == nil {
			t.Errorf("ParseResolve(%q): no error", bad)
		}
	}
}

// Names collide neither way: an upstream cannot take a declared
// destination's name, nor a forward upstream declare an upstream's.
func TestForwardNamesCollide(t *testing.T) {
	reg := New(Options{})
	defer reg.Close()
	if _, err := reg.AddUpstream(UpstreamSpec{Name: "carrier", Protocol: ProtocolHTTP, Target: "127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.AddUpstream(UpstreamSpec{Name: "f", Protocol: ProtocolForward,
		Forward: &ForwardSpec{Hosts: []ForwardHost{{Name: "carrier", Host: "c.example.test"}}}}); err == nil {
		t.Error("a forward upstream declaring an upstream's name: no error")
	}
	if _, err := reg.AddUpstream(UpstreamSpec{Name: "f", Protocol: ProtocolForward,
		Forward: &ForwardSpec{Hosts: []ForwardHost{{Name: "ledger", Host: "l.example.test"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.AddUpstream(UpstreamSpec{Name: "ledger", Protocol: ProtocolHTTP, Target: "127.0.0.1:1"}); err == nil {
		t.Error("an upstream named as a declared destination: no error")
	}
}

// The run CA is a CA of its own, its certificates are minted per name
// and kept within a bound, least recently used out first.
func TestRunCALeaves(t *testing.T) {
	now := time.Now()
	ca, err := NewCA(nil, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	if !ca.cert.IsCA || !ca.cert.MaxPathLenZero || len(ca.cert.SubjectKeyId) == 0 {
		t.Fatalf("CA certificate %+v: want a CA, path length 0, with a subject key id", ca.cert)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	first, err := ca.leaf("a.example.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "a.example.test", CurrentTime: now}); err != nil {
		t.Fatalf("the minted certificate does not verify for its name: %v", err)
	}
	if len(first.Leaf.AuthorityKeyId) == 0 {
		t.Error("the minted certificate has no authority key id (strict verifiers want one)")
	}
	ip, err := ca.leaf("127.0.0.1")
	if err != nil || len(ip.Leaf.IPAddresses) != 1 {
		t.Fatalf("a certificate for an IP: %v, %v", ip, err)
	}
	again, _ := ca.leaf("a.example.test")
	if again != first {
		t.Error("the second handshake for a name minted again; want the cached certificate")
	}
	for i := range maxLeaves + 10 {
		if _, err := ca.leaf(fmt.Sprintf("h%d.example.test", i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(ca.leaves) != maxLeaves || ca.lru.Len() != maxLeaves {
		t.Errorf("%d certificates kept; want the bound, %d", len(ca.leaves), maxLeaves)
	}
	if _, ok := ca.leaves["a.example.test"]; ok {
		t.Error("the least recently used certificate is still kept")
	}
}

// CATrustEnv appends the run CA to what the server already trusted: the
// file a variable named, or the system's roots; NODE_EXTRA_CA_CERTS gets
// the run CA alone (Node keeps its roots). No key is written.
func TestCATrustEnv(t *testing.T) {
	dir := t.TempDir()
	pki := newTestPKI(t)
	userCA := filepath.Join(dir, "user.pem")
	if err := os.WriteFile(userCA, pki.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ca, err := NewCA(nil, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	env, err := CATrustEnv(dir, ca.certPEM, func(k string) string {
		if k == "SSL_CERT_FILE" {
			return userCA
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	read := func(v string) []byte {
		t.Helper()
		b, err := os.ReadFile(env[v])
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if bytes.Contains(b, []byte("PRIVATE KEY")) {
			t.Fatalf("%s holds a key", v)
		}
		return b
	}
	if b := read("SSL_CERT_FILE"); !bytes.HasPrefix(b, pki.CertPEM) || !bytes.HasSuffix(b, ca.certPEM) {
		t.Errorf("SSL_CERT_FILE: want the user's CA, then the run CA")
	}
	if b := read("NODE_EXTRA_CA_CERTS"); !bytes.Equal(b, ca.certPEM) {
		t.Errorf("NODE_EXTRA_CA_CERTS: want the run CA alone")
	}
	roots, _ := systemRoots()
	b := read("REQUESTS_CA_BUNDLE")
	if !bytes.HasSuffix(b, ca.certPEM) || len(b) < len(roots) || env["CURL_CA_BUNDLE"] != env["REQUESTS_CA_BUNDLE"] {
		t.Errorf("REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE: want one bundle of the system's roots and the run CA")
	}
	if _, err := CATrustEnv(dir, ca.certPEM, func(string) string { return filepath.Join(dir, "missing.pem") }); err == nil ||
		!strings.Contains(err.Error(), "SSL_CERT_FILE") {
		t.Errorf("a variable naming a missing file: %v; want an error naming it", err)
	}
}
