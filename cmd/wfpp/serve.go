package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/signal"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/circuit"
	"github.com/workflowpp/wfpp/engine/connector"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/server/live"
)

// sampleBPMN is deployed on first start so a fresh server has a process.
//
//go:embed sample/approval.bpmn
var sampleBPMN []byte

// Where wfpp serve listens without --addr or WFPP_ADDR: on loopback only in
// the local profile (no identity: every request acts as an admin), on every
// interface once users are configured.
const (
	serveAddrLocalDefault = "127.0.0.1:8080"
	serveAddrDefault      = ":8080"
)

// serveEnv is every environment variable wfpp serve reads, for -h; a test
// holds it to the code.
var serveEnv = []struct{ name, doc string }{
	{"WFPP_ADDR", "address to listen on, as --addr"},
	{"WFPP_MONGO_URI", "MongoDB to use, e.g. mongodb://db:27017/wfpp?replicaSet=rs0 (default: the embedded server)"},
	{"WFPP_MONGO_DB", "database name when the URI names none (default wfpp)"},
	{"WFPP_DATA_DIR", "data directory of the embedded server (default ./data)"},
	{"WFPP_SYNC", "embedded server: full (default; survives power loss) or normal (survives kill -9, faster)"},
	{"WFPP_EMBEDDED_ADDR", "loopback host:port of the embedded server (default a free port on 127.0.0.1)"},
	{"WFPP_REDIS_URL", "Redis shared by replicas: live events of every replica, rate limits, circuit breakers, step cache and read cache, e.g. redis://redis:6379/0 (optional)"},
	{"WFPP_REPLICA_ID", "with WFPP_MONGO_URI (a cluster replica): this replica's id, unique in the cluster (default host-pid)"},
	{"WFPP_ADVERTISE_ADDR", "with WFPP_MONGO_URI: host:port where the other replicas reach this one (default the listen address, the host name for an unspecified host)"},
	{"WFPP_PARTITIONS", "with WFPP_MONGO_URI: partitions instances hash into, the same on every replica (default 32)"},
	{"WFPP_LEASE_TTL", "with WFPP_MONGO_URI: how long a partition lease lasts unrenewed, e.g. 10s (default); a dead replica's instances move after it"},
	{"WFPP_CLUSTER_SECRET", "with WFPP_MONGO_URI: shared secret of the replicas' internal routes; without it they answer loopback callers only"},
	{"WFPP_RATE_LIMIT", "starts, task completions and webhook posts per client per second (default 1000; shared by the replicas through WFPP_REDIS_URL); off for no limit"},
	{"WFPP_TRUSTED_PROXIES", "reverse proxies in front, as IP addresses and CIDR ranges separated by commas: from them X-Forwarded-For names the client the rate limit counts, and X-Forwarded-Host/-Proto are believed (default: none, the peer is the client)"},
	{"WFPP_DEAD_LETTER_RETENTION", "purge settled dead letters this long after they settled, e.g. P30D or 720h (default: keep them)"},
	{identity.EnvIdentityFile, "YAML or JSON file with users, groups, roles and secrets (none: the local profile)"},
	{identity.EnvUsers, "users without a file: name:bcrypt-hash:group,group:role,role entries"},
	{identity.EnvJWTSecret, "HS256 secret for bearer tokens"},
	{identity.EnvSessionSecret, "HMAC secret for session cookies"},
	{identity.EnvIdentityLocal, "true keeps the local profile on next to configured users"},
}

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", os.Getenv("WFPP_ADDR"),
		"address to listen on (env WFPP_ADDR; default "+serveAddrLocalDefault+" in the local profile, "+serveAddrDefault+" with users configured)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: wfpp serve [--addr HOST:PORT]")
		fmt.Fprintln(stderr, "\nEnvironment (every variable wfpp serve reads):")
		for _, v := range serveEnv {
			fmt.Fprintf(stderr, "  %-28s %s\n", v.name, v.doc)
		}
		fmt.Fprintln(stderr, "\nConnectors (built-in handlers of slack.post-message, monday.get-items, confluence.create-page, email.send, http; wfpp run reads them too):")
		for _, v := range connector.Env {
			fmt.Fprintf(stderr, "  %-28s %s\n", v.Name, v.Doc)
		}
		fmt.Fprintln(stderr, "\nLimits (sizes in bytes or with KiB, MiB, GiB):")
		for _, v := range limitVars {
			fmt.Fprintf(stderr, "  %-28s %s\n", v.name, v.doc)
		}
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	// Containers stop with SIGTERM; shut down as on Ctrl-C.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(stdout, nil)) // structured: one JSON object per line
	if err := serve(ctx, *addr, log); err != nil {
		fmt.Fprintf(stderr, "wfpp serve: %v\n", err)
		return exitUsage
	}
	return 0
}

