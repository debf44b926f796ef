package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestFencedIsRetried: a change another replica fenced (it took the
// partition over as the change was written) is a 503 with Retry-After, as
// a partition without an owner is: the client tries again and reaches the
// new owner.
func TestFencedIsRetried(t *testing.T) {
	t.Parallel()
	app := fiber.New(fiber.Config{ErrorHandler: HandleError})
	app.Post("/start", func(*fiber.Ctx) error {
		return fmt.Errorf("starting order:1: storing changes: %w", engine.ErrFenced)
	})
	resp, err := app.Test(httptest.NewRequest(http.MethodPost, "/start", nil))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "1", resp.Header.Get(fiber.HeaderRetryAfter))
	require.Equal(t, "partition_moving", Classify(fmt.Errorf("x: %w", engine.ErrFenced)).Code)
}
