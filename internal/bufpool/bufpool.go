// Package bufpool recycles the copy buffers of the project's reverse
// proxies (httputil.ReverseProxy's BufferPool, and the relay's own body
// copies), so that a proxied exchange does not allocate 32 KiB of garbage.
package bufpool

// Pool is a bounded set of buffers of Size bytes. A buffered channel
// rather than a sync.Pool: putting a []byte in a sync.Pool allocates its
// slice header, which is what the pool is there to avoid. The zero value
// is not usable; New makes one.
type Pool chan []byte

// Size is the length of the buffers a Pool hands out.
const Size = 32 << 10

// New returns a pool that keeps up to n idle buffers.
func New(n int) Pool { return make(Pool, n) }

// Get returns an idle buffer, or a new one when none is idle.
func (p Pool) Get() []byte {
	select {
	case buf := <-p:
		return buf
	default:
		return make([]byte, Size)
	}
}

// Put gives buf back; a buffer smaller than Size, or one beyond the
// pool's bound, is left to the garbage collector.
func (p Pool) Put(buf []byte) {
	if cap(buf) < Size {
		return
	}
	select {
	case p <- buf[:Size]:
	default:
	}
}
