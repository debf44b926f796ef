package server_test

import (
	"testing"

	"go.uber.org/goleak"
)

// fasthttp keeps two goroutines that are not ours to stop: the worker-pool
// cleaner, which sleeps its idle time before it sees the server stopped, and
// the process-wide Date header ticker.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
	)
}
