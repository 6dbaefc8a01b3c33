package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// StartCarrier starts a fresh carrier on a free loopback port and returns
// its base URL and a function that stops it and waits for it. The
// simulator uses it for scenarios whose upstream target is
// "builtin:carrier", so every run starts with an empty carrier.
func StartCarrier(ctx context.Context) (baseURL string, stop func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("carrier: %w", err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- NewCarrier().Serve(ctx, ln) }()
	stop = func() error {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("carrier: %w", err)
		}
		return nil
	}
	return "http://" + ln.Addr().String(), stop, nil
}
