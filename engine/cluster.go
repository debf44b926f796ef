package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"time"
)

// LeaseTTLDefault is how long a partition lease lasts unrenewed when
// ClusterConfig.LeaseTTL is zero.
const LeaseTTLDefault = 10 * time.Second

// leaseCallTimeout bounds one call to the lease store, so that a store that
// hangs cannot hold the lease manager past the leases it must renew.
const leaseCallTimeout = 5 * time.Second

// cluster is the lease manager of a replica (Config.Cluster): it beats,
// takes and renews its share of the partitions, hands back extras, and
// drops the partitions it loses. A partition's applier applies commands
// only while it holds the partition's lease (partition.epoch).
type cluster struct {
	e      *Engine
	cfg    ClusterConfig
	leases LeaseStore

	started time.Time // when this replica began (Replica.Started)

	mu   sync.Mutex
	held map[int]PartitionLease // the leases this replica holds, by partition
	// nextExpiry is when the first lease another replica holds runs out
	// unless renewed, as the last round read it: the manager's next round
	// comes then if that is before TTL/3, so a dead replica's partitions
	// are taken as soon as they are free (zero: none).
	nextExpiry time.Time

	// loading runs the loads of partitions taken, one partition after the
	// other (loadMu), apart from the manager: a large partition's load must
	// not delay the renewals of the others.
	loading sync.WaitGroup
	loadMu  sync.Mutex

	stop      chan struct{} // closed by close: the manager ends
	closeOnce sync.Once
	done      chan struct{} // closed when the manager ended
}

