package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// Harness is a running in-memory engine with one model deployed, ready to
// start instances of it and wait for their end.
type Harness struct {
	Engine *engine.Engine
	key    string
	vars   map[string]any
	ends   *completions
	parked string // key of the Parked model, once deployed
	// parkedModel is HarnessConfig.ParkedModel.
	parkedModel []byte
}

// HarnessConfig configures a Harness. The zero value of each field means its default.
type HarnessConfig struct {
	Model      []byte         // default TenNodes
	Variables  map[string]any // each instance's variables; default TenNodesVariables with the default model
	Partitions int            // engine appliers; default GOMAXPROCS
	// ParkedModel is what Park starts: a process that waits for ever;
	// default Parked.
	ParkedModel []byte
	// Store is what the engine persists to; default memstore without an
	// event log (the engine alone). The caller opens and closes it.
	Store engine.Store
}

// NewHarness starts an engine on ctx and deploys the model. Close it when done.
func NewHarness(ctx context.Context, cfg HarnessConfig) (*Harness, error) {
	if cfg.Model == nil {
		cfg.Model = TenNodes
		if cfg.Variables == nil {
			cfg.Variables = TenNodesVariables
		}
	}
	ends := newCompletions()
	store := cfg.Store
	if store == nil {
		store = memstore.New(memstore.WithoutEventLog(), memstore.WithoutFinished())
	}
	e, err := engine.New(engine.Config{
		Store:         store,
		Unhandled:     engine.JobsNoop,
		NoStartTimers: true,
		Partitions:    cfg.Partitions,
		Exporter:      ends,
	})
	if err != nil {
		return nil, err
	}
	if err := e.Run(ctx); err != nil {
		return nil, err
	}
	rec, _, err := e.Deploy(ctx, engine.DeployRequest{Source: cfg.Model})
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("deploying the model: %w", err)
	}
	if cfg.ParkedModel == nil {
		cfg.ParkedModel = Parked
	}
	return &Harness{Engine: e, key: rec.Key, vars: cfg.Variables, ends: ends, parkedModel: cfg.ParkedModel}, nil
}

// Close stops the engine.
func (h *Harness) Close() { h.Engine.Close() }

// Client starts instances one at a time and waits for each to end. One per
// goroutine: it reuses one channel for every wait.
type Client struct {
	h  *Harness
	ch chan engine.EventType
}

// Client returns a new client.
func (h *Harness) Client() *Client {
	return &Client{h: h, ch: make(chan engine.EventType, 1)}
}

// ErrNotCompleted says an instance ended otherwise than by completing.
var ErrNotCompleted = errors.New("instance did not complete")

// Complete starts one instance of the model and waits until it completes.
// An instance that stops on an incident never ends: ctx bounds the wait.
func (c *Client) Complete(ctx context.Context) error {
	snap, _, err := c.h.Engine.Start(ctx, engine.StartRequest{Definition: c.h.key, Variables: c.h.vars})
	if err != nil {
		return err
	}
	end := c.h.ends.wait(snap.ID, c.ch)
	if end == "" {
		select {
		case end = <-c.ch:
		case <-ctx.Done():
			return c.h.stuck(snap.ID, ctx.Err())
		}
	}
	if end != engine.EventInstanceCompleted {
		return fmt.Errorf("instance %s: %s: %w", snap.ID, end, ErrNotCompleted)
	}
	return nil
}

// stuck describes an instance that did not end in time.
func (h *Harness) stuck(id string, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	snap, serr := h.Engine.Instance(ctx, id)
	if serr != nil {
		return fmt.Errorf("waiting for instance %s: %w (and loading it: %w)", id, err, serr)
	}
	var at []string
	for _, t := range snap.Tokens {
		at = append(at, t.ElementID+"/"+string(t.Status))
	}
	return fmt.Errorf("waiting for instance %s: %w; it is %s with tokens %v; node queues %v", id, err, snap.Status, at, h.Engine.QueueDepths())
}

// Park starts n instances of the Parked model (a user task that is never
// completed) with the given number of concurrent clients, and returns once
// all of them wait.
func (h *Harness) Park(ctx context.Context, n, clients int) error {
	if h.parked == "" {
		rec, _, err := h.Engine.Deploy(ctx, engine.DeployRequest{Source: h.parkedModel})
		if err != nil {
			return fmt.Errorf("deploying the parked model: %w", err)
		}
		h.parked = rec.Key
	}
	clients = max(1, min(clients, n))
	var (
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	for i := range clients {
		share := n/clients + btoi(i < n%clients)
		wg.Go(func() {
			for range share {
				if _, _, err := h.Engine.Start(ctx, engine.StartRequest{Definition: h.parked}); err != nil {
					errMu.Lock()
					first = cmpErr(first, err)
					errMu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return fmt.Errorf("parking instances: %w", first)
	}
	return h.Engine.WaitIdle(ctx)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
