package inject

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// upload posts size pattern bytes, generated as they are sent, and returns
// the response and the body's sha256.
func upload(c *http.Client, u string, size int64) (*http.Response, string, error) {
	sum := sha256.New()
	req, err := http.NewRequest(http.MethodPost, u, io.TeeReader(pattern(size), sum))
	if err != nil {
		return nil, "", err
	}
	req.ContentLength = size
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, hex.EncodeToString(sum.Sum(nil)), nil
}

// TestHTTPFaultedUploadStreams: a 256 MiB upload under a latency rule
// reaches the upstream whole (it was refused with 413 when faulted
// bodies were held in memory).
func TestHTTPFaultedUploadStreams(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("slow", "", "latency", map[string]any{"delay": "10ms", "direction": "both"}))
	const size = 256 << 20
	resp, want, err := upload(rig.client(t, false), rig.url+"/upload", size)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("X-Body-Len") != strconv.Itoa(size) || resp.Header.Get("X-Body-Sha256") != want {
		t.Errorf("status %d, upstream read %s bytes", resp.StatusCode, resp.Header.Get("X-Body-Len"))
	}
	if e := rig.waitEvent(t, EventExchange); e.Status != 200 || !e.Committed || e.Rule != "slow" {
		t.Errorf("exchange %+v", e)
	}
}

// TestHTTPFaultedDownloadStreams: a 64 MiB reply paced by bandwidth
// reaches the client whole and the event agrees (it used to end in a 502
// part-way while the event said 200).
func TestHTTPFaultedDownloadStreams(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("thin", "", "bandwidth", map[string]any{"rate": 512 << 20}))
	const size = 64 << 20
	resp, err := rig.client(t, false).Get(rig.url + "/doc?size=" + strconv.Itoa(size))
	if err != nil {
		t.Fatal(err)
	}
	got, n := sha(resp.Body)
	resp.Body.Close()
	want, _ := sha(pattern(size))
	if resp.StatusCode != 200 || resp.ContentLength != size || n != size || got != want {
		t.Errorf("status %d, Content-Length %d, read %d bytes (sha match %v)", resp.StatusCode, resp.ContentLength, n, got == want)
	}
	if e := rig.waitEvent(t, EventExchange); e.Status != 200 || !e.Committed || e.Rule != "thin" {
		t.Errorf("exchange %+v", e)
	}
}

// TestHTTPFaultedMemoryBounded: 8 concurrent 32 MiB uploads under a rule
// leave the heap near where it was (they took it from 33 MB to 882 MB
// when faulted bodies were held). A memory bound, not a timed one.
func TestHTTPFaultedMemoryBounded(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("slow", "", "latency", map[string]any{"delay": "1ms"}))
	const (
		uploads = 8
		size    = 32 << 20
		bound   = 64 << 20
	)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	ctx, stop := context.WithCancel(context.Background())
	peak := make(chan uint64, 1)
	go func() { // samples the heap until the uploads are done
		var m runtime.MemStats
		var top uint64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapInuse)
			select {
			case <-ctx.Done():
				peak <- top
				return
			case <-tick.C:
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan string, uploads)
	c := rig.client(t, false)
	for range uploads {
		wg.Go(func() {
			resp, want, err := upload(c, rig.url+"/upload", size)
			switch {
			case err != nil:
				errs <- err.Error()
			case resp.StatusCode != 200 || resp.Header.Get("X-Body-Sha256") != want:
				errs <- resp.Status + " " + resp.Header.Get("X-Body-Len")
			}
		})
	}
	wg.Wait()
	stop()
	top := <-peak
	close(errs)
	for e := range errs {
		t.Errorf("upload: %s", e)
	}
	grew := int64(top) - int64(before.HeapInuse)
	t.Logf("heap in use: %d KiB before, %d KiB at the peak (%d KiB per exchange, clients and upstream included)",
		before.HeapInuse>>10, top>>10, max(grew, 0)/uploads>>10)
	if grew > bound {
		t.Errorf("heap grew by %d MiB under %d faulted uploads, want under %d MiB", grew>>20, uploads, bound>>20)
	}
}

// TestHTTPFaultedEventStream: an SSE reply under a matching latency rule
// reaches the client event by event while the stream stays open (it hung:
// the proxy waited for the end of the body).
func TestHTTPFaultedEventStream(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan struct{})
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(returned)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: one\n\n")
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	rig.put(t, httpRule("slow", "", "latency", map[string]any{"delay": "10ms"}))
	resp, err := rig.client(t, false).Get(rig.url + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "data: one\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	select {
	case <-returned:
		t.Error("the upstream's stream ended before the client read its first event")
	default:
	}
	close(release)
	<-returned
}

// TestHTTPChunkedBodyNotReadAhead: under rules that do not read
// body_size, a chunked request body streams: the upstream has the first
// chunk before the client sends the last. The proxy used to read it in
// full whenever any rule existed.
func TestHTTPChunkedBodyNotReadAhead(t *testing.T) {
	for _, when := range []string{`path == "/never"`, ``} {
		t.Run("when "+when, func(t *testing.T) {
			first := make(chan struct{})
			rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b := make([]byte, 5)
				if _, err := io.ReadFull(r.Body, b); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				close(first)
				rest, _ := io.ReadAll(r.Body)
				_, _ = w.Write(append(b, rest...))
			}))
			rig.put(t, httpRule("slow", when, "latency", map[string]any{"delay": "1ms"}))
			pr, pw := io.Pipe()
			go func() {
				_, _ = io.WriteString(pw, "first")
				select {
				case <-first:
					_, _ = io.WriteString(pw, ", last")
					pw.Close()
				case <-time.After(10 * time.Second):
					pw.CloseWithError(io.ErrUnexpectedEOF)
				}
			}()
			resp, body, err := postReader(rig.client(t, false), rig.url+"/x", pr)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || string(body) != "first, last" {
				t.Errorf("got %d %q; the first chunk did not reach the upstream on its own", resp.StatusCode, body)
			}
		})
	}
}

// TestHTTPChunkedBodySize: a rule reading body_size sees a chunked body's
// size when it is at most 64 KiB, and a size over any bound beyond.
func TestHTTPChunkedBodySize(t *testing.T) {
	for _, tc := range []struct {
		when string
		size int
		hit  bool
	}{
		{`body_size == 1000`, 1000, true},
		{`body_size == 1000`, 1001, false},
		{`body_size > 100000000`, 200 << 10, true},
		{`body_size < 65537`, 200 << 10, false},
	} {
		t.Run(tc.when+"/"+strconv.Itoa(tc.size), func(t *testing.T) {
			rig := newHTTPRig(t, nil)
			rig.put(t, httpRule("big", tc.when, "http_error", map[string]any{"status": 413}))
			body := strings.Repeat("x", tc.size)
			resp, _, err := postReader(rig.client(t, false), rig.url+"/x", struct{ io.Reader }{strings.NewReader(body)})
			if err != nil {
				t.Fatal(err)
			}
			want := 200
			if tc.hit {
				want = 413
			}
			if resp.StatusCode != want {
				t.Errorf("status %d, want %d", resp.StatusCode, want)
			}
			if !tc.hit && resp.Header.Get("X-Body-Len") != strconv.Itoa(tc.size) {
				t.Errorf("upstream read %s bytes, want %d", resp.Header.Get("X-Body-Len"), tc.size)
			}
		})
	}
}

// postReader posts body chunked (its length unknown) and returns the
// response with its body read.
func postReader(c *http.Client, u string, body io.Reader) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, u, body)
	if err != nil {
		return nil, nil, err
	}
	req.ContentLength = -1
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}