// newCluster checks cfg and fills in its defaults.
func newCluster(e *Engine, cfg ClusterConfig) (*cluster, error) {
	if cfg.ReplicaID == "" {
		return nil, errors.New("engine config: Cluster.ReplicaID is required (unique among the replicas of a store)")
	}
	cfg.Partitions = cmp.Or(cfg.Partitions, ClusterPartitionsDefault)
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, LeaseTTLDefault)
	if cfg.Partitions < 1 || cfg.LeaseTTL < 0 {
		return nil, fmt.Errorf("engine config: Cluster.Partitions must be at least 1 and LeaseTTL positive, got %d and %s", cfg.Partitions, cfg.LeaseTTL)
	}
	if cfg.Leases == nil {
		ls, ok := e.store.(LeaseStore)
		if !ok {
			return nil, fmt.Errorf("engine config: Cluster needs a store that shares partition leases (LeaseStore); %T does not", e.store)
		}
		cfg.Leases = ls
	}
	return &cluster{e: e, cfg: cfg, leases: cfg.Leases, held: map[int]PartitionLease{}, stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// start beats once and takes this replica's first share of the partitions,
// loading their instances, then keeps doing so every LeaseTTL/3 until close.
// A replica thus holds partitions as soon as Run returns, unless others hold
// them all.
func (c *cluster) start(ctx context.Context) error {
	c.started = c.e.clock.Now()
	err := c.tick(ctx)
	c.loading.Wait()
	if err != nil {
		close(c.done)
		return fmt.Errorf("taking partitions: %w", err)
	}
	go c.run()
	return nil
}

func (c *cluster) run() {
	defer close(c.done)
	wake := make(chan struct{}, 1)
	for {
		t := c.e.clock.AfterFunc(c.untilNextRound(), func() { wake <- struct{}{} })
		select {
		case <-c.stop:
			t.Stop()
			return
		case <-wake:
		}
		if err := c.tick(c.e.ctx); err != nil {
			c.e.cfg.Logger.Warn("lease round failed; leases not renewed in time are dropped", "replica", c.cfg.ReplicaID, "err", err)
		}
	}
}

// untilNextRound is how long the manager waits for its next round: TTL/3,
// or less when another replica's lease runs out sooner (a live replica
// renews its leases long before; a dead one's are then free at once).
func (c *cluster) untilNextRound() time.Duration {
	wait := c.cfg.LeaseTTL / 3
	c.mu.Lock()
	next := c.nextExpiry
	c.mu.Unlock()
	if !next.IsZero() {
		// A little past the expiry: the store compares with its own reading.
		wait = min(wait, max(next.Sub(c.e.clock.Now())+expiryMargin, expiryMargin))
	}
	return wait
}

// expiryMargin is how long after another replica's lease runs out a round
// tries to take it.
const expiryMargin = 50 * time.Millisecond

// tick is one round of the manager: beat, renew, hand back, take.
func (c *cluster) tick(ctx context.Context) error {
	now := c.e.clock.Now()
	lctx, cancel := context.WithTimeout(ctx, leaseCallTimeout)
	defer cancel()
	self := Replica{ID: c.cfg.ReplicaID, Address: c.cfg.Address, Started: c.started, Heartbeat: now, Machine: c.cfg.Machine}
	if c.cfg.EventLag != nil {
		self.EventLagMs = c.cfg.EventLag().Milliseconds()
	}
	if c.cfg.CPUs != nil {
		self.CPUs = c.cfg.CPUs()
	}
	if err := c.leases.Heartbeat(lctx, self); err != nil {
		c.renew(ctx, false)
		return fmt.Errorf("heartbeat: %w", err)
	}
	c.renew(ctx, true)
	replicas, err := c.leases.Replicas(lctx)
	if err != nil {
		return fmt.Errorf("reading replicas: %w", err)
	}
	leases, err := c.leases.Partitions(lctx)
	if err != nil {
		return fmt.Errorf("reading partition leases: %w", err)
	}
	live := map[string]int{c.cfg.ReplicaID: 0} // live replica → partitions it holds
	neighbours := 1                            // live replicas on this machine
	for _, r := range replicas {
		if now.Sub(r.Heartbeat) < c.cfg.LeaseTTL {
			live[r.ID] = 0
			if r.ID != c.cfg.ReplicaID && r.Machine != "" && r.Machine == c.cfg.Machine {
				neighbours++
			}
		}
	}
	if c.cfg.Neighbours != nil {
		c.cfg.Neighbours(neighbours)
	}
	byPartition := map[int]PartitionLease{}
	var nextExpiry time.Time
	for _, l := range leases {
		byPartition[l.Partition] = l
		if _, ok := live[l.Owner]; ok && now.Before(l.Expires) {
			live[l.Owner]++
		}
		if l.Owner != "" && l.Owner != c.cfg.ReplicaID && now.Before(l.Expires) && (nextExpiry.IsZero() || l.Expires.Before(nextExpiry)) {
			nextExpiry = l.Expires
		}
	}
	c.mu.Lock()
	c.nextExpiry = nextExpiry
	c.mu.Unlock()
	share := (c.cfg.Partitions + len(live) - 1) / len(live)
	mine := c.heldIDs()
	if extra := len(mine) - share; extra > 0 && someoneBelow(live, c.cfg.ReplicaID, share) {
		c.handBack(ctx, mine[len(mine)-extra:])
		return nil
	}
	// Free partitions are tried from an offset of this replica's own, so
	// replicas starting together mostly try different ones.
	first := PartitionOf(c.cfg.ReplicaID, c.cfg.Partitions)
	var taken []takenPartition
	for i := range c.cfg.Partitions {
		if len(c.heldIDs()) >= share {
			break
		}
		p := (first + i) % c.cfg.Partitions
		if l, ok := byPartition[p]; ok && l.Owner != "" && now.Before(l.Expires) {
			continue // held by a replica, maybe this one
		}
		part, unfinished, err := c.acquire(ctx, p, c.e.clock.Now())
		if err != nil {
			c.e.cfg.Logger.Warn("taking a partition failed", "partition", p, "err", err)
		}
		if part != nil {
			taken = append(taken, takenPartition{part, unfinished})
		}
	}
	if len(taken) > 0 {
		c.loading.Add(1)
		go func() {
			defer c.loading.Done()
			c.loadMu.Lock()
			defer c.loadMu.Unlock()
			for _, t := range taken {
				if err := c.load(c.e.ctx, t.p, t.unfinished); err != nil {
					c.e.cfg.Logger.Warn("loading a partition's instances failed; they load as commands reach them", "partition", t.p.id, "err", err)
				}
			}
		}()
	}
	return nil
}

// someoneBelow reports whether a live replica other than self holds fewer
// partitions than its share: self then hands its extras to it.
func someoneBelow(live map[string]int, self string, share int) bool {
	for id, n := range live {
		if id != self && n < share {
			return true
		}
	}
	return false
}

// renew extends the leases held; one the store refuses (another replica
// took it) or whose time ran out without a renewal is dropped. With
// reachable false (the heartbeat failed) it only drops the expired ones.
// Each lease is renewed from the time of its call: a slow store makes a
// round long.
func (c *cluster) renew(ctx context.Context, reachable bool) {
	for _, l := range c.heldLeases() {
		now := c.e.clock.Now()
		if reachable {
			lctx, cancel := context.WithTimeout(ctx, leaseCallTimeout)
			nl, err := c.leases.RenewPartition(lctx, l, now, c.cfg.LeaseTTL)
			cancel()
			if err == nil {
				c.mu.Lock()
				if cur, ok := c.held[l.Partition]; ok && cur.Epoch == l.Epoch {
					c.held[l.Partition] = nl
					c.e.partitions[l.Partition].fresh.Store(c.freshUntil(l.Epoch, now))
				}
				c.mu.Unlock()
				continue
			}
			if errors.Is(err, ErrFenced) {
				c.e.cfg.Logger.Warn("partition lease taken by another replica", "partition", l.Partition, "epoch", l.Epoch)
				c.lose(l)
				continue
			}
		}
		// Dropped before it expires when the next round would come too
		// late, so that no other replica takes it while this one applies.
		if !now.Add(c.cfg.LeaseTTL / 3).Before(l.Expires) {
			c.e.cfg.Logger.Warn("partition lease not renewed in time: dropped", "partition", l.Partition, "epoch", l.Epoch)
			c.lose(l)
		}
	}
}

// takenPartition is a partition just taken, with its unfinished instances
// as they were stored when it was taken, to be loaded.
type takenPartition struct {
	p          *partition
	unfinished []*Snapshot
}

// acquire takes partition p if it is free and fences the instances the
// last owner wrote; it returns the partition's applier if it took it, with
// the unfinished instances to load.
//
// It reads them (UnfinishedIn, which also completes the last owner's
// half-done commits from the snapshots' redos) before the partition
// applies any command: a command loads its instance by id, without the
// redo, and its commit would replace the redo for good (a gap in the log);
// and a redo written once commands apply may overwrite their newer task
// projections (a completed task open again).
func (c *cluster) acquire(ctx context.Context, p int, now time.Time) (*partition, []*Snapshot, error) {
	lctx, cancel := context.WithTimeout(ctx, leaseCallTimeout)
	defer cancel()
	l, ok, err := c.leases.AcquirePartition(lctx, p, c.cfg.ReplicaID, now, c.cfg.LeaseTTL)
	if err != nil || !ok {
		return nil, nil, err
	}
	if err := c.leases.FencePartition(lctx, p, l.Epoch); err != nil {
		_ = c.leases.ReleasePartition(lctx, l) // let another replica try
		return nil, nil, fmt.Errorf("fencing: %w", err)
	}
	var unfinished []*Snapshot
	rctx, rcancel := context.WithTimeout(ctx, loadTimeout)
	err = c.leases.UnfinishedIn(rctx, p, func(s *Snapshot) error {
		unfinished = append(unfinished, s)
		return nil
	})
	rcancel()
	if err != nil {
		_ = c.leases.ReleasePartition(lctx, l)
		return nil, nil, fmt.Errorf("reading its unfinished instances: %w", err)
	}
	c.mu.Lock()
	c.held[p] = l
	c.mu.Unlock()
	part := c.e.partitions[p]
	part.fresh.Store(c.freshUntil(l.Epoch, now))
	part.epoch.Store(l.Epoch)
	return part, unfinished, nil
}

// leaseFresh is a partition's lease at epoch, written at a time no other
// replica can take it before until (Batch.LeaseFresh).
type leaseFresh struct {
	epoch int64
	until time.Time
}

// freshUntil: another replica takes a lease only once it has expired, a
// TTL after it was written, by its own clock. Half the TTL leaves the
// other half for the clocks to differ (docs/scale-out.md).
func (c *cluster) freshUntil(epoch int64, written time.Time) *leaseFresh {
	return &leaseFresh{epoch: epoch, until: written.Add(c.cfg.LeaseTTL / 2)}
}

// load brings the unfinished instances of a partition just taken (as
// acquire read them) into its applier, as recovery does after a restart.
func (c *cluster) load(ctx context.Context, p *partition, unfinished []*Snapshot) error {
	e := c.e
	epoch := p.epoch.Load()
	e.limits.beginRecovery()
	defer e.limits.endRecovery()
	for _, s := range unfinished {
		if p.epoch.Load() != epoch { // lost (and maybe taken again, with a load of its own)
			return e.notOwner(ctx, p.id)
		}
		if e.partitionOf(s.ID) != p { // stored with another partition count, or before partitions were stored
			e.cfg.Logger.Warn("instance stored in the wrong partition: it runs when a command reaches it, its timers do not",
				"instance_id", s.ID, "stored_partition", s.Partition, "partition", e.partitionOf(s.ID).id)
			continue
		}
		if waitsForItsTrigger(ctx, e, s) {
			continue
		}
		e.recoverLimits(ctx, s)
		// Without the snapshot: a command may reach the instance before its
		// load does (the partition applies commands from the moment it is
		// taken), so the load reads the latest state, not s.
		if err := e.submit(ctx, command{kind: cmdLoad, inst: s.ID}); err != nil {
			return err
		}
	}
	return nil
}

// lose stops applying l's partition at once and has its applier drop what
// it holds of it, unless the partition was taken again meanwhile.
func (c *cluster) lose(l PartitionLease) {
	c.mu.Lock()
	if cur, ok := c.held[l.Partition]; !ok || cur.Epoch != l.Epoch {
		c.mu.Unlock()
		return
	}
	delete(c.held, l.Partition)
	c.mu.Unlock()
	p := c.e.partitions[l.Partition]
	p.fresh.Store(nil)
	if p.epoch.CompareAndSwap(l.Epoch, 0) {
		p.ctl <- p.drop
	}
}

// fenced is a commit of partition p at epoch refused: another replica holds
// it. It runs on p's applier, which drops the partition right away.
func (c *cluster) fenced(p *partition, epoch int64) {
	c.mu.Lock()
	if cur, ok := c.held[p.id]; ok && cur.Epoch == epoch {
		delete(c.held, p.id)
	}
	c.mu.Unlock()
	p.fresh.Store(nil)
	if p.epoch.CompareAndSwap(epoch, 0) {
		p.drop()
	}
}

// refusedNew is a new instance the store refused (ErrFenced: nothing of it
// is stored) as its partition is another replica's now: this replica drops
// the partition, not to place more starts there until its renewal finds
// out, and the start goes to the new owner (a NotOwnerError).
func (c *cluster) refusedNew(ctx context.Context, snap *Snapshot) error {
	c.mu.Lock()
	l, ok := c.held[snap.Partition]
	c.mu.Unlock()
	if ok && l.Epoch == snap.Epoch {
		c.e.cfg.Logger.Warn("partition lease taken by another replica", "partition", l.Partition, "epoch", l.Epoch)
		c.lose(l)
	}
	return c.e.notOwner(ctx, snap.Partition)
}

// handBack releases partitions (over this replica's share, or all at
// close) so that other replicas take them at once.
func (c *cluster) handBack(ctx context.Context, ids []int) {
	for _, id := range ids {
		c.mu.Lock()
		l, ok := c.held[id]
		c.mu.Unlock()
		if !ok {
			continue
		}
		c.lose(l)
		lctx, cancel := context.WithTimeout(ctx, leaseCallTimeout)
		if err := c.leases.ReleasePartition(lctx, l); err != nil && !errors.Is(err, ErrFenced) {
			c.e.cfg.Logger.Warn("handing back a partition failed; it frees when its lease expires", "partition", id, "err", err)
		}
		cancel()
	}
}

// close stops the manager, hands back every partition and leaves the
// replica list: the other replicas take the partitions at once. A second
// caller (Engine.Close from the Run context's end and from the owner's
// shutdown, at once) returns only when the first is done, so that nobody
// closes the store under the hand-back.
func (c *cluster) close() {
	c.closeOnce.Do(func() {
		close(c.stop)
		<-c.done
		ctx := context.Background()
		c.handBack(ctx, c.heldIDs())
		c.loading.Wait() // loads end once their partitions are no longer held
		lctx, cancel := context.WithTimeout(ctx, leaseCallTimeout)
		defer cancel()
		if err := c.leases.RemoveReplica(lctx, c.cfg.ReplicaID); err != nil {
			c.e.cfg.Logger.Warn("leaving the replica list failed; the others see this replica die", "replica", c.cfg.ReplicaID, "err", err)
		}
	})
}

func (c *cluster) heldLeases() []PartitionLease {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]PartitionLease, 0, len(c.held))
	for _, l := range c.held {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b PartitionLease) int { return cmp.Compare(a.Partition, b.Partition) })
	return out
}

