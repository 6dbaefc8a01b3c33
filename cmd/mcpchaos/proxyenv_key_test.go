package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestProxyEnvCAKeyNeverLeaks runs an intercepting scenario with a CA
// whose key the test knows, in process and through the control API, and
// looks for the key, as PEM and as DER in base64 (SEC 1 and PKCS #8), in
// every file the run left or gave the server (the server copies the
// files its CA variables name), the log (debug level), every report
// format and every API answer. The certificate must be there, the key
// nowhere.
func TestProxyEnvCAKeyNeverLeaks(t *testing.T) {
	bin := buildLedger(t)
	l := startLedger(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := inject.NewCA(key, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the run's directory lands here
	dump := filepath.Join(tmp, "server-dump")
	if err := os.Mkdir(dump, 0o700); err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(tmp, "ledger-ca.pem")
	if err := os.WriteFile(caFile, l.ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	doc := `name: the run CA stays in memory
server:
  command: [` + bin + `]
  env: {LEDGER_DUMP: ` + dump + `}
  proxy_env: true
  intercept_tls: true
  upstream_ca: ` + caFile + `
  resolve: ["` + l.resolve() + `"]
upstreams:
  - {name: ledger, host: ledger.example.test}
rules:
  - {name: lost, upstream: ledger, when: 'method == "POST"', fault: {kind: response_lost}}
agent: {personas: [diligent], hosts: [raw], budget: 2}
steps:
  - {tool: charge, args: {amount: 5}}
`
	sc, err := scenario.Parse("key.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	opts := agentsim.RunOptions{Seed: 1, CA: ca, Logger: zerolog.New(&logs).Level(zerolog.DebugLevel)}
	rep, err := agentsim.Run(t.Context(), []*scenario.Scenario{sc}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Error != "" || len(rep.Runs[0].Calls) == 0 || rep.Runs[0].Calls[0].Committed == 0 {
		t.Fatalf("the run did not intercept the charge: %+v", rep.Runs)
	}
	var haystacks [][]byte
	haystacks = append(haystacks, logs.Bytes())
	for _, write := range []func(io.Writer) error{rep.WriteJSON, rep.WriteHTML, rep.WriteJUnit, rep.WriteMarkdown,
		func(w io.Writer) error { return rep.WriteText(w, report.TextOptions{}) }} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		haystacks = append(haystacks, b.Bytes())
	}
	haystacks = append(haystacks, apiAnswers(t, doc, opts)...)
	files := 0
	err = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files++
		haystacks = append(haystacks, b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dumped, _ := os.ReadFile(filepath.Join(dump, "SSL_CERT_FILE.pem"))
	if !bytes.Contains(dumped, ca.CertPEM()) {
		t.Fatalf("the server's SSL_CERT_FILE does not hold the run CA's certificate (%d files under the run's TMPDIR)", files)
	}
	for _, h := range haystacks {
		if s := keyIn(key, h); s != "" {
			t.Fatalf("the run CA's key (%s) appears in %.300q", s, h)
		}
	}
}

// keyIn says which encoding of key h holds, or "".
func keyIn(key *ecdsa.PrivateKey, h []byte) string {
	sec1, _ := x509.MarshalECPrivateKey(key)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(key)
	raw, _ := key.Bytes()
	for name, s := range map[string][]byte{
		"SEC 1 PEM":      pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}),
		"PKCS #8 PEM":    pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		"SEC 1 base64":   []byte(base64.StdEncoding.EncodeToString(sec1)),
		"PKCS #8 base64": []byte(base64.StdEncoding.EncodeToString(pkcs8)),
		"scalar base64":  []byte(base64.StdEncoding.EncodeToString(raw)),
		"raw scalar":     raw,
		"PEM key header": []byte("PRIVATE KEY-----"),
	} {
		if bytes.Contains(h, s) {
			return name
		}
	}
	return ""
}

// apiAnswers runs doc through the control API (POST /v1/runs, with opts
// as the runs' template) and returns every answer: the run's, the
// events' replay, the upstreams'.
func apiAnswers(t *testing.T, doc string, opts agentsim.RunOptions) [][]byte {
	t.Helper()
	reg := inject.New(inject.Options{})
	defer reg.Close()
	srv := api.New(reg, api.Options{EnableRuns: true, RunOptions: opts})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	base := "http://" + ln.Addr().String()
	hc := &http.Client{Timeout: 2 * time.Minute}
	call := func(method, path, ctype, body string) []byte {
		req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return b
	}
	created := call("POST", "/v1/runs", "application/yaml", doc)
	var r api.Run
	if err := json.Unmarshal(created, &r); err != nil {
		t.Fatal(err)
	}
	run := call("GET", "/v1/runs/"+r.ID+"?wait=1m", "", "")
	if err := json.Unmarshal(run, &r); err != nil || r.Status != api.RunDone {
		t.Fatalf("the run through the API: %v %s", err, run)
	}
	return [][]byte{created, run, call("GET", "/v1/runs", "", ""), call("GET", "/v1/events?follow=false&replay=4096", "", ""),
		call("GET", "/v1/upstreams", "", "")}
}
