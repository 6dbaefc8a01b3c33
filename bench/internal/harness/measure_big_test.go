package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/mcpchaos/mcpchaos/bench/internal/load"
)

func TestFailReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("upload: %w", &load.StatusError{Code: 413}), "413"},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), "reset"},
		{fmt.Errorf("write: %w", syscall.EPIPE), "reset"},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), "timeout"},
		{fmt.Errorf("after 10 of 20 bytes: %w", io.ErrUnexpectedEOF), "closed early"},
		{errors.New("something else"), "error"},
	}
	for _, tt := range tests {
		if got := failReason(tt.err); got != tt.want {
			t.Errorf("failReason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
