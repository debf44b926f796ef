package cluster

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
)

// Defaults of Config.
const (
	// TimeoutDefault bounds one call to a peer.
	TimeoutDefault = 10 * time.Second
)

// SecretHeader carries the cluster secret on calls between replicas.
const SecretHeader = "X-Wfpp-Cluster-Secret"

// ReplicaLister lists the replicas of the cluster with their last
// heartbeat: the cluster's engine.LeaseStore.
type ReplicaLister interface {
	Replicas(ctx context.Context) ([]engine.Replica, error)
}

// Config configures Peers.
type Config struct {
	Self     string        // this replica's id (engine.ClusterConfig.ReplicaID); required
	Replicas ReplicaLister // required: where the replicas' heartbeats are
	// LeaseTTL is the cluster's lease TTL: a replica whose heartbeat is
	// older is gone and is not asked. Default engine.LeaseTTLDefault.
	LeaseTTL time.Duration
	// Secret is sent to the peers and required from them on the internal
	// routes (WFPP_CLUSTER_SECRET); without one those answer loopback
	// callers only.
	Secret  string
	Timeout time.Duration // one call to a peer; default TimeoutDefault
	Logger  *slog.Logger
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.LeaseTTL = cmp.Or(c.LeaseTTL, engine.LeaseTTLDefault)
	c.Timeout = cmp.Or(c.Timeout, TimeoutDefault)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Self == "" {
		errs = append(errs, errors.New("cluster config: Self (this replica's id) is required"))
	}
	if c.Replicas == nil {
		errs = append(errs, errors.New("cluster config: Replicas is required"))
	}
	if c.LeaseTTL < 0 || c.Timeout < 0 {
		errs = append(errs, errors.New("cluster config: LeaseTTL and Timeout must not be negative"))
	}
	return errors.Join(errs...)
}

// Peers reaches the other live replicas of a cluster over their HTTP API
// (the internal routes): it is the engine's Config.Peers in wfpp serve.
type Peers struct {
	cfg    Config
	client *http.Client
	// bulk waits as long as the caller's context: a part of a bulk
	// operation runs up to BulkMax commands on its owner, which the
	// request's own timeout bounds.
	bulk *http.Client
}

var _ engine.Peers = (*Peers)(nil)

// New returns the peers of cfg.Self.
func New(cfg Config) (*Peers, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Peers{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}, bulk: &http.Client{}}, nil
}

// Self is this replica's id.
func (p *Peers) Self() string { return p.cfg.Self }

// LeaseTTL is the cluster's lease TTL: how old a heartbeat may be.
func (p *Peers) LeaseTTL() time.Duration { return p.cfg.LeaseTTL }

// Close closes the connections kept open to the peers.
func (p *Peers) Close() {
	p.client.CloseIdleConnections()
	p.bulk.CloseIdleConnections()
}

// live lists the replicas other than this one whose heartbeat is younger
// than the lease TTL.
func (p *Peers) live(ctx context.Context) ([]engine.Replica, error) {
	all, err := p.cfg.Replicas.Replicas(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the replicas: %w", err)
	}
	now := time.Now()
	var out []engine.Replica
	for _, r := range all {
		if r.ID != p.cfg.Self && r.Address != "" && Live(r, p.cfg.LeaseTTL, now) {
			out = append(out, r)
		}
	}
	return out, nil
}

// Live reports whether r beat less than ttl before now.
func Live(r engine.Replica, ttl time.Duration, now time.Time) bool {
	return now.Sub(r.Heartbeat) < ttl
}

// Correlate delivers m to the instances the live peers hold (their
// CorrelateHere), all at once, and returns how many took it. A peer that
// does not answer makes it fail (ErrUnavailable): the caller retries, and
// instances that took the message no longer wait for it.
func (p *Peers) Correlate(ctx context.Context, m engine.Message) (int, error) {
	return p.each(ctx, pathCorrelate, m)
}

// Signal delivers a signal to the instances the live peers hold (their
// SignalHere) and returns how many took it.
func (p *Peers) Signal(ctx context.Context, name string, vars map[string]any) (int, error) {
	return p.each(ctx, pathSignal, signalBody{Name: name, Variables: vars})
}

