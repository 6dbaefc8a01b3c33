// Command ledger-mcp is the proxy-environment tests' MCP server (go-sdk):
// its tools call fixed hosts with no base-URL setting, the way servers
// built on SDKs do, and leave the proxy and the CA to the environment.
//
//   - charge (writes): POST https://ledger.example.test/charges with Go's
//     default client (http.DefaultClient: ProxyFromEnvironment,
//     SSL_CERT_FILE on Linux), a 2 s deadline.
//   - fetch_rates (reads): a Python stdlib urllib client, started as a
//     subprocess (it inherits the environment), GETs
//     http://rates.example.test/rates.
//
// With $LEDGER_DUMP set, it copies the files the CA variables name into
// that directory at start, for the test that looks for the run CA's key
// in every file a run makes.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type chargeArgs struct {
	Amount int `json:"amount" jsonschema:"the amount to charge, in cents"`
}

type ratesArgs struct {
	Currency string `json:"currency" jsonschema:"a currency code"`
}

func main() {
	dump()
	s := mcp.NewServer(&mcp.Implementation{Name: "ledger-mcp", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "charge", Description: "Charge an amount on the ledger."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a chargeArgs) (*mcp.CallToolResult, any, error) {
			return charge(ctx, a.Amount), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fetch_rates", Description: "Fetch exchange rates.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, a ratesArgs) (*mcp.CallToolResult, any, error) {
			return rates(ctx, a.Currency), nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func text(isErr bool, format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func charge(ctx context.Context, amount int) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	body := fmt.Sprintf(`{"amount":%d}`, amount)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://ledger.example.test/charges", strings.NewReader(body))
	if err != nil {
		return text(true, "charge failed: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return text(true, "The ledger did not confirm the charge (%v), so it may or may not have been made. "+
			"Do not retry charge: check the ledger first.", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode >= 300 {
		return text(true, "The ledger refused the charge (%d): nothing was charged. Do not retry unchanged.", resp.StatusCode)
	}
	return text(false, "charged: %s", bytes.TrimSpace(b))
}

func rates(ctx context.Context, currency string) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	const script = `import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen("http://rates.example.test/rates?c=" + sys.argv[1], timeout=2) as r:
        print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, "error")
except Exception as e:
    print(0, type(e).__name__)
`
	out, err := exec.CommandContext(ctx, "python3", "-c", script, currency).Output()
	if err != nil {
		return text(true, "could not run the rates client: %v", err)
	}
	line := strings.TrimSpace(string(out))
	if !strings.HasPrefix(line, "200 ") {
		return text(true, "The rates service failed (%s). Nothing changed: this is a read; retry once.", line)
	}
	return text(false, "rates: %s", strings.TrimPrefix(line, "200 "))
}

// dump copies the files the CA variables name into $LEDGER_DUMP.
func dump() {
	dir := os.Getenv("LEDGER_DUMP")
	if dir == "" {
		return
	}
	for _, v := range []string{"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"} {
		if f := os.Getenv(v); f != "" {
			if b, err := os.ReadFile(f); err == nil {
				_ = os.WriteFile(filepath.Join(dir, v+".pem"), b, 0o600)
			}
		}
	}
}
