package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// testPlaces: places of a capped definition are taken up to the cap, once
// per instance, given back, listed by key; of many takers racing for the
// last places, exactly as many as there are places get one.
func testPlaces(t *testing.T, s engine.Store) {
	ps, ok := s.(engine.PlaceStore)
	require.True(t, ok, "every store keeps places (engine.PlaceStore)")
	c := ctx(t)
	take := func(key, id string, max int) bool {
		ok, err := ps.TakePlace(c, key, id, max)
		require.NoError(t, err)
		return ok
	}
	require.True(t, take("order", "i-1", 2))
	require.True(t, take("order", "i-1", 2), "taking a place held already changes nothing")
	require.True(t, take("order", "i-2", 2))
	require.False(t, take("order", "i-3", 2), "the cap is reached")
	require.True(t, take("order", "i-1", 2), "a holder keeps its place however full")
	require.True(t, take("invoice", "i-9", 1), "each key has its own places")
	require.False(t, take("refund", "i-8", 0))

	places, err := ps.Places(c)
	require.NoError(t, err)
	slices.Sort(places["order"])
	require.Equal(t, map[string][]string{"order": {"i-1", "i-2"}, "invoice": {"i-9"}}, places)

	require.NoError(t, ps.ReleasePlace(c, "order", "i-1"))
	require.NoError(t, ps.ReleasePlace(c, "order", "i-1"), "giving back twice frees one place only")
	require.NoError(t, ps.ReleasePlace(c, "order", "nobody"))
	require.True(t, take("order", "i-3", 2))
	require.False(t, take("order", "i-4", 2), "the second release freed nothing")

	// Replicas racing: 3 places for 20 takers.
	const takers = 20
	var wg sync.WaitGroup
	won := make(chan string, takers)
	errs := make(chan error, takers)
	for i := range takers {
		wg.Go(func() {
			id := fmt.Sprintf("r-%d", i)
			ok, err := ps.TakePlace(c, "race", id, 3)
			if err != nil {
				errs <- err
			} else if ok {
				won <- id
			}
		})
	}
	wg.Wait()
	close(won)
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var winners []string
	for id := range won {
		winners = append(winners, id)
	}
	require.Len(t, winners, 3)
	places, err = ps.Places(c)
	require.NoError(t, err)
	require.ElementsMatch(t, winners, places["race"])
}
