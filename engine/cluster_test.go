package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// steal gives partition p to owner as a replica that took it over after
// its lease ran out would (as the store sees it two hours on): a new epoch,
// its instances fenced.
func steal(t *testing.T, st *memstore.Store, p int, owner, address string) {
	t.Helper()
	ctx, later := context.Background(), time.Now().Add(2*time.Hour)
	require.NoError(t, st.Heartbeat(ctx, engine.Replica{ID: owner, Address: address, Started: time.Now(), Heartbeat: time.Now()}))
	l, ok, err := st.AcquirePartition(ctx, p, owner, later, time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, st.FencePartition(ctx, p, l.Epoch))
}

var errUnreachable = errors.New("lease store unreachable")

// replicaLeases is one replica's way to the shared leases; cutting it
// makes the replica look dead to the others: it neither beats, renews nor
// hands back.
type replicaLeases struct {
	engine.LeaseStore
	cut atomic.Bool
}

func (r *replicaLeases) Heartbeat(ctx context.Context, rep engine.Replica) error {
	if r.cut.Load() {
		return errUnreachable
	}
	return r.LeaseStore.Heartbeat(ctx, rep)
}

func (r *replicaLeases) AcquirePartition(ctx context.Context, p int, owner string, now time.Time, ttl time.Duration) (engine.PartitionLease, bool, error) {
	if r.cut.Load() {
		return engine.PartitionLease{}, false, errUnreachable
	}
	return r.LeaseStore.AcquirePartition(ctx, p, owner, now, ttl)
}

func (r *replicaLeases) RenewPartition(ctx context.Context, l engine.PartitionLease, now time.Time, ttl time.Duration) (engine.PartitionLease, error) {
	if r.cut.Load() {
		return l, errUnreachable
	}
	return r.LeaseStore.RenewPartition(ctx, l, now, ttl)
}

func (r *replicaLeases) ReleasePartition(ctx context.Context, l engine.PartitionLease) error {
	if r.cut.Load() {
		return errUnreachable
	}
	return r.LeaseStore.ReleasePartition(ctx, l)
}

func (r *replicaLeases) RemoveReplica(ctx context.Context, id string) error {
	if r.cut.Load() {
		return errUnreachable
	}
	return r.LeaseStore.RemoveReplica(ctx, id)
}

// leaseTTL is the lease time of the replicas in these tests: short, so
// that a dead replica's partitions move soon, and long enough that a busy
// machine renews in time.
const leaseTTL = time.Second

// replica is one engine of a cluster test, on the real clock.
type replica struct {
	id     string
	e      *engine.Engine
	leases *replicaLeases
	log    *eventLog
}

func startReplica(t *testing.T, st *memstore.Store, id string, ttl time.Duration, opts ...option) *replica {
	t.Helper()
	r := &replica{id: id, leases: &replicaLeases{LeaseStore: st}, log: &eventLog{byInstance: map[string][]engine.Event{}}}
	cfg := engine.Config{
		Store: st, Clock: engine.RealClock{}, NodeWorkers: 2, Exporter: r.log,
		Cluster: &engine.ClusterConfig{ReplicaID: id, Address: id + ".local:8080", LeaseTTL: ttl, Leases: r.leases},
	}
	for _, o := range opts {
		o(&cfg)
	}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	require.NoError(t, e.Run(context.Background()))
	t.Cleanup(e.Close)
	r.e = e
	return r
}

func (r *replica) held(t *testing.T) []int {
	t.Helper()
	cs, err := r.e.ClusterState(context.Background())
	require.NoError(t, err)
	return cs.Held
}

// eventually waits until cond holds, failing the test after 15 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 15*time.Second, 10*time.Millisecond, what)
}

// waitSpread waits until the replicas hold every partition between them,
// each its fair share.
func waitSpread(t *testing.T, rs ...*replica) {
	t.Helper()
	share := (engine.ClusterPartitionsDefault + len(rs) - 1) / len(rs)
	eventually(t, "the partitions spread over the replicas", func() bool {
		total := 0
		for _, r := range rs {
			n := len(r.held(t))
			if n < share-1 || n > share {
				return false
			}
			total += n
		}
		return total == engine.ClusterPartitionsDefault
	})
}

