package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func testStepCache(t *testing.T, s engine.Store) {
	sc, ok := s.(engine.StepCache)
	require.True(t, ok, "every store keeps the step cache (engine.StepCache)")
	StepCache(t, sc)
}

// StepCache is the conformance test of a step cache, the stores' and
// Redis's: entries live until they expire (judged by the time the caller
// gives), replace each other by key, list and delete by definition and key
// prefix, and keep their value. sc must start empty.
func StepCache(t *testing.T, sc engine.StepCache) {
	c := ctx(t)
	entry := func(key, def string, ttl time.Duration) engine.CacheEntry {
		return engine.CacheEntry{
			Key: key, Scope: "definition", Definition: def, JobType: "price",
			Value: []byte(`{"price":` + `42}`), Created: base, Expires: base.Add(ttl),
		}
	}
	_, err := sc.CacheEntry(c, "definition:order:price:a", base)
	require.ErrorIs(t, err, engine.ErrNotFound)

	require.NoError(t, sc.PutCacheEntry(c, entry("definition:order:price:a", "order", time.Minute)))
	require.NoError(t, sc.PutCacheEntry(c, entry("definition:order:price:b", "order", time.Hour)))
	require.NoError(t, sc.PutCacheEntry(c, entry("definition:ship:price:a", "ship", time.Hour)))

	got, err := sc.CacheEntry(c, "definition:order:price:a", base.Add(59*time.Second))
	require.NoError(t, err)
	require.JSONEq(t, `{"price":42}`, string(got.Value))
	require.Equal(t, "order", got.Definition)
	require.Equal(t, "price", got.JobType)
	require.True(t, got.Expires.Equal(base.Add(time.Minute)), "expires %v", got.Expires)
	_, err = sc.CacheEntry(c, "definition:order:price:a", base.Add(time.Minute))
	require.ErrorIs(t, err, engine.ErrNotFound, "an entry is gone once it expires")

	keys := func(f engine.CacheFilter, now time.Time) []string {
		all, err := sc.CacheEntries(c, f, now)
		require.NoError(t, err)
		var out []string
		for _, e := range all {
			out = append(out, e.Key)
		}
		return out
	}
	require.Equal(t, []string{"definition:order:price:a", "definition:order:price:b", "definition:ship:price:a"}, keys(engine.CacheFilter{}, base))
	require.Equal(t, []string{"definition:order:price:b"}, keys(engine.CacheFilter{Definition: "order"}, base.Add(time.Minute)), "expired entries are not listed")
	require.Equal(t, []string{"definition:ship:price:a"}, keys(engine.CacheFilter{Prefix: "definition:ship:"}, base))

	// Putting a key again replaces its entry.
	require.NoError(t, sc.PutCacheEntry(c, entry("definition:order:price:a", "order", 2*time.Hour)))
	_, err = sc.CacheEntry(c, "definition:order:price:a", base.Add(time.Hour))
	require.NoError(t, err)

	require.NoError(t, sc.DeleteCacheEntry(c, "definition:ship:price:a"))
	require.ErrorIs(t, sc.DeleteCacheEntry(c, "definition:ship:price:a"), engine.ErrNotFound)
	n, err := sc.DeleteCacheEntries(c, engine.CacheFilter{Definition: "order", Prefix: "definition:order:price:b"})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"definition:order:price:a"}, keys(engine.CacheFilter{}, base))
	n, err = sc.DeleteCacheEntries(c, engine.CacheFilter{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Empty(t, keys(engine.CacheFilter{}, base))
}