func serve(ctx context.Context, addr string, log *slog.Logger) (err error) {
	storeCfg := storeConfigFromEnv()
	store, closeStore, err := openStore(ctx, storeCfg, log)
	if err != nil {
		return err
	}
	// Shutdown order: HTTP server (Listen returns), engine, then the store.
	defer func() { err = errors.Join(err, closeStore(context.WithoutCancel(ctx))) }()

	// The listen address comes first: a replica advertises it to the others.
	identity, err := identity.Load(os.Getenv)
	if err != nil {
		return fmt.Errorf("identity (WFPP_IDENTITY_FILE, WFPP_USERS, WFPP_JWT_SECRET): %w", err)
	}
	log.Info(identity.Describe())
	local := identity.WithDefaults().Local
	addr, exposed := listenAddr(addr, local)
	if exposed {
		log.Warn("THE LOCAL PROFILE LISTENS BEYOND LOOPBACK: anyone who reaches "+addr+" acts as an admin without logging in; configure users (WFPP_IDENTITY_FILE) or listen on 127.0.0.1",
			"addr", addr)
	}
	clusterCfg, peers, err := clusterFromEnv(os.Getenv, storeCfg.Kind, addr, store, log)
	if err != nil {
		return err
	}
	if err := preparePartitions(ctx, clusterCfg, store, log); err != nil {
		return err
	}
	var liveSrc atomic.Pointer[live.ReplicaSource] // once made: each heartbeat records its lag
	if clusterCfg != nil {
		clusterCfg.EventLag = func() time.Duration {
			if src := liveSrc.Load(); src != nil {
				return src.Lag()
			}
			return 0
		}
	}

	digests, _ := store.(engine.ChangeDigests) // the Redis layer does not pass them on
	store, redis, err := withCache(ctx, store, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeCache(redis)) }()

	engCfg, srvCfg := engine.Config{Store: store, Logger: log}, server.Config{Logger: log}
	if peers != nil {
		defer peers.Close()
		engCfg.Cluster, engCfg.Peers, srvCfg.Peers = clusterCfg, peers, peers
	}
	if err := applyLimits(os.Getenv, &engCfg, &srvCfg); err != nil {
		return err
	}
	if err := applyRateLimit(os.Getenv, &srvCfg); err != nil {
		return err
	}
	handlers, err := connectorHandlers(os.Getenv)
	if err != nil {
		return err
	}
	if engCfg.Circuits, err = sharedCircuits(redis, log); err != nil {
		return err
	}
	if engCfg.StepCache, err = sharedStepCache(redis); err != nil {
		return err
	}
	eng, err := engine.New(engCfg)
	if err != nil {
		return err
	}
	for typ, h := range handlers {
		eng.RegisterHandler(typ, h)
	}
	if len(handlers) > 0 {
		log.Info("connectors configured", "job_types", slices.Sorted(maps.Keys(handlers)))
	}
	if err := eng.Run(ctx); err != nil {
		eng.Close()
		return fmt.Errorf("starting engine: %w", err)
	}
	defer eng.Close()
	stopPurger, err := startDeadLetterPurger(ctx, eng, os.Getenv("WFPP_DEAD_LETTER_RETENTION"), log)
	if err != nil {
		return err
	}
	defer stopPurger()
	if err := deploySample(ctx, eng, log); err != nil {
		return err
	}
	srvCfg.Engine, srvCfg.Identity, srvCfg.Health = eng, identity, healthChecks(redis, storeCfg)
	if srvCfg.RateLimiter, err = sharedRateLimiter(redis, srvCfg); err != nil {
		return err
	}
	events, stopEvents, err := liveEvents(eng, redis, clusterCfg, digests, log) // other replicas may share a MongoDB
	if err != nil {
		return err
	}
	defer stopEvents()
	srvCfg.Live.Source = events
	if src, ok := events.(*live.ReplicaSource); ok {
		liveSrc.Store(src)
	}
	srv, err := server.New(srvCfg)
	if err != nil {
		return err
	}
	return srv.Listen(ctx, addr)
}

