package bufpool

import "testing"

// TestPool: a buffer given back is the next one handed out; a short one is
// not kept, nor one beyond the pool's bound.
func TestPool(t *testing.T) {
	p := New(1)
	a := p.Get()
	if len(a) != Size {
		t.Fatalf("Get: %d bytes, want %d", len(a), Size)
	}
	a[0] = 7
	p.Put(a)
	p.Put(make([]byte, Size)) // beyond the bound of 1: dropped
	if b := p.Get(); &b[0] != &a[0] {
		t.Error("the buffer given back was not reused")
	}
	p.Put(make([]byte, 10))
	if b := p.Get(); len(b) != Size || b[0] != 0 {
		t.Errorf("a short buffer was kept: %d bytes", len(b))
	}
}
