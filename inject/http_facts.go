package inject

import (
	"context"
	"encoding/hex"
	"hash"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
)

// exchangeFacts are what an [EventExchange] states about a request: the
// facts a judge counts side effects on, so that a request the upstream
// never answered cannot pass for one it committed.
type exchangeFacts struct {
	// reached: the whole request (head and body) was written to the
	// upstream.
	reached bool
	// upstream is the upstream's status, 0 when it did not answer (or
	// answered with something that is not an HTTP response head).
	upstream int
	// client is the status the client got, 0 when it got none (a reset,
	// a close, a hang it gave up on).
	client int
	// body identifies the request body, for requests whose repeats a
	// judge folds (see hashedMethod); empty otherwise.
	body string
}

// hashedMethod reports whether the proxy hashes the request bodies of a
// method: the idempotent writes (RFC 9110 §9.2.2), whose identical
// repeats leave the upstream with one effect. Other requests are not
// hashed, so the fast path pays nothing for them.
func hashedMethod(m string) bool {
	return m == http.MethodPut || m == http.MethodPatch || m == http.MethodDelete
}

// bodySum hashes a request body as it is read (FNV-1a, 64 bits: about a
// nanosecond a byte, and stable across runs). The transport may still be
// reading the body when the upstream answers early, hence the lock.
type bodySum struct {
	mu sync.Mutex
	h  hash.Hash64
}

func newBodySum() *bodySum { return &bodySum{h: fnv.New64a()} }

func (s *bodySum) add(p []byte) {
	s.mu.Lock()
	_, _ = s.h.Write(p)
	s.mu.Unlock()
}

// sum is the hex digest of the bytes seen so far; "" for a nil bodySum.
func (s *bodySum) sum() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return hex.EncodeToString(s.h.Sum(nil))
}

// hashingBody is a request body that feeds a bodySum.
type hashingBody struct {
	io.ReadCloser
	s *bodySum
}

func (b hashingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.s.add(p[:n])
	}
	return n, err
}

// hashBody starts hashing r's body when its method is one whose repeats
// are folded; the sum is empty for a request without a body.
func hashBody(r *http.Request) *bodySum {
	if !hashedMethod(r.Method) {
		return nil
	}
	s := newBodySum()
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = hashingBody{r.Body, s}
	}
	return s
}

// traceWrote returns ctx with a trace that sets reached once the
// transport has written the whole request without error.
func traceWrote(ctx context.Context, reached *atomic.Bool) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				reached.Store(true)
			}
		},
	})
}