const clusterWaiter = `<process id="waiter" isExecutable="true">
    <startEvent id="s"/><userTask id="wait"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process>`

func deployOn(t *testing.T, r *replica, src []byte) {
	t.Helper()
	_, _, err := r.e.Deploy(context.Background(), engine.DeployRequest{Source: src})
	require.NoError(t, err)
}

func startReplicaInstance(t *testing.T, r *replica, key string) *engine.Snapshot {
	t.Helper()
	snap, created, err := r.e.Start(context.Background(), engine.StartRequest{Definition: key})
	require.NoError(t, err)
	require.True(t, created)
	return snap
}

func openTaskOf(t *testing.T, st *memstore.Store, id string) engine.Task {
	t.Helper()
	var tasks []engine.Task
	eventually(t, "the instance's task opens", func() bool {
		var err error
		tasks, _, err = st.Tasks(context.Background(), engine.TaskFilter{InstanceID: id, Status: engine.TaskOpen})
		require.NoError(t, err)
		return len(tasks) == 1
	})
	return tasks[0]
}

func TestClusterSpreadsPartitionsEvenly(t *testing.T) {
	st := memstore.New()
	a := startReplica(t, st, "a", leaseTTL)
	require.Len(t, a.held(t), engine.ClusterPartitionsDefault, "a replica alone holds every partition once Run returns")
	b := startReplica(t, st, "b", leaseTTL)
	c := startReplica(t, st, "c", leaseTTL)

	waitSpread(t, a, b, c)
	owners := map[int]string{}
	for _, r := range []*replica{a, b, c} {
		for _, p := range r.held(t) {
			require.Empty(t, owners[p], "partition %d is held by %s and %s", p, owners[p], r.id)
			owners[p] = r.id
		}
	}
	cs, err := b.e.ClusterState(context.Background())
	require.NoError(t, err)
	require.Equal(t, "b", cs.Self)
	require.Len(t, cs.Replicas, 3)
	for _, l := range cs.Leases {
		require.Equal(t, owners[l.Partition], l.Owner, "the store's owner of partition %d", l.Partition)
	}
}

func TestClusterStartsLandInHeldPartitions(t *testing.T) {
	st := memstore.New()
	a := startReplica(t, st, "a", leaseTTL)
	b := startReplica(t, st, "b", leaseTTL)
	waitSpread(t, a, b)
	deployOn(t, a, callBPMN(`<process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="waiter"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`, clusterWaiter))

	for _, r := range []*replica{a, b} {
		held := r.held(t)
		for range 5 {
			snap := startReplicaInstance(t, r, "caller")
			p := engine.PartitionOf(snap.ID, engine.ClusterPartitionsDefault)
			require.Contains(t, held, p, "an instance started on %s lands in a partition it holds", r.id)
			require.Equal(t, p, snap.Partition, "the instance stores its partition")
			var kids []*engine.Snapshot
			eventually(t, "the call activity starts its child", func() bool {
				var err error
				kids, _, err = st.Instances(context.Background(), engine.InstanceFilter{ParentID: snap.ID})
				require.NoError(t, err)
				return len(kids) == 1
			})
			require.Equal(t, p, engine.PartitionOf(kids[0].ID, engine.ClusterPartitionsDefault), "the child lands in its caller's partition")
			require.Equal(t, p, kids[0].Partition)
		}
	}
}

