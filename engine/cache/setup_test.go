package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// open returns a cache on srv with its own prefix, closed when the test ends.
func open(t *testing.T, srv *redistest.Server, cfg cache.Config) *cache.Cache {
	t.Helper()
	cfg.URL = srv.URL()
	if cfg.Prefix == "" {
		cfg.Prefix = redistest.Prefix(t)
	}
	cfg.ProbeInterval = cmpOr(cfg.ProbeInterval, 10*time.Millisecond)
	cfg.OpTimeout = cmpOr(cfg.OpTimeout, testOpTimeout)
	c, err := cache.Open(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// testOpTimeout replaces the 100 ms default of each Redis call in tests:
// under -race beside the rest of the suite a call can take longer, and the
// cache then counts Redis as down and skips the fill a test looks for. The
// fault tests kill Redis, which fails calls at once whatever the timeout.
const testOpTimeout = 2 * time.Second

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// eventually waits for cond, checking it whenever tick fires, up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out waiting until %s", what)
		case <-tick.C:
		}
	}
}

// counting counts the calls that reach the inner store.
type counting struct {
	engine.Store
	defByID, instance int
}

func (c *counting) DefinitionByID(ctx context.Context, id string) (engine.DefinitionRecord, error) {
	c.defByID++
	return c.Store.DefinitionByID(ctx, id)
}

func (c *counting) Instance(ctx context.Context, id string) (*engine.Snapshot, error) {
	c.instance++
	return c.Store.Instance(ctx, id)
}

func newCounting() *counting { return &counting{Store: memstore.New()} }
