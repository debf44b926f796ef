package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// The lease side of engine.LeaseStore: one process holds a memstore, so
// nothing here is ever contended across processes, but it keeps the same
// rules as mongostore, so the conformance suite holds for both.

var _ engine.LeaseStore = (*Store)(nil)

func (s *Store) Heartbeat(_ context.Context, r engine.Replica) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replicas[r.ID] = r
	return nil
}

func (s *Store) Replicas(context.Context) ([]engine.Replica, error) {
	s.mu.RLock()
	out := slices.Collect(maps.Values(s.replicas))
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b engine.Replica) int {
		return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

func (s *Store) RemoveReplica(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.replicas, id)
	return nil
}

func (s *Store) AcquirePartition(_ context.Context, p int, owner string, now time.Time, ttl time.Duration) (engine.PartitionLease, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, taken := s.leases[p]
	switch {
	case l.Held(owner, now): // a renewal
	case taken && now.Before(l.Expires):
		return l, false, nil
	default: // never taken, released or expired: a new tenure
		l = engine.PartitionLease{Partition: p, Owner: owner, Epoch: l.Epoch + 1}
	}
	l.Expires = now.Add(ttl)
	s.leases[p] = l
	return l, true, nil
}

func (s *Store) RenewPartition(_ context.Context, l engine.PartitionLease, now time.Time, ttl time.Duration) (engine.PartitionLease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.leases[l.Partition]
	if !ok || cur.Owner != l.Owner || cur.Epoch != l.Epoch {
		return cur, fmt.Errorf("renewing partition %d for %s at epoch %d: %w", l.Partition, l.Owner, l.Epoch, engine.ErrFenced)
	}
	cur.Expires = now.Add(ttl)
	s.leases[l.Partition] = cur
	return cur, nil
}

func (s *Store) ReleasePartition(_ context.Context, l engine.PartitionLease) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.leases[l.Partition]; ok && cur.Owner == l.Owner && cur.Epoch == l.Epoch {
		s.leases[l.Partition] = released(cur)
	}
	return nil
}

// released is a lease handed back: no owner, expired for any now, so the
// next AcquirePartition takes it (at a higher epoch) and a late renewal of
// the old tenure is fenced.
func released(l engine.PartitionLease) engine.PartitionLease {
	l.Owner, l.Expires = "", time.Time{}
	return l
}

func (s *Store) Partitions(context.Context) ([]engine.PartitionLease, error) {
	s.mu.RLock()
	out := slices.Collect(maps.Values(s.leases))
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b engine.PartitionLease) int { return cmp.Compare(a.Partition, b.Partition) })
	return out, nil
}

func (s *Store) FencePartition(_ context.Context, p int, epoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, snap := range s.instances {
		if snap.Partition == p && !snap.Status.Done() && snap.Epoch < epoch {
			c := clone(snap) // readers may hold snap
			c.Epoch = epoch
			s.instances[id] = c
		}
	}
	return s.parked.all(func(snap *engine.Snapshot, _ []engine.Task) { // parked instances wait: none is done
		if snap.Partition == p {
			s.parked.fence(snap.ID, epoch)
		}
	})
}

func (s *Store) UnfinishedCounts(context.Context) (map[int]int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	counts := map[int]int{}
	for _, snap := range s.instances {
		if !snap.Status.Done() {
			counts[snap.Partition]++
		}
	}
	err := s.parked.all(func(snap *engine.Snapshot, _ []engine.Task) { counts[snap.Partition]++ })
	return counts, err
}

// UnfinishedIn leaves out, as mongostore does, the instances below the
// epoch of the partition's lease: stored after its fence, they are their
// writer's to withdraw. (Here none are: a new instance is checked against
// its partition's lease as it is stored, under the same lock.)
func (s *Store) UnfinishedIn(_ context.Context, p int, fn func(*engine.Snapshot) error) error {
	s.mu.RLock()
	epoch := s.leases[p].Epoch
	var list []*engine.Snapshot
	for _, snap := range s.instances {
		if snap.Partition == p && !snap.Status.Done() && snap.Epoch >= epoch {
			list = append(list, clone(snap))
		}
	}
	err := s.parked.all(func(snap *engine.Snapshot, _ []engine.Task) {
		if snap.Partition == p && snap.Epoch >= epoch {
			list = append(list, snap)
		}
	})
	s.mu.RUnlock()
	if err != nil {
		return err
	}
	slices.SortFunc(list, func(a, b *engine.Snapshot) int { return cmp.Compare(a.ID, b.ID) }) // ids sort by creation
	for _, snap := range list {
		if err := fn(snap); err != nil {
			return err
		}
	}
	return nil
}

// fenced refuses change c of a batch at epoch (0: not fenced) when its
// instance, stored at stored (when held), or, for a new instance, its
// partition's lease is at a newer epoch: another replica took the partition.
func (s *Store) fenced(epoch int64, c engine.Change, stored int64, held bool) error {
	if epoch == 0 {
		return nil
	}
	if held && stored > epoch {
		return fmt.Errorf("instance %s is at epoch %d, the commit at %d: %w", c.Snapshot.ID, stored, epoch, engine.ErrFenced)
	}
	if c.Create {
		return s.fencedNew(c.Snapshot, epoch)
	}
	return nil
}

// fencedNew refuses a new instance written at epoch (0: not fenced) when
// its partition's lease is at a newer one: FencePartition stamped the
// instances stored when the lease changed hands, not those created after.
func (s *Store) fencedNew(snap *engine.Snapshot, epoch int64) error {
	if l, ok := s.leases[snap.Partition]; epoch != 0 && ok && l.Epoch > epoch {
		return fmt.Errorf("new instance %s: partition %d is at epoch %d, the write at %d: %w",
			snap.ID, l.Partition, l.Epoch, epoch, engine.ErrFenced)
	}
	return nil
}