func TestClusterCommandOnOtherPartitionIsNotOwner(t *testing.T) {
	st := memstore.New()
	a := startReplica(t, st, "a", leaseTTL)
	b := startReplica(t, st, "b", leaseTTL)
	waitSpread(t, a, b)
	deployOn(t, a, callBPMN(clusterWaiter))
	snap := startReplicaInstance(t, a, "waiter")
	task := openTaskOf(t, st, snap.ID)

	_, err := b.e.CompleteTask(context.Background(), task.ID, "ann", nil)
	var notOwner *engine.NotOwnerError
	require.ErrorAs(t, err, &notOwner)
	require.Equal(t, engine.NotOwnerError{Partition: snap.Partition, Owner: "a", Address: "a.local:8080"}, *notOwner)
	_, err = b.e.Cancel(context.Background(), snap.ID)
	require.ErrorAs(t, err, &notOwner)
	_, err = b.e.CorrelateHere(context.Background(), engine.Message{Name: "m", InstanceID: snap.ID})
	require.ErrorAs(t, err, &notOwner)
	require.Equal(t, "a", notOwner.Owner)
	stored, err := st.Instance(context.Background(), snap.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusWaiting, stored.Status, "the refused commands changed nothing")

	_, err = a.e.CompleteTask(context.Background(), task.ID, "ann", nil)
	require.NoError(t, err, "the owner completes it")
	eventually(t, "the instance completes on its owner", func() bool {
		s, err := st.Instance(context.Background(), snap.ID)
		require.NoError(t, err)
		return s.Status == engine.StatusCompleted
	})
}

func TestClusterTakesOverTimersOfDeadReplica(t *testing.T) {
	st := memstore.New()
	a := startReplica(t, st, "a", leaseTTL)
	b := startReplica(t, st, "b", leaseTTL)
	waitSpread(t, a, b)
	deployOn(t, a, callBPMN(`<process id="timer" isExecutable="true">
    <startEvent id="s"/><intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration>PT3S</timeDuration></timerEventDefinition></intermediateCatchEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process>`))
	snap := startReplicaInstance(t, a, "timer")

	a.leases.cut.Store(true) // a dies: no heartbeat, no renewal, no hand-back
	eventually(t, "b takes every partition", func() bool { return len(b.held(t)) == engine.ClusterPartitionsDefault })
	eventually(t, "a drops the partitions it cannot renew", func() bool { return len(a.held(t)) == 0 })
	eventually(t, "the timer fires and the instance completes", func() bool {
		s, err := st.Instance(context.Background(), snap.ID)
		require.NoError(t, err)
		return s.Status == engine.StatusCompleted
	})
	require.Contains(t, eventTypes(b.log.all()[snap.ID]), engine.EventTimerFired, "b fired the timer")
	require.NotContains(t, eventTypes(a.log.all()[snap.ID]), engine.EventTimerFired, "a dropped its timer with the partition")
}