func (c *cluster) heldIDs() []int {
	ls := c.heldLeases()
	ids := make([]int, len(ls))
	for i, l := range ls {
		ids[i] = l.Partition
	}
	return ids
}

// notOwner is the error for a command on partition p, which this replica
// does not hold: it names the owner and where it answers, as the store
// has them.
func (e *Engine) notOwner(ctx context.Context, p int) error {
	err := &NotOwnerError{Partition: p}
	ctx, cancel := context.WithTimeout(ctx, leaseCallTimeout)
	defer cancel()
	leases, lerr := e.cluster.leases.Partitions(ctx)
	if lerr != nil {
		return err
	}
	now := e.clock.Now()
	for _, l := range leases {
		// This replica as the owner is one that lost the lease but whose
		// time has not run out in the store: nobody answers for now.
		if l.Partition == p && l.Owner != "" && l.Owner != e.cluster.cfg.ReplicaID && now.Before(l.Expires) {
			err.Owner = l.Owner
		}
	}
	if err.Owner == "" {
		return err
	}
	replicas, rerr := e.cluster.leases.Replicas(ctx)
	if rerr == nil {
		for _, r := range replicas {
			if r.ID == err.Owner {
				err.Address = r.Address
			}
		}
	}
	return err
}

// isNotOwner reports a NotOwnerError: a subscription found in the index
// whose partition was lost meanwhile, which its new owner serves.
func isNotOwner(err error) bool {
	var no *NotOwnerError
	return errors.As(err, &no)
}

