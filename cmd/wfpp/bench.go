package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/workflowpp/wfpp/engine/bench"
)

func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		file, vars              string
		cpuProfile, heapProfile string
		asJSON                  bool
		cfg                     bench.Config
	)
	fs.StringVar(&file, "model", "", "BPMN file to run (default: the built-in ten-nodes model)")
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
		fmt.Fprintln(stderr, "Usage: wfpp bench [--model FILE] [--duration DURATION] [--workers N] [--parked N] [--json]")
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
	if cfg.Workers < 1 || cfg.Duration <= 0 || cfg.Warmup < 0 || cfg.Parked < 0 {
		fmt.Fprintln(stderr, "wfpp bench: --workers and --duration must be positive, --warmup and --parked not negative")
		return exitUsage
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
	res, err := bench.Run(ctx, cfg)
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
	fmt.Fprintf(stdout, "completed   %d instances in %s (%d workers, %d partitions)\n", res.Completed, res.Duration.Round(1e6), res.Workers, res.Partitions)
	fmt.Fprintf(stdout, "throughput  %.0f instances/s\n", res.InstancesPerSecond)
	fmt.Fprintf(stdout, "latency     p50 %.3f ms, p99 %.3f ms (start → completed)\n", res.P50Ms, res.P99Ms)
	fmt.Fprintf(stdout, "allocs      %.1f per instance\n", res.AllocsPerInstance)
	fmt.Fprintf(stdout, "cpu         %.1f µs per instance (all cores)\n", res.CPUMicrosPerInstance)
	if res.Parked > 0 {
		fmt.Fprintf(stdout, "parked      %d instances, %.0f bytes of live heap each\n", res.Parked, res.BytesPerParked)
	}
	return 0
}
