package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A replica started with another WFPP_PARTITIONS than the one its store's
// unfinished instances are placed by does not serve, and says which to set.
func TestServeRefusesAnotherPartitionCount(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	bin := buildWfpp(t)
	store := startStoreServer(ctx, t, bin, filepath.Join(t.TempDir(), "store"))
	replica := func(id string, env ...string) *child {
		r := startChild(t, bin, t.TempDir())
		r.addr = freeAddr(t)
		r.env = append([]string{"WFPP_MONGO_URI=" + store.uri, "WFPP_REPLICA_ID=" + id, "WFPP_ADVERTISE_ADDR=" + r.addr}, env...)
		return r
	}

	r1 := replica("r1")
	require.NoError(t, r1.restart(ctx, t))
	deploy(ctx, t, r1, userTaskBPMN)
	require.NoError(t, r1.call(ctx, http.MethodPost, "/api/v1/instances", []byte(`{"definition":"`+benchUser+`"}`), nil, http.StatusCreated))
	r1.stop(t) // hands its leases back: no replica runs now

	r2 := replica("r2", "WFPP_PARTITIONS=16")
	err := r2.restart(ctx, t)
	require.Error(t, err, "a replica hashing by 16 partitions over instances placed by 32")
	log, rerr := os.ReadFile(r2.logPath)
	require.NoError(t, rerr)
	require.Contains(t, string(log), "set WFPP_PARTITIONS=32 on every replica")

	r3 := replica("r3")
	require.NoError(t, r3.restart(ctx, t), "the store's count")
}
