package api

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"unicode"
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

// ErrBadToken is returned by [CheckToken] for a token no client could
// send: blank, wrapped in whitespace, or with control characters.
var ErrBadToken = errors.New("invalid token")

// CheckToken refuses a token that would lock every client out, or that
// is almost certainly a mistake: all whitespace (bearer tokens are
// trimmed, so nothing could match it), surrounded by whitespace (a stray
// newline from a file or a shell), or holding control characters (a
// header cannot carry them). An empty token means "none" and passes.
func CheckToken(token string) error {
	switch {
	case token == "":
		return nil
	case strings.TrimSpace(token) == "":
		return fmt.Errorf("%w: the token is blank (%d whitespace characters)", ErrBadToken, len(token))
	case strings.TrimSpace(token) != token:
		return fmt.Errorf("%w: the token starts or ends with whitespace; remove it", ErrBadToken)
	case strings.ContainsFunc(token, unicode.IsControl):
		return fmt.Errorf("%w: the token contains a control character", ErrBadToken)
	}
	return nil
}

// CheckBind checks that the API may listen on addr with token: the token
// must pass [CheckToken]; any loopback address is allowed; any other
// address (including an empty host, which means every interface) needs a
// token of at least [MinTokenBytes] bytes.
func CheckBind(addr, token string) error {
	if err := CheckToken(token); err != nil {
		return err
	}
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
