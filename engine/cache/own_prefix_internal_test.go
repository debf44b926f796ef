package cache

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestOwnPrefix: a replica recognises its own messages by how the publisher
// encodes them, and no other replica's (not even one whose id extends it).
func TestOwnPrefix(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"host-1", `odd "id" <&>`, ""} {
		data, err := json.Marshal(message{Replica: id, Events: []engine.Event{{Type: engine.EventInstanceStarted, InstanceID: "i1", Seq: 1}}})
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(data), ownPrefix(id)), "%s: %s", id, data)
		other, err := json.Marshal(message{Replica: id + "0", Events: nil})
		require.NoError(t, err)
		require.False(t, strings.HasPrefix(string(other), ownPrefix(id)), id)
	}
}

// TestCarriesTasks: a message says whether it changes a task, and a reader
// that cannot tell decodes it.
func TestCarriesTasks(t *testing.T) {
	t.Parallel()
	plain := engine.Event{InstanceID: "i1", Seq: 1, Type: engine.EventInstanceStarted}
	task := engine.Event{InstanceID: "i1", Seq: 2, Type: engine.EventTaskCreated, Detail: map[string]any{"taskId": "t1"}}
	for _, tc := range []struct {
		events []engine.Event
		want   bool
	}{{[]engine.Event{plain}, false}, {[]engine.Event{plain, task}, true}, {[]engine.Event{task}, true}} {
		data, err := json.Marshal(message{Replica: "other", Tasks: changesTask(tc.events), Events: tc.events})
		require.NoError(t, err)
		require.Equal(t, tc.want, carriesTasks(string(data)), "%s", data)
	}
	require.True(t, carriesTasks("not json"))
	require.True(t, carriesTasks(`{"r":"x","t":tru`))
}
