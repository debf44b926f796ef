package queue_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/workflowpp/wfpp/engine/queue"
)

func ExampleNodeQueue() {
	ctx := context.Background()
	q, err := queue.NewNodeQueue(queue.Config[string]{
		MaxAttempts: 1,
		DeadLetter: func(item queue.Item[string], reason error) {
			fmt.Printf("dead letter %q: %v\n", item.Payload, reason)
		},
	})
	if err != nil {
		panic(err)
	}
	_ = q.Enqueue(ctx, queue.Item[string]{ID: 1, Payload: "send invoice"})
	_ = q.Enqueue(ctx, queue.Item[string]{ID: 2, Payload: "page on-call", Priority: queue.PriorityHigh})

	for range 2 {
		l, err := q.Lease(ctx)
		if err != nil {
			panic(err)
		}
		fmt.Printf("leased %q, attempt %d\n", l.Item.Payload, l.Item.Attempts)
		if l.Item.ID == 2 {
			_ = q.Nack(l, errors.New("pager down"))
			continue
		}
		_ = q.Ack(l)
	}
	fmt.Printf("%+v\n", q.Stats())
	// Output:
	// leased "page on-call", attempt 1
	// dead letter "page on-call": queue: out of attempts after 1 attempts: pager down
	// leased "send invoice", attempt 1
	// {Depth:[0 0 0] Leased:0 Delayed:0 DeadLettered:1}
}

func ExampleQueue() {
	ctx := context.Background()
	q := queue.NewQueue[int](4)
	for i := range 3 {
		_ = q.Push(ctx, i)
	}
	q.Close()
	for {
		v, err := q.Pop(ctx)
		if errors.Is(err, queue.ErrClosed) {
			break
		}
		fmt.Println(v)
	}
	// Output:
	// 0
	// 1
	// 2
}