func eventTypes(evs []engine.Event) []engine.EventType {
	out := make([]engine.EventType, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

func TestClusterFencedCommitDropsPartition(t *testing.T) {
	st := memstore.New()
	a := startReplica(t, st, "a", time.Hour) // no renewal during the test: only the commit learns of the loss
	deployOn(t, a, callBPMN(`<message id="ping" name="ping"/><process id="waiter" isExecutable="true">
    <startEvent id="s"/><parallelGateway id="fork"/><userTask id="wait"/><intermediateCatchEvent id="pinged"><messageEventDefinition messageRef="ping"/></intermediateCatchEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="fork"/><sequenceFlow id="f2" sourceRef="fork" targetRef="wait"/><sequenceFlow id="f3" sourceRef="fork" targetRef="pinged"/></process>`))
	snap := startReplicaInstance(t, a, "waiter")
	task := openTaskOf(t, st, snap.ID)

	steal(t, st, snap.Partition, "intruder", "intruder.local:8080")
	_, err := a.e.CompleteTask(context.Background(), task.ID, "ann", nil)
	require.ErrorIs(t, err, engine.ErrFenced)
	require.NotContains(t, a.held(t), snap.Partition, "a fenced commit drops the partition")
	require.Len(t, a.held(t), engine.ClusterPartitionsDefault-1, "and only that one")
	n, err := a.e.CorrelateHere(context.Background(), engine.Message{Name: "ping"})
	require.NoError(t, err)
	require.Zero(t, n, "the dropped partition's subscriptions take no message")

	_, err = a.e.CompleteTask(context.Background(), task.ID, "ann", nil)
	var notOwner *engine.NotOwnerError
	require.ErrorAs(t, err, &notOwner)
	require.Equal(t, "intruder.local:8080", notOwner.Address)
	require.Equal(t, task.ID, openTaskOf(t, st, snap.ID).ID, "the task is still open")
}

// TestClusterRefusedStartGoesToNewOwner: a start whose partition another
// replica took over is refused by the store (nothing stored); the replica
// drops that partition at once and names the new owner, so the start is
// made there.
func TestClusterRefusedStartGoesToNewOwner(t *testing.T) {
	st := memstore.New()
	a := startReplica(t, st, "a", time.Hour) // no renewal during the test: only the start learns of the loss
	deployOn(t, a, callBPMN(clusterWaiter))
	for p := range engine.ClusterPartitionsDefault {
		steal(t, st, p, "intruder", "intruder.local:8080")
	}

	_, _, err := a.e.Start(context.Background(), engine.StartRequest{Definition: "waiter", RequestID: "req-1"})
	var notOwner *engine.NotOwnerError
	require.ErrorAs(t, err, &notOwner)
	require.Equal(t, "intruder.local:8080", notOwner.Address)
	require.NotContains(t, a.held(t), notOwner.Partition, "the refused start drops its partition")
	require.Len(t, a.held(t), engine.ClusterPartitionsDefault-1, "and only that one")
	list, _, err := st.Instances(context.Background(), engine.InstanceFilter{})
	require.NoError(t, err)
	require.Empty(t, list, "nothing stored")
}

// fenceMidCommit is the store of a replica whose partition another replica
// takes over in the middle of a commit, as a shared store lets it: the
// batch's new instances are stored, then the takeover fences the
// partition, then the batch's other changes are refused. Before that, it
// holds one commit until released, so that commands gather for the next.
type fenceMidCommit struct {
	*memstore.Store
	t             *testing.T
	held, release chan struct{}
	hold, split   atomic.Bool
}

func (f *fenceMidCommit) Commit(ctx context.Context, b *engine.Batch) error {
	if f.hold.CompareAndSwap(true, false) {
		f.held <- struct{}{}
		<-f.release
		return f.Store.Commit(ctx, b)
	}
	if !f.split.CompareAndSwap(true, false) {
		return f.Store.Commit(ctx, b)
	}
	creates, rest := *b, *b
	creates.Changes, rest.Changes = nil, nil
	for _, c := range b.Changes {
		if c.Create {
			creates.Changes = append(creates.Changes, c)
		} else {
			rest.Changes = append(rest.Changes, c)
		}
	}
	if err := f.Store.Commit(ctx, &creates); err != nil {
		return err
	}
	steal(f.t, f.Store, b.Changes[0].Snapshot.Partition, "intruder", "intruder.local:8080")
	return f.Store.Commit(ctx, &rest)
}

// TestClusterFencedRoundTellsStartsItStored: a start committed together
// with another change, the takeover fencing between the two writes, is
// stored (and run by the new owner) although the commit failed: its caller
// hears that it started, and does not start another.
func TestClusterFencedRoundTellsStartsItStored(t *testing.T) {
	st := &fenceMidCommit{Store: memstore.New(), t: t, held: make(chan struct{}), release: make(chan struct{})}
	a := startReplica(t, st.Store, "a", time.Hour, func(c *engine.Config) { c.Store, c.Cluster.Partitions = st, 1 })
	deployOn(t, a, callBPMN(clusterWaiter))
	waiting := startReplicaInstance(t, a, "waiter")
	task := openTaskOf(t, st.Store, waiting.ID)

	st.hold.Store(true)
	go func() { _, _, _ = a.e.Start(context.Background(), engine.StartRequest{Definition: "waiter"}) }()
	<-st.held
	completed := make(chan error, 1)
	go func() { _, err := a.e.CompleteTask(context.Background(), task.ID, "ann", nil); completed <- err }()
	type started struct {
		snap    *engine.Snapshot
		created bool
		err     error
	}
	start := make(chan started, 1)
	go func() {
		snap, created, err := a.e.Start(context.Background(), engine.StartRequest{Definition: "waiter"})
		start <- started{snap, created, err}
	}()
	eventually(t, "both commands wait for the next round", func() bool { return engine.Queued(a.e, 0) == 2 })
	st.split.Store(true)
	st.release <- struct{}{}

	require.ErrorIs(t, <-completed, engine.ErrFenced, "the task's change was refused")
	s := <-start
	require.NoError(t, s.err, "the new instance is stored")
	require.True(t, s.created)
	stored, err := st.Instance(context.Background(), s.snap.ID)
	require.NoError(t, err)
	l, err := st.Partitions(context.Background())
	require.NoError(t, err)
	require.Equal(t, l[0].Epoch, stored.Epoch, "fenced with the partition: its new owner runs it")
}

func TestClusterCloseHandsPartitionsBack(t *testing.T) {
	st := memstore.New()
	a := startReplica(t, st, "a", leaseTTL)
	b := startReplica(t, st, "b", leaseTTL)
	waitSpread(t, a, b)
	deployOn(t, a, callBPMN(clusterWaiter))
	snap := startReplicaInstance(t, a, "waiter")
	task := openTaskOf(t, st, snap.ID)

	a.e.Close()
	leases, err := st.Partitions(context.Background())
	require.NoError(t, err)
	for _, l := range leases {
		require.NotEqual(t, "a", l.Owner, "a handed partition %d back", l.Partition)
	}
	replicas, err := st.Replicas(context.Background())
	require.NoError(t, err)
	require.Len(t, replicas, 1, "a left the replica list")
	eventually(t, "b takes every partition", func() bool { return len(b.held(t)) == engine.ClusterPartitionsDefault })
	_, err = b.e.CompleteTask(context.Background(), task.ID, "ann", nil)
	require.NoError(t, err, "b applies a's instances now")
}

func TestClusterStateWithoutCluster(t *testing.T) {
	h := setup(t)
	cs, err := h.e.ClusterState(h.ctx)
	require.NoError(t, err)
	require.Equal(t, engine.ClusterPartitionsDefault, cs.Partitions)
	require.Len(t, cs.Held, engine.ClusterPartitionsDefault, "an engine alone holds every partition")
	h.deploySource(callBPMN(clusterWaiter))
	snap := h.start("waiter", nil)
	require.Equal(t, engine.PartitionOf(snap.ID, engine.ClusterPartitionsDefault), snap.Partition, "the partition is stored without a cluster too")
}

// peerList is Config.Peers over the other engines of a test, in process.
type peerList struct {
	mu     sync.Mutex
	others []*engine.Engine
}

func (p *peerList) Correlate(ctx context.Context, m engine.Message) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, e := range p.others {
		more, err := e.CorrelateHere(ctx, m)
		if n += more; err != nil {
			return n, err
		}
	}
	return n, nil
}

func (p *peerList) Signal(ctx context.Context, name string, vars map[string]any) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, e := range p.others {
		more, err := e.SignalHere(ctx, name, vars)
		if n += more; err != nil {
			return n, err
		}
	}
	return n, nil
}

