package live

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

const (
	// digestKeep is how long a change stays in this replica's digest after
	// it was committed. A poll that comes later than half of it after the
	// previous one queries the instances instead: the digests may have
	// dropped what it missed.
	digestKeep = pollOverlap
	// digestStale: a change older than this in another replica's digest is
	// not read. A replica gone leaves its last digest behind; once seen
	// forgot its instances (seenKeep), it would bring their events again.
	digestStale = seenKeep / 2
	// A replica publishes its digest every digestBeats PollIntervals (1 s)
	// when nothing changed. A digest not published again for digestSilence
	// beats means its replica is gone, maybe before it published its last
	// changes: the others then query the instances updated lately, once.
	digestBeats   = 2
	digestSilence = 3
)

// digestWatch is what a source knows of another replica's digests.
type digestWatch struct {
	published time.Time // the last publication read
	changed   time.Time // when this source read it first, by its own clock
	silent    bool      // not published again for digestSilence
}

// ownChange is an instance this replica committed lately. Its After moves
// up every digestKeep, to the sequence it had digestKeep before: a replica
// that does not know an instance busy for hours reads only its last
// seconds.
type ownChange struct {
	engine.DigestChange
	rolled  time.Time // when After last moved up
	prevSeq uint64    // Seq then: the next After
}

// noteOwn records the instances this replica's engine committed, for its
// digest. It runs on the engine's applier: no waiting.
func (r *ReplicaSource) noteOwn(evs []engine.Event) {
	now := time.Now()
	r.ownMu.Lock()
	defer r.ownMu.Unlock()
	for _, ev := range evs {
		if ev.Transient() || ev.InstanceID == "" {
			continue
		}
		ch, ok := r.own[ev.InstanceID]
		if !ok {
			after := ev.Seq - min(ev.Seq, 1)
			ch = ownChange{DigestChange: engine.DigestChange{InstanceID: ev.InstanceID, After: after}, rolled: now, prevSeq: after}
		}
		ch.Seq, ch.At = max(ch.Seq, ev.Seq), now
		if _, ok := ev.Task(); ok {
			ch.TaskSeq = max(ch.TaskSeq, ev.Seq)
		}
		r.own[ev.InstanceID] = ch
		r.ownDirty = true
	}
}

// publishLoop publishes this replica's digest every quarter PollInterval
// when it changed, and every digestBeats PollIntervals anyway, so that the
// others can tell a quiet replica from one gone; it removes the digests of
// replicas gone every seenKeep. While Redis carries the events it publishes
// on the beat only: a replica that does not reach Redis then still learns
// what this one did, a little later.
func (r *ReplicaSource) publishLoop(ctx context.Context) {
	t := time.NewTicker(r.cfg.PollInterval / 4)
	defer t.Stop()
	var lastPublished time.Time
	failing := false // warned that publishing fails: once per outage, not 8 times a second
	lastRemoval := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		d, changed := r.ownDigest(now)
		if (!changed || r.cfg.Fanout()) && now.Sub(lastPublished) < digestBeats*r.cfg.PollInterval {
			r.keepDirty(changed)
			continue
		}
		if err := r.publish(ctx, d); err != nil {
			if ctx.Err() == nil && !failing {
				r.cfg.Logger.Warn("live events: publishing this replica's change digest; the others get its events once it publishes again", "err", err)
			}
			failing = true
			continue
		}
		lastPublished, failing = now, false
		if now.Sub(lastRemoval) >= seenKeep {
			if err := r.removeDigests(ctx, now.Add(-seenKeep)); err != nil && ctx.Err() == nil {
				r.cfg.Logger.Warn("live events: removing the change digests of replicas gone", "err", err)
			}
			lastRemoval = now
		}
	}
}

