package load

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nhello, world\n", true},
		{"chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nd\r\nhello, world\n\r\n0\r\n\r\n", true},
		{"until close", "HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nhello", true},
		{"not 200", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", false},
		{"garbage", "SSH-2.0-OpenSSH\r\n", false},
		{"truncated", "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nhello", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Two responses back to back: the first must be consumed
			// exactly, leaving the second intact.
			br := bufio.NewReader(strings.NewReader(tt.in + "NEXT"))
			err := readResponse(br)
			if (err == nil) != tt.ok {
				t.Fatalf("readResponse: %v, want ok=%v", err, tt.ok)
			}
			if tt.ok && !strings.Contains(tt.name, "close") {
				rest, _ := br.ReadString(0)
				if rest != "NEXT" {
					t.Errorf("left %q, want NEXT", rest)
				}
			}
		})
	}
}

func TestPercentiles(t *testing.T) {
	var s []int64
	for i := 100; i >= 1; i-- {
		s = append(s, int64(i))
	}
	p50, p99 := percentiles(s)
	if p50 != 50 || p99 != 99 {
		t.Errorf("p50, p99 = %v, %v; want 50ns, 99ns", p50, p99)
	}
	if a, b := percentiles(nil); a != 0 || b != 0 {
		t.Error("empty samples")
	}
}
