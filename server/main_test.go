package server_test

import (
	"testing"

	"github.com/gofiber/fiber/v2/utils"
	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

// Goroutines that are not ours to stop: fasthttp's worker-pool cleaner,
// which sleeps its idle time before it sees the server stopped, fasthttp's
// process-wide Date header ticker, and fiber's process-wide timestamp ticker
// that its limiter middleware starts once (started here, so its frames,
// which differ with -race inlining, need not be named), and the cleaners of
// the fasthttp client that forwards requests between replicas, which sleep
// before they see their connections closed.
func TestMain(m *testing.M) {
	utils.StartTimeStampUpdater()
	goleak.VerifyTestMain(embedded.WithTestServer(m),
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*Client).mCleaner"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*TCPDialer).tcpAddrsClean"),
	)
}
