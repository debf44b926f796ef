package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// NewInsertHook is a store that stores a new instance in two steps, an
// insert and then a check of its partition's lease (mongostore):
// AfterNewInsert has fn run between the two, where another replica's
// takeover may come. A store that checks and stores under one lock
// (memstore) has no such point: a takeover comes before the create or
// after it.
type NewInsertHook interface {
	AfterNewInsert(fn func())
}

// when is where a step of the takeover comes relative to the create of a
// new instance by the partition's old owner.
type when int

const (
	before  when = iota // before the create
	between             // after its insert, before its check (NewInsertHook)
	after               // after the create returned
)

func (w when) String() string { return [...]string{"before", "between", "after"}[w] }

// testCreateDuringTakeover: replica a creates an instance in a partition
// it holds while replica b takes the partition over (acquire, fence, read
// its unfinished instances), each step of b before, in the middle of or
// after the create. Whatever the order, a create a is told succeeded is
// one b read (and runs), and one a is told was fenced left nothing that b
// read or that the store keeps: no instance is acknowledged and unrun.
func testCreateDuringTakeover(t *testing.T, s LeaseStore) {
	c := ctx(t)
	hook, hooked := s.(NewInsertHook)
	var orders [][3]when // acquire, fence, read
	for q := before; q <= after; q++ {
		for f := q; f <= after; f++ {
			for r := f; r <= after; r++ {
				orders = append(orders, [3]when{q, f, r})
			}
		}
	}
	p := 0
	for _, idempotent := range []bool{true, false} {
		for _, o := range orders {
			p++
			name := fmt.Sprintf("acquire %s, fence %s, read %s, request id %t", o[0], o[1], o[2], idempotent)
			id := fmt.Sprintf("i-%02d", p)
			old, ok, err := s.AcquirePartition(c, p, "a", at(0), leaseTTL)
			require.NoError(t, err)
			require.True(t, ok)

			var taken engine.PartitionLease
			var read []string
			steps := []func(){
				func() {
					l, ok, err := s.AcquirePartition(c, p, "b", at(leaseTTL), leaseTTL)
					require.NoError(t, err)
					require.True(t, ok, "a's lease expired")
					taken = l
				},
				func() { require.NoError(t, s.FencePartition(c, p, taken.Epoch)) },
				func() {
					require.NoError(t, s.UnfinishedIn(c, p, func(sn *engine.Snapshot) error {
						read = append(read, sn.ID)
						return nil
					}))
				},
			}
			run := func(w when) {
				for i, step := range steps {
					if o[i] == w {
						step()
					}
				}
			}
			if hooked {
				hook.AfterNewInsert(func() { run(between) })
			}
			run(before)
			if !hooked {
				run(between) // no step between an insert and its check: the create is one
			}

			sn := in(id, p)
			sn.Epoch = old.Epoch
			if idempotent {
				sn.RequestID = "req-" + id
				_, err = s.CreateInstance(c, sn)
			} else {
				// Fresh, as the engine's clock tells it, while no other
				// replica can have taken the partition.
				fresh := func() bool { return taken.Epoch == 0 }
				err = s.Commit(c, &engine.Batch{Epoch: old.Epoch, LeaseFresh: fresh, Changes: []engine.Change{{Snapshot: sn, Create: true}}})
			}
			if hooked {
				hook.AfterNewInsert(nil)
			}
			run(after)

			// Stored before the fence (which stamped it), or checked
			// before the acquire: the only creates that stand.
			acknowledged := err == nil
			want := o[0] == after || hooked && o[1] == between
			if acknowledged {
				require.Contains(t, read, id, "%s: acknowledged, so its new owner read it", name)
				require.NoError(t, step(t, s, id, p, 0, taken.Epoch), "%s: its new owner runs it", name)
				require.True(t, want, "%s: acknowledged", name)
				continue
			}
			require.False(t, want, "%s: refused (%v)", name, err)
			requireFenced(t, err)
			require.False(t, slices.Contains(read, id), "%s: refused, yet its new owner read it", name)
			_, err = s.Instance(c, id)
			require.ErrorIs(t, err, engine.ErrNotFound, "%s: refused, so not stored", name)
			evs, err := s.Events(c, id, 0, 0)
			require.NoError(t, err)
			require.Empty(t, evs, "%s: refused, so none of its events is in the log", name)
			if idempotent {
				again := in(id+"-again", p)
				again.RequestID, again.Epoch = sn.RequestID, taken.Epoch
				_, err = s.CreateInstance(c, again)
				require.NoError(t, err, "%s: the request id is free again", name)
			}
		}
	}
}
