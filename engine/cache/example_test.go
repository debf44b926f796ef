package cache_test

import (
	"context"
	"fmt"
	"os"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// Wire the cache around a store, publish the engine's events to the other
// replicas and receive everyone's (no Output: it needs a Redis server).
func Example() {
	ctx := context.Background()
	c, err := cache.Open(ctx, cache.Config{URL: os.Getenv("WFPP_REDIS_URL"), Prefix: "wfpp:"})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	eng, err := engine.New(engine.Config{Store: c.Store(memstore.New())})
	if err != nil {
		panic(err)
	}
	defer eng.Subscribe(c.Publisher())()
	if err := eng.Run(ctx); err != nil {
		panic(err)
	}
	defer eng.Close()

	src := c.Source(eng) // what the WebSocket hub subscribes to
	defer src.Subscribe(func(evs []engine.Event) { fmt.Println(len(evs), "events") })()

	// Reads for people may be a little stale; the engine's never are.
	_, _ = eng.Queries().Instance(cache.AllowStale(ctx), "some-instance-id")
	ok, detail := c.Health() // false, "degraded: ..." while Redis is down
	fmt.Println(ok, detail)
}
