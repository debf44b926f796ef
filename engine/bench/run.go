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
	// MaxInFlightDefault is ten seconds of starts at 10,000 per second.
	MaxInFlightDefault = 100_000
)

// ErrOverloaded says the open loop's instances piled up past MaxInFlight.
var ErrOverloaded = errors.New("bench: the engine does not keep up with the rate")

// Config says what Run measures. The zero value of each field means its default.
type Config struct {
	HarnessConfig
	Duration time.Duration // measured time, after the warm-up
	Warmup   time.Duration
	Workers  int // concurrent clients, each starting an instance and waiting for its end
	Parked   int // instances of the Parked model waiting in a user task during the run
	// Rate, when positive, runs open loop: this many starts per second,
	// each waited for on its own goroutine, instead of Workers clients.
	Rate float64
	// MaxInFlight bounds the open loop's unfinished instances; past it the
	// engine cannot keep up with Rate and Run fails. Default MaxInFlightDefault.
	MaxInFlight int
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
	c.MaxInFlight = cmp.Or(c.MaxInFlight, MaxInFlightDefault)
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
	if c.Rate < 0 || c.MaxInFlight < 1 {
		errs = append(errs, fmt.Errorf("bench: rate must not be negative and max in-flight must be positive, got %g and %d", c.Rate, c.MaxInFlight))
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
	// Rate is the open loop's starts per second; 0 for the closed loop.
	Rate float64 `json:"rate,omitempty"`
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
	fail := func(err error) {
		errMu.Lock()
		runErr = cmp.Or(runErr, err)
		errMu.Unlock()
		cancel()
	}
	var (
		lat      [][]time.Duration
		latMu    sync.Mutex    // guards lat in the open loop
		stopOpen chan struct{} // closed: the open loop starts no more instances
		openDone chan struct{} // closed: the open loop's instances have all ended
	)
	if cfg.Rate > 0 {
		res.Rate, res.Workers = cfg.Rate, 0
		lat = [][]time.Duration{make([]time.Duration, 0, int(cfg.Rate*cfg.Duration.Seconds())+1)}
		stopOpen, openDone = make(chan struct{}), make(chan struct{})
		wg.Go(func() {
			defer close(openDone)
			openLoop(ctx, stopOpen, h, cfg, &measuring, func(d time.Duration) {
				latMu.Lock()
				lat[0] = append(lat[0], d)
				latMu.Unlock()
			}, fail)
		})
	} else {
		lat = make([][]time.Duration, cfg.Workers)
		for i := range lat {
			lat[i] = make([]time.Duration, 0, 4096)
			wg.Go(func() {
				c := h.Client()
				for ctx.Err() == nil {
					t := time.Now()
					if err := c.Complete(ctx); err != nil {
						if ctx.Err() == nil {
							fail(err)
						}
						return
					}
					if measuring.Load() {
						lat[i] = append(lat[i], time.Since(t))
					}
				}
			})
		}
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
	if stopOpen != nil {
		// Let the instances started while measuring end, so that the slow
		// ones count; a stalled engine shows as a failure, not a clean tail.
		close(stopOpen)
		grace := time.NewTimer(openLoopGrace)
		select {
		case <-openDone:
		case <-grace.C:
			fail(fmt.Errorf("%w: instances still running %s after the last start", ErrOverloaded, openLoopGrace))
		case <-ctx.Done():
		}
		grace.Stop()
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

// openLoopGrace bounds the wait for the open loop's last instances.
const openLoopGrace = 10 * time.Second

// openLoop starts an instance every 1/cfg.Rate seconds until stop is closed
// or ctx ends, each on its own goroutine, and records the latency of those
// due while measuring, from when each was due. It returns once all ended.
func openLoop(ctx context.Context, stop <-chan struct{}, h *Harness, cfg Config, measuring *atomic.Bool, record func(time.Duration), fail func(error)) {
	var (
		wg       sync.WaitGroup
		inFlight atomic.Int64
	)
	defer wg.Wait()
	interval := time.Duration(float64(time.Second) / cfg.Rate)
	due := time.Now()
	for {
		due = due.Add(interval)
		if d := time.Until(due); d > 0 {
			sleep(ctx, d)
		}
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		if inFlight.Add(1) > int64(cfg.MaxInFlight) {
			fail(fmt.Errorf("%w: %d instances unfinished at %g starts/s", ErrOverloaded, cfg.MaxInFlight, cfg.Rate))
			return
		}
		measured, start := measuring.Load(), due
		wg.Go(func() {
			defer inFlight.Add(-1)
			if err := h.Client().Complete(ctx); err != nil {
				if ctx.Err() == nil {
					fail(err)
				}
				return
			}
			if measured {
				record(time.Since(start))
			}
		})
	}
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
