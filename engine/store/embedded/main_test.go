package embedded_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(embedded.WithTestServer(m))
}
