package demo

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CarrierURLEnv is the environment variable the demo server subprocess
// reads the carrier's base URL from (normally a fault proxy in front of
// the carrier).
const CarrierURLEnv = "CARRIER_URL"

// NewServer returns the demo MCP server of variant v, whose tools call the
// carrier API at carrierURL (for example "http://127.0.0.1:9000"). It
// panics on an unknown variant: validate user input with [ParseVariant].
func NewServer(v Variant, carrierURL string) *mcp.Server {
	c := newCarrierClient(carrierURL)
	var defs []toolDef
	switch v {
	case Careless:
		defs = carelessTools(c)
	case Terse:
		defs = terseTools(c)
	case Careful:
		defs = carefulTools(c)
	default:
		panic(fmt.Sprintf("demo: unknown variant %q", v))
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpchaos-demo-" + string(v), Version: "1.0.0"}, nil)
	for _, d := range defs {
		// The raw AddTool: the typed mcp.AddTool would turn the careless
		// variant's returned errors into isError results, which is exactly
		// the channel decision the careless variant must not make.
		s.AddTool(d.tool, d.handler)
	}
	return s
}

// ServeStdio serves the demo MCP server of variant v over newline-delimited
// JSON-RPC on in and out (the process's stdin and stdout in the demo's
// subprocess) until in reaches EOF or ctx is done. A client closing the
// stream is a clean end and returns nil.
func ServeStdio(ctx context.Context, v Variant, carrierURL string, in io.Reader, out io.Writer) error {
	if _, err := ParseVariant(string(v)); err != nil {
		return err
	}
	if carrierURL == "" {
		return fmt.Errorf("demo: no carrier URL (set %s)", CarrierURLEnv)
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	err := NewServer(v, carrierURL).Run(ctx, t)
	if errors.Is(err, io.EOF) || (err != nil && ctx.Err() != nil) {
		return nil
	}
	return err
}

// nopWriteCloser leaves closing the underlying writer (stdout) to its
// owner.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
