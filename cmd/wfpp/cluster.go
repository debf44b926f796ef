package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/cluster"
)

// clusterFromEnv makes wfpp serve one replica of a cluster when it runs on
// a store other processes share (WFPP_MONGO_URI): the engine's
// ClusterConfig, and the peers over HTTP for the engine and the server.
// On the embedded store the process holds every partition alone: both are
// nil. listen is the address the server listens on; leases is the store as
// opened, before any cache wraps it.
func clusterFromEnv(getenv func(string) string, kind, listen string, leases engine.Store, log *slog.Logger) (*engine.ClusterConfig, *cluster.Peers, error) {
	if kind != storeMongo {
		return nil, nil, nil
	}
	cfg := &engine.ClusterConfig{
		ReplicaID: getenv("WFPP_REPLICA_ID"), Address: getenv("WFPP_ADVERTISE_ADDR"),
		Partitions: engine.ClusterPartitionsDefault, LeaseTTL: engine.LeaseTTLDefault,
		Machine: machineID(),
	}
	cfg.CPUs = func() int { return runtime.GOMAXPROCS(0) }
	if share := newCPUShare(getenv, log); share != nil {
		cfg.Neighbours = share.neighbours
	}
	var errs []error
	if cfg.ReplicaID == "" {
		host, _ := os.Hostname()
		cfg.ReplicaID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if cfg.Address == "" {
		cfg.Address = advertised(listen)
		if _, port, _ := net.SplitHostPort(cfg.Address); port == "0" {
			errs = append(errs, fmt.Errorf("listening on %s, a port the system picks: set WFPP_ADVERTISE_ADDR to where the other replicas reach this one", listen))
		}
	} else if _, _, err := net.SplitHostPort(cfg.Address); err != nil {
		errs = append(errs, fmt.Errorf("WFPP_ADVERTISE_ADDR %q: want host:port where the other replicas reach this one", cfg.Address))
	}
	if v := getenv("WFPP_PARTITIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("WFPP_PARTITIONS %q: want a whole number of at least 1, the same on every replica", v))
		}
		cfg.Partitions = n
	}
	if v := getenv("WFPP_LEASE_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			errs = append(errs, fmt.Errorf("WFPP_LEASE_TTL %q: want a duration of at least 1s, e.g. 10s", v))
		}
		cfg.LeaseTTL = d
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	ls, ok := leases.(engine.LeaseStore)
	if !ok {
		return nil, nil, errors.New("WFPP_MONGO_URI: this store keeps no partition leases, so replicas cannot share it")
	}
	cfg.Leases = ls
	secret := getenv("WFPP_CLUSTER_SECRET")
	if secret == "" {
		log.Warn("WFPP_CLUSTER_SECRET is not set: the replicas' internal routes answer loopback callers only, so replicas on other hosts cannot reach them; set the same secret on every replica",
			"replica_id", cfg.ReplicaID)
	}
	peers, err := cluster.New(cluster.Config{Self: cfg.ReplicaID, Replicas: ls, LeaseTTL: cfg.LeaseTTL, Secret: secret, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	log.Info("cluster replica", "replica_id", cfg.ReplicaID, "address", cfg.Address, "partitions", cfg.Partitions, "lease_ttl", cfg.LeaseTTL.String())
	return cfg, peers, nil
}

// partitionPreparer is a store that keeps the cluster's partition count
// and places instances stored before partitions existed (mongostore).
type partitionPreparer interface {
	PreparePartitions(ctx context.Context, n int, now time.Time) (placed int, err error)
}

// preparePartitions checks, before a replica leases anything, that it
// hashes instances by the store's partition count, and places the
// unfinished instances stored without a partition (cfg nil: not a replica).
func preparePartitions(ctx context.Context, cfg *engine.ClusterConfig, store engine.Store, log *slog.Logger) error {
	p, ok := store.(partitionPreparer)
	if cfg == nil || !ok {
		return nil
	}
	placed, err := p.PreparePartitions(ctx, cfg.Partitions, time.Now())
	if err != nil {
		return err
	}
	if placed > 0 {
		log.Info("placed unfinished instances stored before partitions existed", "instances", placed, "partitions", cfg.Partitions)
	}
	return nil
}

// advertised is the address other replicas reach a server listening on
// listen at: the host name in place of an unspecified host (":8080",
// "0.0.0.0:8080").
func advertised(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, err := os.Hostname(); err == nil {
			host = h
		}
	}
	return net.JoinHostPort(host, port)
}
