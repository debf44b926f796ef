package main

import (
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// TestServeClusterFromEnv: the embedded store runs alone whatever the
// cluster variables say; on WFPP_MONGO_URI they make the replica, with
// their defaults, and bad ones stop the server with a message naming them.
func TestServeClusterFromEnv(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

	cfg, peers, err := clusterFromEnv(env(map[string]string{"WFPP_PARTITIONS": "7"}), storeEmbedded, "127.0.0.1:8080", memstore.New(), log)
	require.NoError(t, err)
	require.Nil(t, cfg, "the embedded store is no cluster")
	require.Nil(t, peers)

	cfg, peers, err = clusterFromEnv(env(map[string]string{"WFPP_REPLICA_ID": "r1", "WFPP_LEASE_TTL": "4s", "WFPP_PARTITIONS": "8"}),
		storeMongo, "127.0.0.1:9001", memstore.New(), log)
	require.NoError(t, err)
	require.Equal(t, "r1", cfg.ReplicaID)
	require.Equal(t, "127.0.0.1:9001", cfg.Address, "the listen address")
	require.Equal(t, 8, cfg.Partitions)
	require.Equal(t, 4*time.Second, cfg.LeaseTTL)
	require.NotNil(t, cfg.Leases)
	require.Equal(t, "r1", peers.Self())
	require.Equal(t, 4*time.Second, peers.LeaseTTL())

	cfg, _, err = clusterFromEnv(env(map[string]string{"WFPP_ADVERTISE_ADDR": "wfpp-2:8080"}), storeMongo, ":8080", memstore.New(), log)
	require.NoError(t, err)
	require.Equal(t, "wfpp-2:8080", cfg.Address)
	require.Equal(t, engine.ClusterPartitionsDefault, cfg.Partitions)
	require.Contains(t, cfg.ReplicaID, "-", "host-pid")

	for name, tc := range map[string]struct {
		vars   map[string]string
		listen string
		says   string
	}{
		"partitions":  {map[string]string{"WFPP_PARTITIONS": "none"}, "127.0.0.1:8080", `WFPP_PARTITIONS "none"`},
		"zero":        {map[string]string{"WFPP_PARTITIONS": "0"}, "127.0.0.1:8080", `WFPP_PARTITIONS "0"`},
		"ttl":         {map[string]string{"WFPP_LEASE_TTL": "10"}, "127.0.0.1:8080", `WFPP_LEASE_TTL "10"`},
		"short ttl":   {map[string]string{"WFPP_LEASE_TTL": "100ms"}, "127.0.0.1:8080", `WFPP_LEASE_TTL "100ms"`},
		"advertise":   {map[string]string{"WFPP_ADVERTISE_ADDR": "replica-1"}, "127.0.0.1:8080", `WFPP_ADVERTISE_ADDR "replica-1"`},
		"picked port": {nil, "127.0.0.1:0", "set WFPP_ADVERTISE_ADDR"},
	} {
		_, _, err := clusterFromEnv(env(tc.vars), storeMongo, tc.listen, memstore.New(), log)
		require.ErrorContains(t, err, tc.says, name)
	}
}

// TestServeAdvertisedAddress: a replica listening on every interface
// advertises its host name; one listening on a named host, that host.
func TestServeAdvertisedAddress(t *testing.T) {
	t.Parallel()
	host, err := os.Hostname()
	require.NoError(t, err)
	require.Equal(t, host+":8080", advertised(":8080"))
	require.Equal(t, host+":8080", advertised("0.0.0.0:8080"))
	require.Equal(t, "127.0.0.1:9001", advertised("127.0.0.1:9001"))
	require.Equal(t, "wfpp-2:8080", advertised("wfpp-2:8080"))
}