func TestClusterThrownSignalReachesPeers(t *testing.T) {
	st := memstore.New()
	peersOfA, peersOfB := &peerList{}, &peerList{}
	a := startReplica(t, st, "a", leaseTTL, withConfig(func(c *engine.Config) { c.Peers = peersOfA }))
	b := startReplica(t, st, "b", leaseTTL, withConfig(func(c *engine.Config) { c.Peers = peersOfB }))
	peersOfA.mu.Lock()
	peersOfA.others = []*engine.Engine{b.e}
	peersOfA.mu.Unlock()
	peersOfB.mu.Lock()
	peersOfB.others = []*engine.Engine{a.e}
	peersOfB.mu.Unlock()
	waitSpread(t, a, b)
	deployOn(t, a, callBPMN(`<signal id="go" name="go"/><process id="catcher" isExecutable="true">
    <startEvent id="s"/><intermediateCatchEvent id="caught"><signalEventDefinition signalRef="go"/></intermediateCatchEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="caught"/><sequenceFlow id="f2" sourceRef="caught" targetRef="e"/></process>`))
	deployOn(t, a, callBPMN(`<signal id="go" name="go"/><process id="thrower" isExecutable="true">
    <startEvent id="s"/><intermediateThrowEvent id="thrown"><signalEventDefinition signalRef="go"/></intermediateThrowEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="thrown"/><sequenceFlow id="f2" sourceRef="thrown" targetRef="e"/></process>`))
	catchers := []string{startReplicaInstance(t, a, "catcher").ID, startReplicaInstance(t, b, "catcher").ID}

	startReplicaInstance(t, a, "thrower")
	for _, id := range catchers {
		eventually(t, "the signal thrown on a reaches "+id, func() bool {
			s, err := st.Instance(context.Background(), id)
			require.NoError(t, err)
			return s.Status == engine.StatusCompleted
		})
	}
}

