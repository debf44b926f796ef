package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestServeRefusesBadIdentity: a server with a weak JWT secret does not
// start (and never falls back to the local profile, which would let anyone in).
func TestServeRefusesBadIdentity(t *testing.T) {
	t.Setenv("WFPP_DATA_DIR", t.TempDir())
	t.Setenv("WFPP_MONGO_URI", "")
	t.Setenv("WFPP_JWT_SECRET", "too-short")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, &stdout, &stderr)
	require.Equal(t, exitUsage, code, "stdout: %s", stdout.String())
	require.Contains(t, stderr.String(), "JWTSecret is shorter than 32 bytes")
}
