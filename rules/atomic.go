package rules

import "sync/atomic"

type atomicSet = atomic.Pointer[Set]
