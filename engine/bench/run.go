package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for Config.
const (
	DurationDefault = 10 * time.Second
	WarmupDefault   = time.Second
	WorkersDefault  = 64
)

// Config says what Run measures. The zero value of each field means its default.
type Config struct {
	HarnessConfig
	Duration time.Duration // measured time, after the warm-up
	Warmup   time.Duration
	Workers  int // concurrent clients, each starting an instance and waiting for its end
	Parked   int // instances of the Parked model waiting in a user task during the run
	// CPUProfile, when set, receives a CPU profile of the measured time only.
	CPUProfile io.Writer
	// HeapProfile, when set, receives a heap profile taken at the end of the
	// measured time (in use: what the parked instances hold).
	HeapProfile io.Writer
}

// WithDefaults returns c with every unset field at its default.
func (c Config) WithDefaults() Config {
	c.Duration = cmp.Or(c.Duration, DurationDefault)
	c.Warmup = cmp.Or(c.Warmup, WarmupDefault)
	c.Workers = cmp.Or(c.Workers, WorkersDefault)
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Duration < 0 || c.Warmup < 0 {
		errs = append(errs, fmt.Errorf("bench: duration and warm-up must not be negative, got %s and %s", c.Duration, c.Warmup))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("bench: workers must be at least 1, got %d", c.Workers))
	}
	if c.Parked < 0 {
		errs = append(errs, fmt.Errorf("bench: parked must not be negative, got %d", c.Parked))
	}
	return errors.Join(errs...)
}

// Result is what Run measured.
type Result struct {
	InstancesPerSecond float64 `json:"instancesPerSecond"`
	P50Ms              float64 `json:"p50Ms"` // start → completed latency
	P99Ms              float64 `json:"p99Ms"`
	AllocsPerInstance  float64 `json:"allocsPerInstance"` // heap allocations of the whole process per completed instance
	Parked             int     `json:"parked"`
	// BytesPerParked is the live heap each parked instance holds (after GC).
	BytesPerParked float64 `json:"bytesPerParked"`
	// CPUMicrosPerInstance is the process's CPU time per completed instance;
	// with C idle cores the engine could complete about C·10⁶/it per second.
	CPUMicrosPerInstance float64       `json:"cpuMicrosPerInstance"`
	Completed            int64         `json:"completed"`
	Duration             time.Duration `json:"-"`
	Workers              int           `json:"workers"`
	Partitions           int           `json:"partitions"`
}

// Run parks cfg.Parked instances, then has cfg.Workers clients complete
// instances of the model for cfg.Warmup and, measured, for cfg.Duration.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h, err := NewHarness(ctx, cfg.HarnessConfig)
	if err != nil {
		return Result{}, err
	}
	defer h.Close()
	res := Result{Parked: cfg.Parked, Workers: cfg.Workers, Partitions: cmp.Or(cfg.Partitions, runtime.GOMAXPROCS(0))}
	if cfg.Parked > 0 {
		before := liveHeap()
		if err := h.Park(ctx, cfg.Parked, cfg.Workers); err != nil {
			return res, err
		}
		res.BytesPerParked = float64(int64(liveHeap())-int64(before)) / float64(cfg.Parked)
	}

	var (
		measuring atomic.Bool
		wg        sync.WaitGroup
		errMu     sync.Mutex
		runErr    error
	)
	lat := make([][]time.Duration, cfg.Workers)
	for i := range cfg.Workers {
		lat[i] = make([]time.Duration, 0, 4096)
		wg.Go(func() {
			c := h.Client()
			for ctx.Err() == nil {
				t := time.Now()
				if err := c.Complete(ctx); err != nil {
					if ctx.Err() == nil {
						errMu.Lock()
						runErr = cmp.Or(runErr, err)
						errMu.Unlock()
						cancel()
					}
					return
				}
				if measuring.Load() {
					lat[i] = append(lat[i], time.Since(t))
				}
			}
		})
	}
	sleep(ctx, cfg.Warmup)
	var m0, m1 runtime.MemStats
	if cfg.CPUProfile != nil {
		if err := pprof.StartCPUProfile(cfg.CPUProfile); err != nil {
			cancel()
			wg.Wait()
			return res, fmt.Errorf("bench: %w", err)
		}
	}
	runtime.ReadMemStats(&m0)
	cpu0 := CPUTime()
	t0 := time.Now()
	measuring.Store(true)
	sleep(ctx, cfg.Duration)
	measuring.Store(false)
	res.Duration = time.Since(t0)
	cpu := CPUTime() - cpu0
	runtime.ReadMemStats(&m1)
	if cfg.CPUProfile != nil {
		pprof.StopCPUProfile()
	}
	if cfg.HeapProfile != nil {
		if err := pprof.Lookup("heap").WriteTo(cfg.HeapProfile, 0); err != nil {
			cancel()
			wg.Wait()
			return res, fmt.Errorf("bench: %w", err)
		}
	}
	cancel()
	wg.Wait()
	if runErr != nil {
		return res, runErr
	}
	if err := context.Cause(ctx); res.Duration < cfg.Duration && err != nil {
		return res, err
	}

	all := slices.Concat(lat...)
	slices.Sort(all)
	res.Completed = int64(len(all))
	if res.Completed == 0 {
		return res, errors.New("bench: no instance completed while measuring")
	}
	res.InstancesPerSecond = float64(res.Completed) / res.Duration.Seconds()
	res.P50Ms = ms(all[len(all)*50/100])
	res.P99Ms = ms(all[min(len(all)-1, len(all)*99/100)])
	res.AllocsPerInstance = float64(m1.Mallocs-m0.Mallocs) / float64(res.Completed)
	res.CPUMicrosPerInstance = float64(cpu.Microseconds()) / float64(res.Completed)
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// liveHeap returns the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