// withCache is the one place where the Redis layer (WFPP_REDIS_URL) wraps
// the store; it returns the store to run on and the cache, nil without
// Redis (then the store is returned as is). Close the cache with closeCache
// after the engine and before the store.
func withCache(ctx context.Context, store engine.Store, log *slog.Logger) (engine.Store, *cache.Cache, error) {
	url := os.Getenv("WFPP_REDIS_URL")
	if url == "" {
		return store, nil, nil
	}
	c, err := cache.Open(ctx, cache.Config{URL: url, Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("WFPP_REDIS_URL: %w", err)
	}
	return c.Store(store), c, nil
}

// sharedCircuits keeps the circuit breakers in Redis, shared by every
// replica, when there is a cache; nil (the engine's in-process default)
// without one.
func sharedCircuits(c *cache.Cache, log *slog.Logger) (circuit.Store, error) {
	if c == nil {
		return nil, nil
	}
	st, err := circuit.NewRedis(circuit.RedisConfig{Client: c.Redis(), Prefix: cache.PrefixDefault + "circuit:", Logger: log})
	if err != nil {
		return nil, fmt.Errorf("WFPP_REDIS_URL: circuit breakers: %w", err)
	}
	return st, nil
}

// sharedStepCache keeps the step cache in Redis, shared by every replica,
// when there is a cache; nil (the engine keeps it in the store) without one.
func sharedStepCache(c *cache.Cache) (engine.StepCache, error) {
	if c == nil {
		return nil, nil
	}
	sc, err := cache.NewStepCache(cache.StepCacheConfig{Client: c.Redis()})
	if err != nil {
		return nil, fmt.Errorf("WFPP_REDIS_URL: step cache: %w", err)
	}
	return sc, nil
}

func closeCache(c *cache.Cache) error {
	if c == nil {
		return nil
	}
	return c.Close()
}

// deploySample deploys the sample process when its key has no version yet,
// so that a changed sample never becomes a new version of a user's process.
func deploySample(ctx context.Context, eng *engine.Engine, log *slog.Logger) error {
	def, err := engine.Parse(sampleBPMN, engine.FormatBPMN)
	if err != nil {
		return fmt.Errorf("parsing the sample process: %w", err)
	}
	_, err = eng.Queries().Definition(ctx, def.Key, 0)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, engine.ErrNotFound):
		return fmt.Errorf("looking up the sample process %q: %w", def.Key, err)
	}
	rec, created, err := eng.Deploy(ctx, engine.DeployRequest{Source: sampleBPMN, Format: engine.FormatBPMN, Deployer: "wfpp serve"})
	if err != nil && !errors.Is(err, engine.ErrDuplicate) {
		return fmt.Errorf("deploying the sample process: %w", err)
	}
	if created {
		log.Info("sample process deployed", "definition_id", rec.ID)
	}
	return nil
}

// listenAddr picks the address to listen on and says whether the local
// profile would be reachable from other machines there.
func listenAddr(addr string, local bool) (string, bool) {
	switch {
	case addr == "" && local:
		return serveAddrLocalDefault, false
	case addr == "":
		return serveAddrDefault, false
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !local {
		return addr, false
	}
	ip := net.ParseIP(host)
	return addr, host != "localhost" && (ip == nil || !ip.IsLoopback())
}
