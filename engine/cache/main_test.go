package cache_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

// The embedded MongoDB-wire server starts only for the benchmarks that use it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(embedded.WithTestServer(m)) }
