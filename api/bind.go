package api

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// DefaultAddr is the control API's address when none is given: loopback
// only, so that nothing off this machine can change faults by default.
const DefaultAddr = "127.0.0.1:7777"

// MinTokenBytes is the shortest token accepted off loopback: a token that
// guards a tool which breaks things on purpose must not be guessable.
const MinTokenBytes = 16

// ErrTokenRequired is returned by [CheckBind] for an address off loopback
// without a (long enough) token.
var ErrTokenRequired = errors.New("a token is required off loopback")

// CheckBind checks that the API may listen on addr with token: any
// loopback address is allowed; any other address (including an empty host,
// which means every interface) needs a token of at least [MinTokenBytes]
// bytes.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("control API address %q is not host:port: %w", addr, err)
	}
	if isLoopbackHost(host) {
		return nil
	}
	if token == "" {
		return fmt.Errorf("%w: %s is not a loopback address, so the control API needs a token (set MCPCHAOS_TOKEN)", ErrTokenRequired, addr)
	}
	if len(token) < MinTokenBytes {
		return fmt.Errorf("%w: the token must be at least %d bytes long off loopback", ErrTokenRequired, MinTokenBytes)
	}
	return nil
}

// isLoopbackHost reports whether host (an IP, possibly with a zone, or a
// name) is a loopback address. Of names only "localhost" counts: nothing
// is resolved, so a name cannot turn out to be something else later.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
