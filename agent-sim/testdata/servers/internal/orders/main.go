package orders

import (
	"fmt"
	"os"
)

// Main runs a corpus server: serve gets the client of the upstream at
// $UPSTREAM_URL and serves MCP on stdin and stdout until the client
// leaves. Main exits with status 2 when $UPSTREAM_URL is unset and with
// status 1 when serving fails, the error on stderr after the server's
// name.
func Main(name string, serve func(up *Client) error) {
	up, err := FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}
	Run(name, func() error { return serve(up) })
}

// Run is Main for a server that needs no upstream.
func Run(name string, serve func() error) {
	if err := serve(); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
