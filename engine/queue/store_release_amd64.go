//go:build amd64 && !race

package queue

import "sync/atomic"

// storeRelease stores v into *addr with release ordering: no earlier write
// may be seen after it. On amd64 every store is a release store, so a plain
// MOV (store_release_amd64.s) does, where atomic.Store pays for a full
// barrier (XCHG) the ring does not need; the runtime's internal StoreRel is
// the same MOV. Readers use atomic.Load. Race builds use atomic.Store so the
// race detector sees the synchronisation.
//
//go:noescape
func storeRelease(addr *atomic.Uint64, v uint64)
