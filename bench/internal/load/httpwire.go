package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Requests the generator sends. Host is required by HTTP/1.1; the value
// does not matter to the upstream.
const (
	keepAliveRequest = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n"
	closeRequest     = "GET / HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
)

// maxHeaderLines bounds the header loop of readResponse.
const maxHeaderLines = 64

var errNotOK = errors.New("status is not 200")

// readResponse reads one HTTP/1.1 response from br, body included, and
// checks that its status is 200. It understands Content-Length, chunked
// bodies, and bodies delimited by the end of the connection.
func readResponse(br *bufio.Reader) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || string(line[9:12]) != "200" {
		return fmt.Errorf("%w: %q", errNotOK, bytes.TrimSpace(line))
	}
	length, chunked := int64(-1), false
	for i := 0; ; i++ {
		if i == maxHeaderLines {
			return errors.New("too many header lines")
		}
		line, err = br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 { // the blank line
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.ParseInt(string(v), 10, 64); err != nil {
				return fmt.Errorf("content-length %q: %w", v, err)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		}
	}
	switch {
	case chunked:
		return discardChunked(br)
	case length >= 0:
		_, err = br.Discard(int(length))
		return err
	default:
		_, err = io.Copy(io.Discard, br)
		return err
	}
}

// maxChunks bounds the chunk loop; the upstream's body is one chunk.
const maxChunks = 1 << 16

func discardChunked(br *bufio.Reader) error {
	for range maxChunks {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(bytes.TrimSpace(line), []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 64)
		if err != nil {
			return fmt.Errorf("chunk size %q: %w", size, err)
		}
		if n == 0 {
			// Trailers, if any, end with a blank line.
			for range maxHeaderLines {
				if line, err = br.ReadSlice('\n'); err != nil || len(line) <= 2 {
					return err
				}
			}
			return errors.New("too many trailer lines")
		}
		if _, err := br.Discard(int(n) + 2); err != nil {
			return err
		}
	}
	return errors.New("too many chunks")
}
