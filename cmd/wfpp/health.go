package main

import (
	"cmp"
	"context"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/server"
)

// The embedded store's data disk is nearly full when less than
// diskMinFreeShare of it, or less than diskMinFree bytes, is left.
const (
	diskMinFreeShare = 0.05
	diskMinFree      = 256 << 20
)

// healthChecks lists what makes /health/ready say "degraded": Redis when
// configured, and the free space of the embedded store's data disk (a
// MongoDB server reports its own disk).
func healthChecks(redis *cache.Cache, store storeConfig) []server.HealthCheck {
	var checks []server.HealthCheck
	if redis != nil {
		checks = append(checks, server.HealthCheck{Name: "redis", Check: func(ctx context.Context) error {
			if err := redis.Ping(ctx); err != nil {
				return fmt.Errorf("redis does not answer (events and reads go to the store meanwhile): %w", err)
			}
			return nil
		}})
	}
	if store.Kind == storeEmbedded {
		dir := cmp.Or(store.DataDir, embedded.DataDirDefault)
		checks = append(checks, server.HealthCheck{Name: "disk", Check: func(context.Context) error {
			return diskFree(dir, diskMinFreeShare, diskMinFree)
		}})
	}
	return checks
}

// diskFree says when the disk holding dir has less than share of its size,
// or less than minFree bytes, available.
func diskFree(dir string, share float64, minFree uint64) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	free := uint64(st.Bavail) * uint64(st.Bsize)  //nolint:gosec,unconvert // not negative; the types differ by platform
	total := uint64(st.Blocks) * uint64(st.Bsize) //nolint:gosec,unconvert // idem
	if free < minFree || float64(free) < share*float64(total) {
		return fmt.Errorf("the disk of %s is nearly full: %d MiB free of %d MiB; free space before commits fail", dir, free>>20, total>>20)
	}
	return nil
}
