package codec_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/codec"
)

func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)
	vars := map[string]any{
		"int": int64(1), "float": 1.0, "big": 1.5e300, "s": "x", "yes": true, "null": nil,
		"list": []any{int64(1), "two", nil}, "emptyList": []any{}, "nilList": []any(nil),
		"map": map[string]any{"a": []any{map[string]any{}}}, "nilMap": map[string]any(nil),
		"when": when, "bytes": []byte{0, 1}, "goInt": 7,
	}
	snap := &engine.Snapshot{
		ID: "i-1", Seq: 4, NextID: 9, Status: engine.StatusWaiting, Variables: vars,
		Tokens:        []engine.TokenState{{ID: 2, ElementID: "review", Status: engine.TokenTask, Local: map[string]any{"n": int64(3)}}},
		Tasks:         []engine.Task{{ID: "t-1", TokenID: 2, Variables: map[string]any{"f": 2.5}}},
		Subscriptions: []engine.Subscription{{ID: 4, Token: 3, ElementID: "espStart", Scope: 5, Message: "nudge"}},
	}
	data, err := codec.EncodeSnapshot(snap)
	require.NoError(t, err)
	got, err := codec.DecodeSnapshot(data)
	require.NoError(t, err)
	require.Equal(t, snap, got)

	tasks := []engine.Task{{ID: "t-1", TokenID: 2, Variables: map[string]any{"n": int64(1), "f": 1.0}}, {ID: "t-2", TokenID: 5}}
	data, err = codec.EncodeTasks(tasks)
	require.NoError(t, err)
	gotTasks, err := codec.DecodeTasks(data)
	require.NoError(t, err)
	require.Equal(t, tasks, gotTasks)
}

func TestUnsupportedValues(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]any{"struct": struct{ A int }{1}, "int32": int32(1), "tagged key": map[string]any{"\x00t": "x"}} {
		_, err := codec.EncodeSnapshot(&engine.Snapshot{ID: "i", Variables: map[string]any{"v": v}})
		require.ErrorIs(t, err, codec.ErrUnsupported, name)
	}
}
