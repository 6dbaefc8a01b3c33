package inject

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// TestHTTPRelaySplicedBodies: a fixed-length body larger than the relay's
// buffer goes socket to socket (spliceBody) in both directions. The bytes
// arrive exact, the connection's counters still count them (conn_close
// reports at least the bodies), and a keep-alive request after each
// large one is framed right, so the splice stopped at the body's end.
func TestHTTPRelaySplicedBodies(t *testing.T) {
	const size = 8 << 20
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte(i*7 + i>>13)
	}
	want := sha256.Sum256(payload)
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/up":
			h := sha256.New()
			n, err := io.Copy(h, r.Body)
			if err != nil || n != size || !bytes.Equal(h.Sum(nil), want[:]) {
				http.Error(w, "upload differs", http.StatusBadRequest)
				return
			}
			_, _ = io.WriteString(w, "ok")
		case "/down":
			w.Header().Set("Content-Length", strconv.Itoa(size))
			_, _ = w.Write(payload)
		default:
			_, _ = io.WriteString(w, "small")
		}
	}))
	c := rig.client(t, true)
	for range 2 {
		resp, err := c.Post(rig.url+"/up", "application/octet-stream", bytes.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "ok" {
			t.Fatalf("upload: %d %q", resp.StatusCode, b)
		}
		if st, reused := doGet(t, c, rig.url+"/small"); st != 200 || !reused {
			t.Fatalf("after the upload: status %d, connection reused %v", st, reused)
		}
		resp, err = c.Get(rig.url + "/down")
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		n, err := io.Copy(h, resp.Body)
		resp.Body.Close()
		if err != nil || n != size || !bytes.Equal(h.Sum(nil), want[:]) {
			t.Fatalf("download: %d bytes, err %v, hash differs: %v", n, err, !bytes.Equal(h.Sum(nil), want[:]))
		}
		if st, reused := doGet(t, c, rig.url+"/small"); st != 200 || !reused {
			t.Fatalf("after the download: status %d, connection reused %v", st, reused)
		}
	}
	c.CloseIdleConnections()
	for {
		e := rig.waitEvent(t, EventConnClose)
		if e.Conn != 1 {
			continue
		}
		if e.BytesUp < 2*size || e.BytesDown < 2*size {
			t.Errorf("conn close counts up %d, down %d; want at least %d each", e.BytesUp, e.BytesDown, 2*size)
		}
		return
	}
}
