package live

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// setPollFrom notes where the next poll starts reading.
func (r *ReplicaSource) setPollFrom(from time.Time) {
	r.seenMu.Lock()
	r.pollFrom = from
	r.seenMu.Unlock()
}

// pollLoop polls every PollInterval (while Redis carries the events,
// FanoutPollInterval without digests, and every digest beat with them). A poll reads the other replicas' change
// digests, or queries the instances updated since a little before the
// previous poll: without digests, at the first poll, when the digests may
// have dropped changes since the previous poll, and after a replica fell
// silent (then since a little before its last digest).
func (r *ReplicaSource) pollLoop(ctx context.Context) {
	from := time.Now().Add(-pollOverlap) // where a query starts reading
	r.setPollFrom(from)
	var lastPoll, lastQuery time.Time
	queryDue := true
	watch := map[string]*digestWatch{}
	t := time.NewTicker(r.cfg.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		started := time.Now()
		if r.cfg.Digests == nil && r.cfg.Fanout() && started.Sub(lastQuery) < r.cfg.FanoutPollInterval {
			continue
		}
		// While Redis brings the events, digests are read on their beat
		// (they are published on it): a safety net for what Redis lost.
		if r.cfg.Digests != nil && !queryDue && r.cfg.Fanout() && started.Sub(lastPoll) < digestBeats*r.cfg.PollInterval-r.cfg.PollInterval/2 {
			continue
		}
		query := r.cfg.Digests == nil || queryDue || started.Sub(lastPoll) > digestKeep/2
		var (
			silentSince time.Time
			err         error
		)
		if query {
			err = r.poll(ctx, from)
		} else {
			silentSince, err = r.pollDigests(ctx, watch)
		}
		if err != nil {
			if ctx.Err() == nil {
				r.cfg.Logger.Warn("live events: polling the log for other replicas' events", "err", err)
			}
			continue // the next poll covers this window too
		}
		lastPoll, from, queryDue = started, started.Add(-pollOverlap), false
		if query {
			lastQuery = started
		}
		if !silentSince.IsZero() {
			from, queryDue = silentSince.Add(-pollOverlap), true // before started
		}
		r.setPollFrom(from)
	}
}

// poll queues the events of the instances changed after from that this
// source has not delivered.
func (r *ReplicaSource) poll(ctx context.Context, from time.Time) error {
	f := engine.InstanceFilter{UpdatedAfter: from, Limit: pollPage}
	var found [][]engine.Event
	for {
		qctx, cancel := context.WithTimeout(ctx, logTimeout)
		page, next, err := r.cfg.Log.Instances(qctx, f)
		cancel()
		if err != nil {
			return fmt.Errorf("instances updated after %s: %w", from.Format(time.RFC3339Nano), err)
		}
		for _, h := range page {
			evs, err := r.pollInstance(ctx, h, from)
			if err != nil {
				return err
			}
			if len(evs) > 0 {
				found = append(found, evs)
			}
		}
		if next == "" {
			r.release(ctx, found)
			return nil
		}
		f.Cursor = next
	}
}

// release hands the events of one poll to the worker, pollChunk at a time,
// spread over half the poll interval: all at once, a second's events of a
// busy definition would fill the send buffers of the clients following it,
// and the hub would disconnect them as too slow.
func (r *ReplicaSource) release(ctx context.Context, found [][]engine.Event) {
	total := 0
	for _, evs := range found {
		total += len(evs)
	}
	pause := time.Duration(0)
	if chunks := total / pollChunk; chunks > 1 {
		pause = r.cfg.PollInterval / 2 / time.Duration(chunks)
	}
	n := 0
	for _, evs := range found {
		r.enqueue(evs)
		if n += len(evs); n < pollChunk || pause == 0 {
			continue
		}
		n = 0
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
	}
}

// pollInstance returns the events of the instance whose head is h that
// this source has not delivered, as far as the log holds them.
func (r *ReplicaSource) pollInstance(ctx context.Context, h *engine.Snapshot, from time.Time) ([]engine.Event, error) {
	last, known := r.last(h.ID)
	if h.Seq <= max(last, r.passedSeq(h.ID)) {
		return nil, nil
	}
	after, window := last, false
	if !known && h.Started.Before(from) { // started before the window: only its tail is new
		after, window = h.Seq-min(h.Seq, pollTail), true
	}
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	evs, err := r.cfg.Log.Events(ctx, h.ID, after, 0)
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", h.ID, err)
	}
	if window {
		evs = slices.DeleteFunc(evs, func(e engine.Event) bool { return !e.Time.After(from) })
	}
	return evs, nil
}