// each posts body to path on every live peer at once and adds up the
// counts they answer.
func (p *Peers) each(ctx context.Context, path string, body any) (int, error) {
	peers, err := p.live(ctx)
	if err != nil {
		return 0, err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
		errs  []error
	)
	for _, r := range peers {
		wg.Go(func() {
			var out countAnswer
			err := p.post(ctx, r, path, body, &out)
			mu.Lock()
			defer mu.Unlock()
			total += out.Count
			errs = append(errs, err)
		})
	}
	wg.Wait()
	return total, errors.Join(errs...)
}

// FetchAndLock locks up to max jobs of typ for worker on the live peers,
// one after the other until it has max: each peer locks only the jobs of
// the partitions it holds, so no job goes to two workers. A peer that does
// not answer is skipped (logged): its jobs wait for the next fetch.
func (p *Peers) FetchAndLock(ctx context.Context, typ, worker string, max int, lock time.Duration) []engine.ExternalJob {
	peers, err := p.live(ctx)
	if err != nil {
		p.cfg.Logger.Warn("fetch and lock: no peers asked", "err", err)
		return nil
	}
	var jobs []engine.ExternalJob
	for _, r := range peers {
		if len(jobs) >= max {
			break
		}
		var out struct {
			Items []engine.ExternalJob `json:"items"`
		}
		body := fetchBody{Type: typ, Worker: worker, Max: max - len(jobs), LockMs: lock.Milliseconds()}
		if err := p.post(ctx, r, pathFetchAndLock, body, &out); err != nil {
			p.cfg.Logger.Warn("fetch and lock: peer skipped", "replica_id", r.ID, "err", err)
			continue
		}
		jobs = append(jobs, out.Items...)
	}
	return jobs
}

// Bulk runs the part of a bulk operation whose items owner holds on owner
// (its internal bulk route, which runs them there and asks nobody else)
// and returns owner's answer.
func (p *Peers) Bulk(ctx context.Context, owner engine.Replica, order api.BulkOrder) (api.BulkResult, error) {
	var out api.BulkResult
	err := p.postWith(ctx, p.bulk, owner, pathBulk, bulkBody{BulkOrder: order, From: p.cfg.Self}, &out)
	return out, err
}

// post sends body to path on replica r and decodes its answer into out.
func (p *Peers) post(ctx context.Context, r engine.Replica, path string, body, out any) error {
	return p.postWith(ctx, p.client, r, path, body, out)
}

// postWith is post through client.
func (p *Peers) postWith(ctx context.Context, client *http.Client, r engine.Replica, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+r.Address+path, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("replica %s at %s: %w", r.ID, r.Address, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if p.cfg.Secret != "" {
		req.Header.Set(SecretHeader, p.cfg.Secret)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("replica %s at %s did not answer (%w): %w", r.ID, r.Address, err, engine.ErrUnavailable)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, answerLimit))
	if err != nil {
		return fmt.Errorf("replica %s at %s: reading its answer: %w: %w", r.ID, r.Address, err, engine.ErrUnavailable)
	}
	if resp.StatusCode != http.StatusOK {
		return peerError(r, resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("replica %s at %s answered %s: %w: %w", r.ID, r.Address, path, err, engine.ErrUnavailable)
	}
	return nil
}

// answerLimit bounds a peer's answer: 100 jobs with their variables at
// most (the API's own limits keep it far below).
const answerLimit = 256 << 20

// peerError is the error of a peer's answer with status: what the peer
// said, an ErrInvalidInput for a 400 (the same input fails here too), else
// an ErrUnavailable.
func peerError(r engine.Replica, status int, data []byte) error {
	var env api.Envelope
	msg := http.StatusText(status)
	if json.Unmarshal(data, &env) == nil && env.Error.Message != "" {
		msg = env.Error.Message
	}
	kind := engine.ErrUnavailable
	if status == http.StatusBadRequest {
		kind = engine.ErrInvalidInput
	}
	return fmt.Errorf("replica %s at %s answered %d: %s: %w", r.ID, r.Address, status, msg, kind)
}
