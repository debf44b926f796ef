package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/workflowpp/wfpp/engine/bench"
	"github.com/workflowpp/wfpp/engine/store/embedded"
)

func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		file, vars              string
		cpuProfile, heapProfile string
		storeKind, dataDir      string
		asJSON                  bool
		cfg                     bench.Config
	)
	fs.StringVar(&storeKind, "store", storeMemory, "memory (the engine alone), embedded (durable, FerretDB in-process) or mongo (durable, on WFPP_MONGO_URI)")
	fs.StringVar(&dataDir, "data-dir", "", "with --store embedded: data directory (default: a new temporary one, removed after)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "open loop: start this many instances per second (default: closed loop with --workers)")
	fs.StringVar(&file, "model", "", "BPMN file to run (default: ten-nodes in memory, one-task on a durable store)")
	fs.StringVar(&vars, "vars", "", `variables (JSON object) each instance starts with (default with ten-nodes: {"amount":50})`)
	fs.DurationVar(&cfg.Duration, "duration", bench.DurationDefault, "how long to measure, after the warm-up")
	fs.DurationVar(&cfg.Warmup, "warmup", bench.WarmupDefault, "how long to run before measuring")
	fs.IntVar(&cfg.Workers, "workers", bench.WorkersDefault, "concurrent clients, each starting an instance and waiting for it to complete")
	fs.IntVar(&cfg.Parked, "parked", 0, "instances waiting in a user task during the run")
	fs.IntVar(&cfg.Partitions, "partitions", 0, "engine appliers (default: GOMAXPROCS)")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the measured time to this file")
	fs.StringVar(&heapProfile, "memprofile", "", "write a heap profile taken at the end of the measured time to this file")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: wfpp bench [--store memory|embedded|mongo] [--model FILE] [--duration DURATION] [--workers N | --rate N] [--parked N] [--json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	// Config's zero values mean defaults; on the command line they are mistakes.
	if cfg.Workers < 1 || cfg.Duration <= 0 || cfg.Warmup < 0 || cfg.Parked < 0 || cfg.Rate < 0 {
		fmt.Fprintln(stderr, "wfpp bench: --workers and --duration must be positive, --warmup, --parked and --rate not negative")
		return exitUsage
	}
	if storeKind != storeMemory && file == "" {
		cfg.Model = bench.OneTask
	}
	if file != "" {
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "wfpp bench: %v\n", err)
			return exitUsage
		}
		cfg.Model = src
	}
	if vars != "" {
		if err := json.Unmarshal([]byte(vars), &cfg.Variables); err != nil {
			fmt.Fprintf(stderr, "wfpp bench: --vars is not a JSON object: %v\n", err)
			return exitUsage
		}
	}
	for _, p := range []struct {
		name string
		into *io.Writer
	}{{cpuProfile, &cfg.CPUProfile}, {heapProfile, &cfg.HeapProfile}} {
		if p.name == "" {
			continue
		}
		f, err := os.Create(p.name)
		if err != nil {
			fmt.Fprintf(stderr, "wfpp bench: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		*p.into = f
	}
	res, err := benchOn(ctx, storeKind, dataDir, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "wfpp bench: %v\n", err)
		return exitUsage
	}
	if asJSON {
		if err := json.NewEncoder(stdout).Encode(res); err != nil {
			fmt.Fprintf(stderr, "wfpp bench: %v\n", err)
			return exitUsage
		}
		return 0
	}
	load := fmt.Sprintf("%d workers", res.Workers)
	if res.Rate > 0 {
		load = fmt.Sprintf("open loop at %g/s", res.Rate)
	}
	fmt.Fprintf(stdout, "completed   %d instances in %s (%s store, %s, %d partitions)\n", res.Completed, res.Duration.Round(1e6), res.Store, load, res.Partitions)
	fmt.Fprintf(stdout, "throughput  %.0f instances/s\n", res.InstancesPerSecond)
	fmt.Fprintf(stdout, "latency     p50 %.3f ms, p99 %.3f ms (start → completed)\n", res.P50Ms, res.P99Ms)
	fmt.Fprintf(stdout, "allocs      %.1f per instance\n", res.AllocsPerInstance)
	fmt.Fprintf(stdout, "cpu         %.1f µs per instance (all cores)\n", res.CPUMicrosPerInstance)
	if res.Parked > 0 {
		fmt.Fprintf(stdout, "parked      %d instances, %.0f bytes of live heap each\n", res.Parked, res.BytesPerParked)
	}
	return 0
}

// benchResult is bench.Result with the store it ran on.
type benchResult struct {
	bench.Result
	Store string `json:"store"`
	// Durability says when a start or a completion is on disk.
	Durability string `json:"durability"`
}

// benchOn runs the benchmark on the store kind names. The durable stores
// get a fresh database: a temporary data directory for embedded, a new
// database (dropped after) on WFPP_MONGO_URI for mongo.
func benchOn(ctx context.Context, kind, dataDir string, cfg bench.Config, stderr io.Writer) (res benchResult, err error) {
	res.Store = kind
	sc := storeConfig{Kind: kind}
	switch kind {
	case storeMemory:
		res.Durability = "none: memstore without an event log"
		res.Result, err = bench.Run(ctx, cfg)
		return res, err
	case storeEmbedded:
		sc.Sync = os.Getenv("WFPP_SYNC")
		res.Durability = "embedded FerretDB on SQLite in WAL mode, synchronous=FULL: each acknowledged write is synced to disk"
		if sc.Sync == string(embedded.SyncNormal) {
			res.Durability = "embedded FerretDB on SQLite in WAL mode, synchronous=NORMAL: acknowledged writes survive a process crash; the last ones may be lost on power loss"
		}
		if dataDir == "" {
			tmp, err := os.MkdirTemp("", "wfpp-bench-")
			if err != nil {
				return res, err
			}
			defer func() { err = errors.Join(err, os.RemoveAll(tmp)) }()
			dataDir = tmp
		}
		sc.DataDir = dataDir
	case storeMongo:
		res.Durability = "MongoDB: the URI's write concern (default w:majority on a replica set)"
		sc.MongoURI = os.Getenv("WFPP_MONGO_URI")
		sc.Database = fmt.Sprintf("wfpp_bench_%d", time.Now().UnixNano())
		sc.DropOnClose = true
	default:
		return res, fmt.Errorf("--store is %q: use %s, %s or %s", kind, storeMemory, storeEmbedded, storeMongo)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, closeStore, err := openStore(ctx, sc, log)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, closeStore(context.WithoutCancel(ctx))) }()
	store, redis, err := withCache(ctx, store, log) // WFPP_REDIS_URL, as wfpp serve
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, closeCache(redis)) }()
	if os.Getenv("WFPP_REDIS_URL") != "" {
		res.Durability += "; with the Redis cache (WFPP_REDIS_URL)"
	}
	cfg.Store = store
	res.Result, err = bench.Run(ctx, cfg)
	return res, err
}
