package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/server/api"
)

// TestReplicasShareTheMachinesCPUs: replicas of one store on one machine
// split its CPUs (GOMAXPROCS) and say so in GET /api/v1/cluster; one left
// alone takes them all again, and GOMAXPROCS set by the operator is kept.
// (On a machine with one CPU every share is that one.)
func TestReplicasShareTheMachinesCPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a store server and three wfpp serve children")
	}
	bin := buildWfpp(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	store := startStoreServer(ctx, t, bin, filepath.Join(t.TempDir(), "store"))
	replica := func(i int, env ...string) *child {
		addr := freeAddr(t)
		r := startChild(t, bin, t.TempDir())
		r.name = fmt.Sprintf("replica r%d (%s)", i, addr)
		r.addr = addr
		r.env = append([]string{
			"WFPP_MONGO_URI=" + store.uri, fmt.Sprintf("WFPP_REPLICA_ID=r%d", i), "WFPP_ADVERTISE_ADDR=" + addr,
			"WFPP_LEASE_TTL=3s", "GOMAXPROCS=", // as if unset: the share decides
		}, env...)
		require.NoError(t, r.restart(ctx, t))
		return r
	}
	// cpus waits until r1's view shows each replica with the CPUs want gives.
	cpus := func(r *child, want map[string]int) api.ClusterView {
		t.Helper()
		for attempt := 0; ; attempt++ {
			var v api.ClusterView
			require.NoError(t, r.call(ctx, http.MethodGet, "/api/v1/cluster", nil, &v, http.StatusOK))
			got := map[string]int{}
			for _, rv := range v.Replicas {
				if rv.Live {
					got[rv.ID] = rv.CPUs
				}
			}
			if fmt.Sprint(got) == fmt.Sprint(want) {
				return v
			}
			require.NoError(t, ctx.Err(), "replicas' CPUs: got %v, want %v", got, want)
			backoff(ctx, attempt)
		}
	}

	r1 := replica(1)
	var alone api.ClusterView
	for attempt := 0; len(alone.Replicas) == 0 || alone.Replicas[0].CPUs == 0; attempt++ {
		require.NoError(t, r1.call(ctx, http.MethodGet, "/api/v1/cluster", nil, &alone, http.StatusOK))
		require.NoError(t, ctx.Err(), "r1 never reported its CPUs: %+v", alone.Replicas)
		backoff(ctx, attempt)
	}
	all := alone.Replicas[0].CPUs
	require.NotEmpty(t, alone.Replicas[0].Machine)

	r2 := replica(2)
	half := (all + 1) / 2
	v := cpus(r1, map[string]int{"r1": half, "r2": half})
	require.Equal(t, v.Replicas[0].Machine, v.Replicas[1].Machine)

	// An operator's GOMAXPROCS stands; the replica still counts as one here.
	replica(3, "GOMAXPROCS=1")
	third := (all + 2) / 3
	cpus(r1, map[string]int{"r1": third, "r2": third, "r3": 1})

	status, page, err := r1.do(ctx, http.MethodGet, "/cluster", "", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(page), fmt.Sprintf(`<td class="cpus">%d</td>`, third), "the Cluster page shows each replica's CPUs")

	r2.stop(t)
	cpus(r1, map[string]int{"r1": half, "r3": 1})
}
