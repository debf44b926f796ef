package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// ChangeDigests is the conformance test of engine.ChangeDigests: one digest
// per replica, each publication replacing the last, read back whole;
// RemoveDigests drops those published before the time given; a replica
// reads all but its own. ds must start empty.
func ChangeDigests(t *testing.T, ds engine.ChangeDigests) {
	c := ctx(t)
	none, err := ds.Digests(c, "")
	require.NoError(t, err)
	require.Empty(t, none)

	a := engine.ChangeDigest{Replica: "a", Published: at(time.Second), Changes: []engine.DigestChange{
		{InstanceID: "i-1", After: 0, Seq: 4, At: at(500 * time.Millisecond)},
	}}
	b := engine.ChangeDigest{Replica: "b", Published: at(3 * time.Second)}
	require.NoError(t, ds.PublishDigest(c, a))
	require.NoError(t, ds.PublishDigest(c, b))
	a.Published = at(2 * time.Second)
	a.Changes = []engine.DigestChange{
		{InstanceID: "i-1", After: 0, Seq: 6, At: at(1500 * time.Millisecond)},
		{InstanceID: "i-2", After: 3, Seq: 5, TaskSeq: 4, At: at(2 * time.Second)},
	}
	require.NoError(t, ds.PublishDigest(c, a))

	got, err := ds.Digests(c, "")
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "a", got[0].Replica, "by replica")
	require.True(t, got[0].Published.Equal(a.Published), "the last publication counts: %s", got[0].Published)
	require.Len(t, got[0].Changes, 2)
	for i, ch := range a.Changes {
		require.Equal(t, ch.InstanceID, got[0].Changes[i].InstanceID)
		require.Equal(t, ch.After, got[0].Changes[i].After)
		require.Equal(t, ch.Seq, got[0].Changes[i].Seq)
		require.Equal(t, ch.TaskSeq, got[0].Changes[i].TaskSeq)
		require.True(t, ch.At.Equal(got[0].Changes[i].At), "change %d at %s, want %s", i, got[0].Changes[i].At, ch.At)
	}
	require.Equal(t, "b", got[1].Replica)
	require.Empty(t, got[1].Changes)
	others, err := ds.Digests(c, "a")
	require.NoError(t, err)
	require.Len(t, others, 1, "all but a's")
	require.Equal(t, "b", others[0].Replica)

	require.NoError(t, ds.RemoveDigests(c, at(2500*time.Millisecond)))
	got, err = ds.Digests(c, "")
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "b", got[0].Replica, "published after the cut")
}