// owns returns a NotOwnerError when this replica does not hold the
// partition of an instance, nil when it does (always without Cluster).
func (e *Engine) owns(ctx context.Context, instanceID string) error {
	if e.cluster == nil {
		return nil
	}
	p := e.partitionOf(instanceID)
	if p.epoch.Load() == 0 {
		return e.notOwner(ctx, p.id)
	}
	return nil
}

// ownsJob is owns for the instance of an external job's key.
func (e *Engine) ownsJob(ctx context.Context, key string) error {
	i := strings.LastIndexByte(key, ':') // externalKey: instance id, job number
	if i < 0 {
		return nil // not a job key: the lookup reports it
	}
	return e.owns(ctx, key[:i])
}

// placeNew stamps a new instance with its partition (Snapshot.Partition:
// the cluster's, or among the default count alone) and, in a cluster, the
// epoch its partition is held at: a store refuses to create it once
// another replica took the partition (an idempotent start stores it
// before the first commit).
func (e *Engine) placeNew(s *Snapshot) {
	if e.cluster == nil {
		s.Partition = PartitionOf(s.ID, ClusterPartitionsDefault)
		return
	}
	p := e.partitionOf(s.ID)
	s.Partition, s.Epoch = p.id, p.epoch.Load()
}

// newInstanceID makes the id of a new instance: in a cluster, one that
// lands in a partition this replica holds.
func (e *Engine) newInstanceID(ctx context.Context) (string, error) {
	if e.cluster == nil {
		return newID(), nil
	}
	if id, ok := e.idWhere(func(p *partition) bool { return p.epoch.Load() != 0 }); ok {
		return id, nil
	}
	return "", e.notOwner(ctx, PartitionOf(newID(), len(e.partitions)))
}

