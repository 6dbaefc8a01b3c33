package inject

import "errors"

var (
	// ErrConnEnded is returned by a fault that ended its connection on
	// purpose (Reset, Close): the proxy stops without logging an error.
	ErrConnEnded = errors.New("connection ended by fault")
	// ErrUnknownUpstream is returned for an upstream name not in the
	// registry.
	ErrUnknownUpstream = errors.New("unknown upstream")
	// ErrUpstreamExists is returned when adding an upstream whose name is
	// taken.
	ErrUpstreamExists = errors.New("upstream already exists")
	// ErrClosed is returned by a registry or proxy that has been closed.
	ErrClosed = errors.New("closed")
)