// createLog records, for each committed batch that creates an instance,
// whether it came as LeaseFresh.
type createLog struct {
	*memstore.Store
	mu    sync.Mutex
	fresh []bool
}

func (c *createLog) Commit(ctx context.Context, b *engine.Batch) error {
	if slices.ContainsFunc(b.Changes, func(ch engine.Change) bool { return ch.Create }) {
		c.mu.Lock()
		c.fresh = append(c.fresh, b.LeaseFresh != nil && b.LeaseFresh())
		c.mu.Unlock()
	}
	return c.Store.Commit(ctx, b)
}

func (c *createLog) last() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fresh[len(c.fresh)-1]
}

// TestClusterCreatesNeedNoLeaseReadWhileFresh: new instances are committed
// as LeaseFresh (no lease read in the store) only while the partition's
// lease was written less than half its TTL ago.
func TestClusterCreatesNeedNoLeaseReadWhileFresh(t *testing.T) {
	const ttl = 30 * time.Second
	st := memstore.New()
	creates := &createLog{Store: st}
	clock := engine.NewVirtualClock(time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC))
	r := startReplica(t, st, "a", ttl, func(c *engine.Config) { c.Store, c.Clock = creates, clock })
	eventually(t, "a holds every partition", func() bool { return len(r.held(t)) == engine.ClusterPartitionsDefault })
	deployOn(t, r, callBPMN(clusterWaiter))

	startReplicaInstance(t, r, "waiter")
	require.True(t, creates.last(), "just taken")

	r.leases.cut.Store(true) // no renewal from now on
	clock.Advance(ttl * 6 / 10)
	require.Len(t, r.held(t), engine.ClusterPartitionsDefault, "still held: dropped only at two thirds of the TTL")
	startReplicaInstance(t, r, "waiter")
	require.False(t, creates.last(), "written more than half a TTL ago: the store reads the lease")

	r.leases.cut.Store(false)
	eventually(t, "a renewed lease is fresh again", func() bool {
		clock.Advance(ttl / 60) // until the next round comes, and renews
		startReplicaInstance(t, r, "waiter")
		return creates.last()
	})
}

// Each heartbeat tells a replica how many live replicas share its machine,
// and records the machine and the CPUs it uses for GET /api/v1/cluster.
func TestClusterCountsReplicasOnTheSameMachine(t *testing.T) {
	st := memstore.New()
	var mu sync.Mutex
	heard := map[string]int{} // replica → the last count it heard
	on := func(machine string, cpus int) option {
		return func(cfg *engine.Config) {
			id := cfg.Cluster.ReplicaID
			cfg.Cluster.Machine = machine
			cfg.Cluster.CPUs = func() int { return cpus }
			cfg.Cluster.Neighbours = func(n int) {
				mu.Lock()
				defer mu.Unlock()
				heard[id] = n
			}
		}
	}
	a := startReplica(t, st, "a", leaseTTL, on("m1", 2))
	b := startReplica(t, st, "b", leaseTTL, on("m1", 1))
	startReplica(t, st, "c", leaseTTL, on("m2", 4))
	eventually(t, "a and b count each other, c only itself", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return heard["a"] == 2 && heard["b"] == 2 && heard["c"] == 1
	})
	cs, err := a.e.ClusterState(context.Background())
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range cs.Replicas {
		got[r.ID] = fmt.Sprintf("%s/%d", r.Machine, r.CPUs)
	}
	require.Equal(t, map[string]string{"a": "m1/2", "b": "m1/1", "c": "m2/4"}, got)

	b.e.Close()
	require.NoError(t, st.RemoveReplica(context.Background(), "b"))
	eventually(t, "a alone on m1 again", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return heard["a"] == 1
	})
}
