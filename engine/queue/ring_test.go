package queue

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewRingRoundsUpToPowerOfTwo(t *testing.T) {
	t.Parallel()
	for capacity, want := range map[int]int{1: 2, 2: 2, 3: 4, 4: 4, 5: 8, 1000: 1024, 1024: 1024} {
		require.Equal(t, want, NewRing[int](capacity).Cap(), "capacity %d", capacity)
	}
	require.Panics(t, func() { NewRing[int](0) })
	require.Panics(t, func() { NewRing[int](-1) })
}

func TestRingFIFO(t *testing.T) {
	t.Parallel()
	r := NewRing[int](16)
	_, ok := r.TryPop()
	require.False(t, ok, "pop from an empty ring")

	// Uneven bursts so head and tail wrap around many times at different
	// offsets.
	next, want := 0, 0
	for round := range 1000 {
		for range round%8 + 1 {
			require.True(t, r.TryPush(next))
			next++
		}
		require.Equal(t, next-want, r.Len())
		for range round%5 + 1 {
			v, ok := r.TryPop()
			if !ok {
				break
			}
			require.Equal(t, want, v)
			want++
		}
		for r.Len() > 8 { // keep room for the next burst
			v, ok := r.TryPop()
			require.True(t, ok)
			require.Equal(t, want, v)
			want++
		}
	}
}

func TestRingFullRefusesAndKeepsValues(t *testing.T) {
	t.Parallel()
	r := NewRing[int](4)
	for i := range 4 {
		require.True(t, r.TryPush(i))
	}
	require.False(t, r.TryPush(99), "push into a full ring")
	require.False(t, r.TryPush(100), "push into a full ring")
	require.Equal(t, 4, r.Len())
	for i := range 4 {
		v, ok := r.TryPop()
		require.True(t, ok)
		require.Equal(t, i, v, "a full ring must not overwrite")
	}
	_, ok := r.TryPop()
	require.False(t, ok)
	require.Equal(t, 0, r.Len())
}

func TestRingPopClearsSlot(t *testing.T) {
	t.Parallel()
	r := NewRing[*int](2)
	require.True(t, r.TryPush(new(int)))
	_, ok := r.TryPop()
	require.True(t, ok)
	for i := range r.slots {
		require.Nil(t, r.slots[i].val, "slot %d still references a popped value", i)
	}
}

// TestRingManyProducersManyConsumers checks, under contention, that every
// pushed value is popped exactly once and that each consumer sees the
// values of one producer in push order.
func TestRingManyProducersManyConsumers(t *testing.T) {
	t.Parallel()
	const (
		producers    = 8
		consumers    = 8
		perProducerN = 100_000
	)
	total := producers * perProducerN
	r := NewRing[int](64) // small, so full and empty both happen a lot

	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range perProducerN {
				for !r.TryPush(p*perProducerN + i) {
					runtime.Gosched()
				}
			}
		})
	}
	got := make([][]int, consumers)
	var popped sync.WaitGroup
	remaining := make(chan struct{}, total)
	for range total {
		remaining <- struct{}{}
	}
	close(remaining)
	for c := range consumers {
		popped.Go(func() {
			for range remaining { // one token per value to pop
				for {
					v, ok := r.TryPop()
					if ok {
						got[c] = append(got[c], v)
						break
					}
					runtime.Gosched()
				}
			}
		})
	}
	wg.Wait()
	popped.Wait()

	seen := make([]int, total)
	for c, values := range got {
		last := make([]int, producers)
		for i := range last {
			last[i] = -1
		}
		for _, v := range values {
			seen[v]++
			p := v / perProducerN
			require.Greater(t, v, last[p], "consumer %d saw producer %d out of order", c, p)
			last[p] = v
		}
	}
	for v, n := range seen {
		if n != 1 {
			require.Failf(t, "value not popped exactly once", "value %d popped %d times", v, n)
		}
	}
	_, ok := r.TryPop()
	require.False(t, ok)
}