// ownDigest forgets the changes older than digestKeep and returns the
// digest to publish, and whether it changed since the last publication.
func (r *ReplicaSource) ownDigest(now time.Time) (engine.ChangeDigest, bool) {
	r.ownMu.Lock()
	defer r.ownMu.Unlock()
	changes := make([]engine.DigestChange, 0, len(r.own))
	for id, ch := range r.own {
		switch {
		case now.Sub(ch.At) > digestKeep:
			delete(r.own, id)
			r.ownDirty = true
			continue
		case now.Sub(ch.rolled) > digestKeep:
			ch.After, ch.prevSeq, ch.rolled = ch.prevSeq, ch.Seq, now
			r.own[id] = ch
		}
		changes = append(changes, ch.DigestChange)
	}
	changed := r.ownDirty
	r.ownDirty = false
	slices.SortFunc(changes, func(a, b engine.DigestChange) int { return a.At.Compare(b.At) })
	return engine.ChangeDigest{Replica: r.cfg.Replica, Published: now, Changes: changes}, changed
}

// keepDirty notes again a change ownDigest reported but that was not
// published.
func (r *ReplicaSource) keepDirty(changed bool) {
	if changed {
		r.ownMu.Lock()
		r.ownDirty = true
		r.ownMu.Unlock()
	}
}

func (r *ReplicaSource) publish(ctx context.Context, d engine.ChangeDigest) error {
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	err := r.cfg.Digests.PublishDigest(ctx, d)
	r.keepDirty(err != nil) // the next round tries again
	return err
}

func (r *ReplicaSource) removeDigests(ctx context.Context, before time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	return r.cfg.Digests.RemoveDigests(ctx, before)
}

// pollDigests queues the events of the instances the other replicas'
// digests name that this source has not delivered. When a replica fell
// silent, what it did last may be in no digest: it returns when this source
// read that replica's last digest first, zero when none fell silent.
func (r *ReplicaSource) pollDigests(ctx context.Context, watch map[string]*digestWatch) (silentSince time.Time, err error) {
	qctx, cancel := context.WithTimeout(ctx, logTimeout)
	ds, err := r.cfg.Digests.Digests(qctx, r.cfg.Replica)
	cancel()
	if err != nil {
		return time.Time{}, fmt.Errorf("change digests: %w", err)
	}
	silent := func(w *digestWatch) {
		if !w.silent && (silentSince.IsZero() || w.changed.Before(silentSince)) {
			silentSince = w.changed
		}
		w.silent = true
	}
	now := time.Now()
	stale := now.Add(-digestStale)
	var found [][]engine.Event
	listed := make(map[string]bool, len(ds))
	for _, d := range ds {
		listed[d.Replica] = true
		switch w := watch[d.Replica]; {
		case w == nil || !w.published.Equal(d.Published):
			watch[d.Replica] = &digestWatch{published: d.Published, changed: now}
		case now.Sub(w.changed) > digestSilence*digestBeats*r.cfg.PollInterval:
			silent(w)
		}
		for _, ch := range d.Changes {
			if ch.At.Before(stale) {
				continue
			}
			evs, err := r.changeEvents(ctx, ch)
			if err != nil {
				return time.Time{}, err
			}
			if len(evs) > 0 {
				found = append(found, evs)
			}
		}
	}
	for id, w := range watch {
		if !listed[id] { // removed: silent for seenKeep
			silent(w)
			delete(watch, id)
		}
	}
	r.release(ctx, found)
	return silentSince, nil
}

// changeEvents returns the events of a digest's change that this source
// has not delivered (of an instance it does not know, those after the
// change's After), none when only task changes are wanted and the change
// has none.
func (r *ReplicaSource) changeEvents(ctx context.Context, ch engine.DigestChange) ([]engine.Event, error) {
	after, known := r.last(ch.InstanceID)
	if !known {
		after = ch.After
	}
	after = max(after, r.passedSeq(ch.InstanceID))
	if ch.Seq <= after {
		return nil, nil
	}
	if ch.TaskSeq <= after && !r.wantsAll() {
		r.pass(ch.InstanceID, ch.Seq)
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	evs, err := r.cfg.Log.Events(ctx, ch.InstanceID, after, 0)
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", ch.InstanceID, err)
	}
	return evs, nil
}
