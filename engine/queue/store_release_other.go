//go:build !amd64 || race

package queue

import "sync/atomic"

// storeRelease stores v into *addr with (at least) release ordering; see
// store_release_amd64.go. On arm64 atomic.Store already is a release store
// (STLR).
func storeRelease(addr *atomic.Uint64, v uint64) { addr.Store(v) }
