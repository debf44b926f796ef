package queue

import (
	"context"
	"testing"
)

// The ring and a buffered channel of the same capacity, side by side: one
// op is a push followed by a pop.

const benchCapacity = 1024

func BenchmarkRingPushPop(b *testing.B) {
	r := NewRing[int](benchCapacity)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if !r.TryPush(i) {
			b.Fatal("full")
		}
		if _, ok := r.TryPop(); !ok {
			b.Fatal("empty")
		}
	}
}

func BenchmarkChannelPushPop(b *testing.B) {
	ch := make(chan int, benchCapacity)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ch <- i
		<-ch
	}
}

func BenchmarkRingPushPopParallel(b *testing.B) {
	r := NewRing[int](benchCapacity)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			for !r.TryPush(i) {
			}
			for {
				if _, ok := r.TryPop(); ok {
					break
				}
			}
			i++
		}
	})
}

func BenchmarkChannelPushPopParallel(b *testing.B) {
	ch := make(chan int, benchCapacity)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			ch <- i
			<-ch
			i++
		}
	})
}

// BenchmarkQueuePushPop is the blocking layer on its fast path, for
// reference against the two above.
func BenchmarkQueuePushPop(b *testing.B) {
	q := NewQueue[int](benchCapacity)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := q.Push(ctx, i); err != nil {
			b.Fatal(err)
		}
		if _, err := q.Pop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQueuePushPopParallel(b *testing.B) {
	q := NewQueue[int](benchCapacity)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if err := q.Push(ctx, i); err != nil {
				b.Error(err)
				return
			}
			if _, err := q.Pop(ctx); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