// idWhere makes a new id whose partition satisfies ok, if one does. The
// last two hex digits of a UUIDv7 are random: trying the 256 values there
// keeps the id a valid, unique-enough v7 and costs no new random bits.
func (e *Engine) idWhere(ok func(*partition) bool) (string, bool) {
	const digits = "0123456789abcdef"
	for range 4 {
		b := []byte(newID())
		for _, d1 := range []byte(digits) {
			for _, d2 := range []byte(digits) {
				b[len(b)-2], b[len(b)-1] = d1, d2
				if ok(e.partitions[e.partitionIndex(b)]) {
					return string(b), true
				}
			}
		}
	}
	return "", false
}

// partitionIndex is partitionOf by index, for an id as bytes.
func (e *Engine) partitionIndex(id []byte) uint64 {
	n := uint64(len(e.partitions))
	if e.cluster == nil {
		return maphash.Bytes(e.seed, id) % n
	}
	h := uint64(14695981039346656037) // FNV-1a, PartitionOf's hash, without a hasher per try
	for _, c := range id {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h % n
}

// ClusterState is what this replica knows of the cluster. Without Cluster
// it holds every partition alone.
func (e *Engine) ClusterState(ctx context.Context) (ClusterState, error) {
	if e.cluster == nil {
		held := make([]int, ClusterPartitionsDefault)
		for i := range held {
			held[i] = i
		}
		st := ClusterState{Partitions: ClusterPartitionsDefault, Held: held}
		if ls, ok := e.store.(LeaseStore); ok {
			var err error
			if st.Unfinished, err = ls.UnfinishedCounts(ctx); err != nil {
				return ClusterState{}, fmt.Errorf("counting unfinished instances: %w", err)
			}
		}
		return st, nil
	}
	c := e.cluster
	replicas, err := c.leases.Replicas(ctx)
	if err != nil {
		return ClusterState{}, fmt.Errorf("reading replicas: %w", err)
	}
	leases, err := c.leases.Partitions(ctx)
	if err != nil {
		return ClusterState{}, fmt.Errorf("reading partition leases: %w", err)
	}
	unfinished, err := c.leases.UnfinishedCounts(ctx)
	if err != nil {
		return ClusterState{}, fmt.Errorf("counting unfinished instances: %w", err)
	}
	return ClusterState{Self: c.cfg.ReplicaID, Partitions: c.cfg.Partitions, Replicas: replicas, Leases: leases, Held: c.heldIDs(), Unfinished: unfinished}, nil
}
